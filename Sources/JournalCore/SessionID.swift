/// A session's identity: 16 random bytes (a version-4 UUID), stable for the session's whole life
/// so that a later sync can match records across devices.
///
/// Written as 32 lowercase hex digits; shown to people as the first 8.
public struct SessionID: Hashable, Sendable, Comparable, CustomStringConvertible {
  /// The 32 lowercase hex digits.
  public let hex: String

  private static let digits = Array("0123456789abcdef".utf8)

  /// Makes an id from 16 random bytes, setting the UUID version (4) and variant bits.
  public init(randomBytes bytes: [UInt8]) {
    precondition(bytes.count == 16, "a session id is 16 bytes")
    var b = bytes
    b[6] = (b[6] & 0x0F) | 0x40
    b[8] = (b[8] & 0x3F) | 0x80
    var text: [UInt8] = []
    text.reserveCapacity(32)
    for byte in b {
      text.append(Self.digits[Int(byte >> 4)])
      text.append(Self.digits[Int(byte & 0x0F)])
    }
    self.hex = String(decoding: text, as: UTF8.self)
  }

  /// Parses 32 hex digits, with or without the dashes of the UUID form, in either case.
  public init?(_ text: String) {
    // Fast path: 32 lowercase hex digits, as the vault stores them (once per listed row).
    var utf8 = text.utf8
    if utf8.count == 32,
      utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) })
    {
      self.hex = text
      return
    }
    utf8 = text.lowercased().utf8
    let digits = utf8.filter { $0 != UInt8(ascii: "-") }
    guard digits.count == 32,
      digits.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) })
    else { return nil }
    self.hex = String(decoding: digits, as: UTF8.self)
  }

  /// The 16 raw bytes.
  public var bytes: [UInt8] { withBytes { Array($0) } }

  /// Lends the 16 raw bytes without allocating (`list` needs them once per session).
  public func withBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R
  {
    var raw: (UInt64, UInt64) = (0, 0)
    var hex = self.hex
    hex.withUTF8 { digits in
      withUnsafeMutableBytes(of: &raw) { out in
        for index in 0..<16 {
          out[index] = Self.value(digits[2 * index]) << 4 | Self.value(digits[2 * index + 1])
        }
      }
    }
    return try withUnsafeBytes(of: raw) { raw throws(E) in try body(raw) }
  }

  /// An id read from storage: exactly 32 lowercase hex digits as UTF-8, else nil.
  public init?(storedDigits digits: UnsafeRawBufferPointer) {
    guard digits.count == 32,
      digits.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) })
    else { return nil }
    self.hex = String(decoding: digits, as: UTF8.self)
  }

  /// The value of one valid hex digit (lowercase).
  private static func value(_ digit: UInt8) -> UInt8 {
    digit <= 0x39 ? digit &- 0x30 : digit &- 0x61 &+ 10
  }

  /// The first 8 hex digits: what lists and messages show.
  public var short: String { String(decoding: hex.utf8.prefix(8), as: UTF8.self) }

  /// The canonical UUID form, 8-4-4-4-12.
  public var uuidString: String {
    let h = Array(hex)
    return [h[0..<8], h[8..<12], h[12..<16], h[16..<20], h[20..<32]]
      .map { String($0) }.joined(separator: "-")
  }

  public var description: String { short }

  public static func < (lhs: SessionID, rhs: SessionID) -> Bool { lhs.hex < rhs.hex }

  /// Normalises what a person typed as an id prefix: lowercase hex, dashes ignored.
  /// Returns nil when it is empty or holds anything but hex digits and dashes.
  public static func normalisedPrefix(_ text: String) -> String? {
    let digits = text.lowercased().filter { $0 != "-" }
    guard !digits.isEmpty, digits.count <= 32, digits.allSatisfy(\.isHexDigit) else { return nil }
    return digits
  }
}

extension String {
  func leftPadded(to width: Int, with pad: Character = "0") -> String {
    count >= width ? self : String(repeating: pad, count: width - count) + self
  }
}
