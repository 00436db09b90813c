import JournalCrypto
import Testing

/// The order-free sum that binds a read of many rows to the ledger's indexes: the same
/// strings in any order sum alike; one left out, added, changed or counted twice does not.
struct MultisetSumTests {
  let key = [UInt8](repeating: 9, count: MultisetSum.keyBytes)

  func sum(_ strings: [[UInt8]]) -> MultisetSum {
    var sum = MultisetSum(key: key)
    for string in strings { string.withUnsafeBytes { sum.add($0) } }
    return sum
  }

  let strings: [[UInt8]] = (0..<40).map { index in
    [1] + [UInt8](repeating: UInt8(index), count: 16) + [2] + [UInt8(index), 0, 0, 0, 0, 0, 0, 0]
  }

  @Test func orderDoesNotMatter() {
    #expect(sum(strings) == sum(strings.reversed()))
    #expect(sum(strings) == sum(strings.sorted { $0.last ?? 0 > $1.last ?? 0 }))
    // Added in two parts, then joined.
    var first = sum(Array(strings.prefix(13)))
    first.add(sum(Array(strings.dropFirst(13))))
    #expect(first == sum(strings))
    #expect(sum(strings).count == strings.count)
  }

  @Test func anyChangeDoes() {
    let whole = sum(strings)
    #expect(sum(Array(strings.dropLast())) != whole)
    #expect(sum(strings + [strings[3]]) != whole)
    var changed = strings
    changed[7][18] ^= 1
    #expect(sum(changed) != whole)
    // A string counted twice and another left out: the counts agree, the sums do not.
    var twice = strings
    twice[5] = twice[6]
    #expect(sum(twice).count == whole.count && sum(twice) != whole)
    // The empty string counts.
    #expect(sum(strings + [[]]) != whole)
  }

  /// A string taken away leaves the sum of the rest, in any order, across the carry of the
  /// low word (many strings summed wrap it); one taken away that was never added does not.
  @Test func takingAwayLeavesTheRest() {
    var whole = sum(strings)
    strings[11].withUnsafeBytes { whole.remove($0) }
    #expect(whole == sum(strings.enumerated().filter { $0.offset != 11 }.map(\.element)))
    #expect(whole.count == strings.count - 1)
    for (index, string) in strings.enumerated().reversed() where index != 11 {
      string.withUnsafeBytes { whole.remove($0) }
    }
    #expect(whole == MultisetSum(key: key))
    // A changed string taken away for the string itself: not the sum of the rest.
    var changed = sum(strings)
    var other = strings[3]
    other[18] ^= 1
    other.withUnsafeBytes { changed.remove($0) }
    #expect(changed.count == strings.count - 1)
    #expect(changed != sum(Array(strings.prefix(3) + strings.dropFirst(4))))
    // Nothing to take away: the count stays at zero.
    var empty = MultisetSum(key: key)
    strings[0].withUnsafeBytes { empty.remove($0) }
    #expect(empty.count == 0 && empty != MultisetSum(key: key))
  }

  @Test func anotherKeyIsAnotherSum() {
    let other = [UInt8](repeating: 10, count: MultisetSum.keyBytes)
    var withOther = MultisetSum(key: other)
    for string in strings { string.withUnsafeBytes { withOther.add($0) } }
    #expect(withOther != sum(strings))
  }

  /// Kept between commands as 24 bytes (the sum, then the count) and read back under the same
  /// key; any other length is refused, and the key is not in them.
  @Test func keptAndReadBack() throws {
    let whole = sum(strings)
    #expect(whole.bytes.count == MultisetSum.storedBytes)
    #expect(MultisetSum(key: key, bytes: whole.bytes) == whole)
    #expect(whole.bytes.suffix(8) == [40, 0, 0, 0, 0, 0, 0, 0])
    #expect(MultisetSum(key: key, bytes: MultisetSum(key: key).bytes) == MultisetSum(key: key))
    #expect(MultisetSum(key: key, bytes: Array(whole.bytes.dropLast())) == nil)
    #expect(MultisetSum(key: key, bytes: whole.bytes + [0]) == nil)
    // A count no journal reaches (2^32) is not read.
    #expect(
      MultisetSum(key: key, bytes: Array(whole.bytes.prefix(16)) + [0, 0, 0, 0, 1, 0, 0, 0]) == nil)
    let other = [UInt8](repeating: 10, count: MultisetSum.keyBytes)
    #expect(MultisetSum(key: other, bytes: whole.bytes) != whole)
    // A read back sum goes on adding as the one kept.
    var readBack = try #require(MultisetSum(key: key, bytes: sum(Array(strings.prefix(9))).bytes))
    for string in strings.dropFirst(9) { string.withUnsafeBytes { readBack.add($0) } }
    #expect(readBack == whole)
  }
}
