import JournalCrypto
import Testing

/// Buffers that share one guarded allocation (`SecureBytes.parts`) are as separate as
/// buffers of their own: zeroed, of their own sizes, not overlapping, each alive on its own,
/// each wiped on its own.
struct SecureBytesTests {
  func bytes(_ buffer: SecureBytes) -> [UInt8] { buffer.withUnsafeBytes { Array($0) } }

  @Test func partsAreZeroedSeparateBuffers() throws {
    let parts = try SecureBytes.parts([32, 7, 4096])
    #expect(parts.map(\.count) == [32, 7, 4096])
    for part in parts { #expect(bytes(part).allSatisfy { $0 == 0 }) }
    for (index, part) in parts.enumerated() {
      part.withUnsafeMutableBytes { buffer in
        for offset in buffer.indices { buffer[offset] = UInt8(index + 1) }
      }
    }
    // Each part holds exactly what was written to it: no part overlaps another.
    for (index, part) in parts.enumerated() {
      #expect(bytes(part) == [UInt8](repeating: UInt8(index + 1), count: part.count))
    }
  }

  /// One part keeps the allocation alive after the others (and the array) are gone.
  @Test func aPartOutlivesTheOthers() throws {
    var parts: [SecureBytes]? = try SecureBytes.parts([16, 16])
    let kept = parts![1]
    kept.withUnsafeMutableBytes { $0.copyBytes(from: Array(0..<16)) }
    parts = nil
    #expect(bytes(kept) == Array(0..<16))
  }

  /// `wipe()` zeroes the part it is called on and nothing beside it, an empty part included.
  @Test func wipingAPartLeavesTheOthers() throws {
    let parts = try SecureBytes.parts([8, 8, 0, 8])
    for part in parts {
      part.withUnsafeMutableBytes { _ = $0.initializeMemory(as: UInt8.self, repeating: 9) }
    }
    parts[1].wipe()
    // An empty part wipes nothing, not the first byte of the part after it.
    parts[2].wipe()
    #expect(bytes(parts[0]) == [UInt8](repeating: 9, count: 8))
    #expect(bytes(parts[1]) == [UInt8](repeating: 0, count: 8))
    #expect(bytes(parts[3]) == [UInt8](repeating: 9, count: 8))
  }
}
