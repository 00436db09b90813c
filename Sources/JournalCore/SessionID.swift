/// A session's identity: 16 random bytes (a version-4 UUID), stable for the session's whole life
/// so that a later sync can match records across devices.
///
/// Written as 32 lowercase hex digits; shown to people as the first 8.
public struct SessionID: Hashable, Sendable, Comparable, CustomStringConvertible {
  /// The 32 lowercase hex digits.
  public let hex: String

  /// Makes an id from 16 random bytes, setting the UUID version (4) and variant bits.
  public init(randomBytes bytes: [UInt8]) {
    precondition(bytes.count == 16, "a session id is 16 bytes")
    var b = bytes
    b[6] = (b[6] & 0x0F) | 0x40
    b[8] = (b[8] & 0x3F) | 0x80
    self.hex = b.map { String($0, radix: 16).leftPadded(to: 2) }.joined()
  }

  /// Parses 32 hex digits, with or without the dashes of the UUID form, in either case.
  public init?(_ text: String) {
    let digits = text.lowercased().filter { $0 != "-" }
    guard digits.count == 32, digits.allSatisfy(\.isHexDigit) else { return nil }
    self.hex = digits
  }

  /// The 16 raw bytes.
  public var bytes: [UInt8] {
    var out: [UInt8] = []
    out.reserveCapacity(16)
    var index = hex.startIndex
    while index < hex.endIndex {
      let next = hex.index(index, offsetBy: 2)
      out.append(UInt8(hex[index..<next], radix: 16) ?? 0)
      index = next
    }
    return out
  }

  /// The first 8 hex digits: what lists and messages show.
  public var short: String { String(hex.prefix(8)) }

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
