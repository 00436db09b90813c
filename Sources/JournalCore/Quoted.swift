/// Text that came from somewhere journal does not trust (a value read from the vault file in
/// the clear, a server's words), quoted as data for a message: in double quotes, with every
/// character a terminal could act on written out as an escape, so that it can never set a
/// window title, move the cursor, clear the screen or start a line of its own.
public enum Quoted {
  /// The longest text shown; more is cut, with "…" after the closing quote.
  public static let limit = 200

  /// `text` in double quotes: `"` and `\` escaped, control characters (C0, DEL, C1), line
  /// and paragraph separators and the bidirectional overrides as `\u{…}`.
  public static func data(_ text: String) -> String {
    var out = "\""
    var count = 0
    for scalar in text.unicodeScalars {
      if count == limit { return out + "\"…" }
      count += 1
      switch scalar {
      case "\"": out += "\\\""
      case "\\": out += "\\\\"
      case _ where isActive(scalar):
        out += "\\u{" + String(scalar.value, radix: 16) + "}"
      default: out.unicodeScalars.append(scalar)
      }
    }
    return out + "\""
  }

  /// Whether a terminal or a bidirectional text layout acts on `scalar` rather than shows it.
  static func isActive(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069: true
    default: false
    }
  }
}
