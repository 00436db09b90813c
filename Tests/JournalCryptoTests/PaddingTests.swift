import JournalCrypto
import Testing

struct PaddingTests {
  /// The plain reading of ISO/IEC 7816-4 padding that `sodium_unpad` implements: within the
  /// last block, the last non-zero byte must be 0x80, and the plaintext ends before it.
  static func reference(_ padded: [UInt8], block: Int) -> Int? {
    guard padded.count >= block else { return nil }
    for index in stride(from: padded.count - 1, through: padded.count - block, by: -1)
    where padded[index] != 0 {
      return padded[index] == 0x80 ? index : nil
    }
    return nil
  }

  /// Padding as sodium_pad writes it is read back to the exact length, for every length
  /// across three blocks.
  @Test func padded() {
    for length in 0..<(3 * 256) {
      var padded = [UInt8](repeating: 0x5A, count: length)
      padded.append(0x80)
      padded += [UInt8](repeating: 0, count: (256 - padded.count % 256) % 256)
      let count = padded.withUnsafeBytes { Padding.unpaddedCount($0, block: 256) }
      #expect(count == length, "length \(length)")
    }
  }

  /// `Padding.pad` writes exactly the bytes sodium_pad writes (the plaintext, 0x80, zeros
  /// up to the next multiple of the block above its length), for every length across three
  /// blocks, over a buffer that held other bytes before.
  @Test func padsAsSodium() {
    for length in 0..<(3 * 256) {
      let plaintext = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
      let capacity = Padding.paddedCount(length, block: 256)
      var ours = [UInt8](repeating: 0xDB, count: capacity + 16)
      let count = ours.withUnsafeMutableBytes { out in
        plaintext.withUnsafeBytes { Padding.pad($0, into: out, block: 256) }
      }
      let expected = plaintext + [0x80] + [UInt8](repeating: 0, count: 255 - length % 256)
      #expect(count == expected.count && count % 256 == 0, "length \(length)")
      #expect(Array(ours[0..<count]) == expected, "length \(length)")
      #expect(ours[count...].allSatisfy { $0 == 0xDB }, "length \(length)")
    }
  }

  /// What is not valid padding is refused: no 0x80, a non-zero byte after it, a marker only
  /// before the last block, an all-zero block, a buffer shorter than a block.
  @Test func malformed() {
    var cases: [[UInt8]] = [
      [UInt8](repeating: 0, count: 256),
      [UInt8](repeating: 0, count: 255) + [0x01],
      [UInt8](repeating: 0, count: 254) + [0x80, 0x01],
      [0x80] + [UInt8](repeating: 0, count: 511),
      [UInt8](repeating: 0x80, count: 255) + [0x7F],
      [0x80],
      [],
    ]
    cases.append([UInt8](repeating: 0, count: 255) + [0x81])
    for padded in cases {
      let count = padded.withUnsafeBytes { Padding.unpaddedCount($0, block: 256) }
      #expect(count == nil, "\(padded.suffix(4))")
    }
  }

  /// On random last blocks, mostly zeros with a few bytes set, it agrees with the reference.
  @Test func agreesWithReference() {
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15
    func next() -> UInt64 {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return state >> 33
    }
    for _ in 0..<5000 {
      var padded = [UInt8](repeating: 0, count: 256 * (1 + Int(next() % 2)))
      for _ in 0..<Int(next() % 4) {
        let value: UInt8 = next() % 2 == 0 ? 0x80 : UInt8(truncatingIfNeeded: next())
        padded[Int(next() % UInt64(padded.count))] = value
      }
      let count = padded.withUnsafeBytes { Padding.unpaddedCount($0, block: 256) }
      #expect(count == Self.reference(padded, block: 256))
    }
  }
}
