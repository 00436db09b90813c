/// Words that came from the server, or from libpq about it, held as data: a hostile server
/// chooses them, escape sequences and all. They reach a person only through `quoted`, after a
/// label of journal's own, inside one line: never as a line of their own, never able to move
/// the cursor, set a window title or pass for a `journal:` line.
public struct ServerText: Sendable, Equatable, CustomStringConvertible {
  /// As received (libpq's error text is its first line; a notice is never kept).
  public let raw: String

  public init(_ raw: String) { self.raw = raw }

  /// At most this many characters are shown: enough for any message PostgreSQL writes.
  static let shownLimit = 200

  /// In double quotes, with `\` and `"` escaped, every control, format and line-separating
  /// character as `\n`, `\t` or `\u{…}`, and cut at `shownLimit` characters (then `…` after
  /// the closing quote).
  public var quoted: String {
    var out = "\""
    var count = 0
    for scalar in raw.unicodeScalars {
      if count == Self.shownLimit { return out + "\"…" }
      count += 1
      switch scalar {
      case "\\": out += "\\\\"
      case "\"": out += "\\\""
      case "\n": out += "\\n"
      case "\t": out += "\\t"
      case "\r": out += "\\r"
      default:
        switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator, .surrogate,
          .privateUse, .unassigned:
          out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
        default: out.unicodeScalars.append(scalar)
        }
      }
    }
    return out + "\""
  }

  public var description: String { quoted }
}
