import Foundation
import JournalCore

/// `journal search`: the sessions whose texts hold every word, newest first, found by
/// opening each session the filter takes as it is read (the streamed read `export` uses):
/// nothing is indexed, nothing written, and memory does not grow with the journal.
public enum SearchSessions {
  /// The words were given as arguments, read from standard input ("-"), or asked for.
  public static func words(_ arguments: [String], _ runtime: Runtime) throws -> TextSearch {
    var words = arguments
    if arguments == ["-"] {
      let data = FileHandle.standardInput.readDataToEndOfFile()
      words = TextSearch.words(fromLine: String(decoding: data, as: UTF8.self))
    } else if arguments.isEmpty {
      guard let terminal = runtime.terminal else { throw AppError.noSearchWords }
      words = TextSearch.words(
        fromLine: try terminal.readLine(prompt: "Search for (words, or \"a phrase\"): "))
    }
    guard let search = TextSearch(words) else { throw AppError.noSearchWords }
    return search
  }

  /// Hands each match to `found` (the session and its hits), newest first, at most the
  /// filter's `limit` of them; how many matched, and the ids of sessions that could not be
  /// read (skipped, and named by the caller).
  public static func search(
    _ search: TextSearch, in fields: [Field], filter: SessionFilter, _ runtime: Runtime,
    found: (Session, [TextSearch.Hit]) throws -> Void
  ) throws -> (matched: Int, damaged: [SessionID]) {
    struct Enough: Error {}
    let journal = try runtime.openVault()
    var matched = 0
    var unfiltered = filter
    unfiltered.limit = nil
    var damaged: [SessionID] = []
    do {
      // Each session opened and searched on every core; the matches come back in order.
      damaged = try journal.read(unfiltered, order: .newestFirst) { session in
        search.hits(in: session, fields: fields).map { (session, $0) }
      } _: { session, hits in
        try found(session, hits)
        matched += 1
        if let limit = filter.limit, matched >= limit { throw Enough() }
      }
    } catch is Enough {}
    return (matched, damaged)
  }
}
