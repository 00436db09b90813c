import CSodium

/// An order-free digest of a multiset of byte strings: the sum, modulo 2^128, of each
/// string's SipHash-2-4 (128-bit output) under a secret key, with the count beside it. Two
/// reads of the same rows in different orders (a table in the order of its rows, an index in
/// the order of its key) sum alike; a string left out, added, changed or counted twice
/// changes the sum, except with chance 2^-128 for a maker of the rows who cannot know the key
/// (derived from the vault's key, never stored; SECURITY.md, "The ledger").
///
/// A sum is compared only with another made under the same key; one kept between commands
/// (`bytes`) is kept sealed under the vault's key.
public struct MultisetSum: Equatable, Sendable {
  public static let keyBytes = Int(crypto_shorthash_siphashx24_KEYBYTES)

  private let key: [UInt8]
  private var low: UInt64 = 0
  private var high: UInt64 = 0
  public private(set) var count = 0

  /// The size of `bytes`.
  public static let storedBytes = 24

  /// An empty sum under `key` (`keyBytes` secret bytes).
  public init(key: [UInt8]) {
    precondition(key.count == Self.keyBytes, "a SipHash key is 16 bytes")
    self.key = key
  }

  /// A sum under `key` as `bytes` kept it; nil unless they are `storedBytes` long and their
  /// count is one a sum can have.
  public init?(key: [UInt8], bytes: [UInt8]) {
    guard bytes.count == Self.storedBytes else { return nil }
    func word(_ at: Int) -> UInt64 {
      bytes[at..<at + 8].reversed().reduce(0) { $0 << 8 | UInt64($1) }
    }
    // No journal holds 2^32 sessions.
    guard word(16) <= UInt64(UInt32.max) else { return nil }
    let count = Int(word(16))
    self.init(key: key)
    low = word(0)
    high = word(8)
    self.count = count
  }

  /// The sum and its count, little-endian (`storedBytes`): the key is not in them.
  public var bytes: [UInt8] {
    [low, high, UInt64(count)].flatMap { word in
      (0..<8).map { UInt8(truncatingIfNeeded: word >> (8 * $0)) }
    }
  }

  /// Adds one string.
  public mutating func add(_ bytes: UnsafeRawBufferPointer) {
    let (low, high) = hash(bytes)
    add(low: low, high: high, count: 1)
  }

  /// Takes away one string the sum holds (what `add` added): the sum of the rest, as if it
  /// had never been added. Taking away one it does not hold gives a sum of nothing real,
  /// which compares unequal to every sum of real strings but by chance; the count never
  /// goes below zero.
  public mutating func remove(_ bytes: UnsafeRawBufferPointer) {
    let (low, high) = hash(bytes)
    // Minus the hash, modulo 2^128: its two's complement.
    let (negatedLow, carry) = (~low).addingReportingOverflow(1)
    add(low: negatedLow, high: ~high &+ (carry ? 1 : 0), count: count > 0 ? -1 : 0)
  }

  /// The string's SipHash-2-4 under the key, as two little-endian words.
  private func hash(_ bytes: UnsafeRawBufferPointer) -> (low: UInt64, high: UInt64) {
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
    return (UInt64(littleEndian: out.0), UInt64(littleEndian: out.1))
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
