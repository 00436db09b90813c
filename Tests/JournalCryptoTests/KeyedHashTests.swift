import JournalCrypto
import Testing

struct KeyedHashTests {
  /// The ledger tree's digests made in place, in two parts with one scratch state reused, are
  /// BLAKE2b-256 of the parts joined, for every length (empty ones too) and across reuse.
  @Test func unkeyedInPlaceIsTheJoinedDigest() {
    let scratch = UnkeyedScratch()
    var seed: UInt8 = 7
    for (headCount, bodyCount) in [(0, 0), (0, 5), (10, 0), (10, 27), (9, 8192), (10, 130_000)] {
      let head = (0..<headCount).map { _ -> UInt8 in
        seed = seed &* 31 &+ 11
        return seed
      }
      let body = (0..<bodyCount).map { UInt8(truncatingIfNeeded: $0 &* 7) }
      var out = [UInt8](repeating: 0xEE, count: 32)
      head.withUnsafeBytes { head in
        body.withUnsafeBytes { body in
          out.withUnsafeMutableBytes { scratch.digest(head, body, into: $0) }
        }
      }
      #expect(out == KeyedHash.unkeyed(head + body), "\(headCount) \(bodyCount)")
    }
  }

  /// A state restarted (under the same key or another) gives what a new one gives: nothing of
  /// the hash before it is carried over, finished or not.
  @Test func restartIsAFreshHash() throws {
    let one = try SecureBytes(copying: [UInt8](repeating: 1, count: 32))
    let two = try SecureBytes(copying: [UInt8](repeating: 2, count: 32))
    func fresh(_ key: SecureBytes, _ bytes: [UInt8]) throws -> [UInt8] {
      let hash = try KeyedHash(key: key)
      hash.update(bytes)
      return hash.finish()
    }
    let reused = try KeyedHash(key: one)
    reused.update([1, 2, 3])
    #expect(reused.finish() == (try fresh(one, [1, 2, 3])))
    try reused.restart(key: one)
    reused.update([4, 5])
    #expect(reused.finish() == (try fresh(one, [4, 5])))
    // Restarted before finishing, under another key
    try reused.restart(key: one)
    reused.update([9, 9, 9])
    try reused.restart(key: two)
    reused.update([4, 5])
    let other = reused.finish()
    #expect(other == (try fresh(two, [4, 5])))
    #expect(other != (try fresh(one, [4, 5])))
  }
}
