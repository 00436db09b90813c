import Testing

@testable import JournalStore

/// `sortInPlace` orders as the standard library does, whatever the input: random, sorted,
/// reversed, all equal, few distinct values, and the sizes around its insertion-sort cut.
struct InPlaceSortTests {
  struct Item: Equatable {
    let key: Int
    let tie: Int
  }

  /// A strict total order: by key, newest (largest) first, then by tie.
  static func before(_ a: Item, _ b: Item) -> Bool {
    a.key != b.key ? a.key > b.key : a.tie < b.tie
  }

  @Test func ordersAsTheStandardSortDoes() {
    var generator = SystemRandomNumberGenerator()
    let sizes = [0, 1, 2, 3, 15, 16, 17, 18, 33, 100, 1_000, 20_000]
    for size in sizes {
      let shapes: [[Int]] = [
        (0..<size).map { _ in Int.random(in: 0..<1_000_000, using: &generator) },
        Array(0..<size), Array((0..<size).reversed()), Array(repeating: 7, count: size),
        (0..<size).map { _ in Int.random(in: 0..<3, using: &generator) },
        (0..<size).map { $0 % 2 == 0 ? $0 : size - $0 },
      ]
      for (shape, keys) in shapes.enumerated() {
        let items = keys.enumerated().map { Item(key: $1, tie: $0) }
        var sorted = items
        sortInPlace(&sorted, by: Self.before)
        #expect(sorted == items.sorted(by: Self.before), "size \(size), shape \(shape)")
      }
    }
  }

  /// A comparison that only ever sees keys (many equal) still gives an order, and keeps
  /// every item.
  @Test func equalKeysKeepEveryItem() {
    let items = (0..<5_000).map { Item(key: $0 % 4, tie: $0) }
    var sorted = items
    sortInPlace(&sorted) { $0.key > $1.key }
    #expect(zip(sorted, sorted.dropFirst()).allSatisfy { $0.key >= $1.key })
    #expect(Set(sorted.map(\.tie)) == Set(items.map(\.tie)))
  }

  /// The heapsort a badly split run falls back to, taken at once (no depth left), on a part
  /// of the array: the same order, and nothing outside the part moved.
  @Test func heapsortFallbackOnAPart() {
    var generator = SystemRandomNumberGenerator()
    for size in [0, 1, 2, 3, 17, 100, 1_000] {
      let items = (0..<size + 10).map {
        Item(key: Int.random(in: 0..<50, using: &generator), tie: $0)
      }
      var sorted = items
      sorted.withUnsafeMutableBufferPointer { buffer in
        introsort(buffer, 5, 5 + size, depthLeft: 0, Self.before)
      }
      #expect(Array(sorted[..<5]) == Array(items[..<5]))
      #expect(Array(sorted[(5 + size)...]) == Array(items[(5 + size)...]))
      #expect(Array(sorted[5..<5 + size]) == items[5..<5 + size].sorted(by: Self.before))
    }
  }
}
