/// Bytes written as lowercase hex digits, two a byte, and read back.
///
/// One definition for every file name, socket name and id that is made of bytes:
/// `String(format: "%02x")` cost ~35,000 instructions a byte (Foundation's formatting and the
/// runtime's casts of its arguments), and every command that opens a vault formats about a
/// hundred: 2.2 M instructions of `show`'s 41.6 M (Docs/PERFORMANCE.md).
public enum Hex {
  /// Inlinable, so each caller's collection type is known where it is compiled: a generic
  /// call across modules made the runtime look up `[UInt8]: Collection` (~0.3 M instructions).
  @inlinable
  public static func lowercase(_ bytes: some Collection<UInt8>) -> String {
    String(unsafeUninitializedCapacity: bytes.count * 2) { out in
      var index = 0
      for byte in bytes {
        out[index] = digits[Int(byte >> 4)]
        out[index + 1] = digits[Int(byte & 0x0F)]
        index += 2
      }
      return index
    }
  }

  /// The bytes `text` writes in hex digits (either case); nil unless it is an even count of
  /// them and nothing else.
  public static func bytes(_ text: String) -> [UInt8]? {
    let utf8 = Array(text.utf8)
    guard utf8.count % 2 == 0 else { return nil }
    var out: [UInt8] = []
    out.reserveCapacity(utf8.count / 2)
    for index in stride(from: 0, to: utf8.count, by: 2) {
      guard let high = value(of: utf8[index]), let low = value(of: utf8[index + 1]) else {
        return nil
      }
      out.append(high << 4 | low)
    }
    return out
  }

  private static func value(of digit: UInt8) -> UInt8? {
    switch digit {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
    default: nil
    }
  }

  @usableFromInline static let digits = Array("0123456789abcdef".utf8)
}
