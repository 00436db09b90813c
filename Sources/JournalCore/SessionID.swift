/// A session's identity: 16 random bytes (a version-4 UUID), stable for the session's whole life
/// so that a later sync can match records across devices.
///
/// Written as 32 lowercase hex digits; shown to people as the first 8.
///
/// Held as two integers rather than as its hex String: `list` makes, sorts and copies one per
/// session, and a String of 32 bytes is a separate, reference-counted allocation each time.
public struct SessionID: Hashable, Sendable, Comparable, CustomStringConvertible {
  /// The 16 bytes as two big-endian halves, so that the integers' order is the hex order.
  private let high: UInt64
  private let low: UInt64

  private static let digits = Array("0123456789abcdef".utf8)

  /// Makes an id from 16 random bytes, setting the UUID version (4) and variant bits.
  public init(randomBytes bytes: [UInt8]) {
    precondition(bytes.count == 16, "a session id is 16 bytes")
    var b = bytes
    b[6] = (b[6] & 0x0F) | 0x40
    b[8] = (b[8] & 0x3F) | 0x80
    self.init(bytes: b)
  }

  /// The id whose 16 bytes are exactly these (as another device wrote it); nil for any
  /// other length.
  public init?(exactly bytes: some Collection<UInt8>) {
    let bytes = Array(bytes)
    guard bytes.count == 16 else { return nil }
    self.init(bytes: bytes)
  }

  /// The id of 16 bytes: two big-endian halves.
  private init(bytes: [UInt8]) {
    precondition(bytes.count == 16, "a session id is 16 bytes")
    (high, low) = bytes.withUnsafeBytes { raw in
      var reader = ByteReader(raw)
      // 16 bytes, checked above: neither read falls short.
      return ((try? reader.bigEndian(UInt64.self)) ?? 0, (try? reader.bigEndian(UInt64.self)) ?? 0)
    }
  }

  /// Parses 32 hex digits, with or without the dashes of the UUID form, in either case.
  public init?(_ text: String) {
    let digits = text.lowercased().utf8.filter { $0 != UInt8(ascii: "-") }
    guard let id = digits.withUnsafeBytes({ SessionID(storedDigits: $0) }) else { return nil }
    self = id
  }

  /// An id read from storage: exactly 32 lowercase hex digits as UTF-8, else nil.
  public init?(storedDigits digits: UnsafeRawBufferPointer) {
    guard digits.count == 32 else { return nil }
    var halves: (UInt64, UInt64) = (0, 0)
    for index in 0..<32 {
      let digit = digits[index]
      let value: UInt8
      switch digit {
      case 0x30...0x39: value = digit &- 0x30
      case 0x61...0x66: value = digit &- 0x61 &+ 10
      default: return nil
      }
      if index < 16 {
        halves.0 = halves.0 << 4 | UInt64(value)
      } else {
        halves.1 = halves.1 << 4 | UInt64(value)
      }
    }
    (high, low) = halves
  }

  /// The 32 lowercase hex digits.
  public var hex: String {
    String(unsafeUninitializedCapacity: 32) { (out: UnsafeMutableBufferPointer<UInt8>) -> Int in
      for index in 0..<32 {
        let half = index < 16 ? high : low
        out[index] = Self.digits[Int(half >> (60 - 4 * UInt64(index % 16)) & 0x0F)]
      }
      return 32
    }
  }

  /// The 16 raw bytes.
  public var bytes: [UInt8] { withBytes { Array($0) } }

  /// Lends the 16 raw bytes without allocating (`list` needs them once per session).
  public func withBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R
  {
    try withUnsafeBytes(of: (high.bigEndian, low.bigEndian)) { raw throws(E) in try body(raw) }
  }

  /// The first 8 hex digits: what lists and messages show.
  public var short: String {
    String(unsafeUninitializedCapacity: 8) { (out: UnsafeMutableBufferPointer<UInt8>) -> Int in
      for index in 0..<8 {
        out[index] = Self.digits[Int(high >> (60 - 4 * UInt64(index)) & 0x0F)]
      }
      return 8
    }
  }

  /// Appends the short form's 8 digits as UTF-8 (for long lists: no String per row).
  public func appendShort(to bytes: inout [UInt8]) {
    var text: UInt64 = 0
    withUnsafeMutableBytes(of: &text) { out in
      for index in 0..<8 {
        out[index] = Self.digits[Int(high >> (60 - 4 * UInt64(index)) & 0x0F)]
      }
    }
    withUnsafeBytes(of: text) { bytes.append(contentsOf: $0) }
  }

  /// The canonical UUID form, 8-4-4-4-12.
  public var uuidString: String {
    let h = Array(hex)
    return [h[0..<8], h[8..<12], h[12..<16], h[16..<20], h[20..<32]]
      .map { String($0) }.joined(separator: "-")
  }

  public var description: String { short }

  public static func < (lhs: SessionID, rhs: SessionID) -> Bool {
    (lhs.high, lhs.low) < (rhs.high, rhs.low)
  }

  /// Normalises what a person typed as an id prefix: lowercase hex, dashes and spaces
  /// ignored (plain mode spells an id out, "5 b 5 4", for the ear). Returns nil when it is
  /// empty or holds anything but hex digits, dashes and spaces.
  public static func normalisedPrefix(_ text: String) -> String? {
    let digits = text.lowercased().filter { $0 != "-" && $0 != " " }
    guard !digits.isEmpty, digits.count <= 32, digits.allSatisfy(\.isHexDigit) else { return nil }
    return digits
  }
}

extension String {
  func leftPadded(to width: Int, with pad: Character = "0") -> String {
    count >= width ? self : String(repeating: pad, count: width - count) + self
  }
}
