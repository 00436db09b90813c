import JournalCrypto
import Testing

struct KeyedHashTests {
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
