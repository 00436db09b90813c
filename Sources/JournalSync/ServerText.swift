import JournalCore

/// Words that came from the server, or from libpq about it, held as data: a hostile server
/// chooses them, escape sequences and all. They reach a person only through `quoted`, after a
/// label of journal's own, inside one line: never as a line of their own, never able to move
/// the cursor, set a window title or pass for a `journal:` line.
public struct ServerText: Sendable, Equatable, CustomStringConvertible {
  /// As received (libpq's error text is its first line; a notice is never kept).
  public let raw: String

  public init(_ raw: String) { self.raw = raw }

  /// Quoted as data (`Quoted.data`): escaped, and cut at 200 characters.
  public var quoted: String { Quoted.data(raw) }

  public var description: String { quoted }
}
