/// Text that came from somewhere journal does not trust (a value read from the vault file in
/// the clear, a server's words, SQLite's about a file made by hand), quoted as data for a
/// message: in double quotes, with every character a terminal or a text layout could act on
/// written out as an escape, so that it can never set a window title, move the cursor, clear
/// the screen, start a line of its own or turn the text around.
public enum Quoted {
  /// The longest text shown; more is cut, with "…" after the closing quote.
  public static let limit = 200

  /// `text` in double quotes: `"` and `\` escaped, line feed, tab and carriage return as
  /// `\n`, `\t` and `\r`, and every other control, format (the direction marks and
  /// overrides), line- or paragraph-separating, private-use, unassigned or surrogate
  /// character as `\u{…}` (upper-case hexadecimal).
  public static func data(_ text: String) -> String {
    var out = "\""
    var count = 0
    for scalar in text.unicodeScalars {
      if count == limit { return out + "\"…" }
      count += 1
      switch scalar {
      case "\"": out += "\\\""
      case "\\": out += "\\\\"
      case "\n": out += "\\n"
      case "\t": out += "\\t"
      case "\r": out += "\\r"
      case _ where isActive(scalar):
        out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
      default: out.unicodeScalars.append(scalar)
      }
    }
    return out + "\""
  }

  /// Whether a terminal or a text layout may act on `scalar` rather than show it, or show
  /// it as something it is not.
  static func isActive(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.properties.generalCategory {
    case .control, .format, .lineSeparator, .paragraphSeparator, .surrogate, .privateUse,
      .unassigned:
      true
    default: false
    }
  }
}
