import CSodium

/// An order-free digest of a multiset of byte strings: the sum, modulo 2^128, of each
/// string's SipHash-2-4 (128-bit output) under a key drawn for this process, with the count
/// beside it. Two reads of the same rows in different orders (a table in the order of its
/// rows, an index in the order of its key) sum alike; a string left out, added, changed or
/// counted twice changes the sum, except with chance 2^-128 for a maker of the rows who
/// cannot know the key (it is never stored; SECURITY.md, "The ledger").
///
/// Not a commitment to keep: the key lives as long as the process, and a sum is compared
/// only with another made under the same key.
public struct MultisetSum: Equatable, Sendable {
  public static let keyBytes = Int(crypto_shorthash_siphashx24_KEYBYTES)

  private let key: [UInt8]
  private var low: UInt64 = 0
  private var high: UInt64 = 0
  public private(set) var count = 0

  /// An empty sum under `key` (`keyBytes` bytes, random).
  public init(key: [UInt8]) {
    precondition(key.count == Self.keyBytes, "a SipHash key is 16 bytes")
    self.key = key
  }

  /// Adds one string.
  public mutating func add(_ bytes: UnsafeRawBufferPointer) {
    // On the stack: a million sessions' entries are summed, one call each.
    var out: (UInt64, UInt64) = (0, 0)
    let empty: UInt8 = 0
    withUnsafeMutableBytes(of: &out) { out in
      withUnsafePointer(to: empty) { empty in
        guard let target = out.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
        let input = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) ?? empty
        _ = crypto_shorthash_siphashx24(target, input, UInt64(bytes.count), key)
      }
    }
    add(low: UInt64(littleEndian: out.0), high: UInt64(littleEndian: out.1), count: 1)
  }

  /// Adds every string `other` holds (made under the same key).
  public mutating func add(_ other: MultisetSum) {
    precondition(other.key == key, "sums under different keys")
    add(low: other.low, high: other.high, count: other.count)
  }

  private mutating func add(low addLow: UInt64, high addHigh: UInt64, count added: Int) {
    let (sum, carry) = low.addingReportingOverflow(addLow)
    low = sum
    high = high &+ addHigh &+ (carry ? 1 : 0)
    count += added
  }
}
