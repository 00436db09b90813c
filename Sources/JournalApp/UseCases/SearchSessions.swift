import Foundation
import JournalCore
import JournalDiagnostics
import JournalSystem

/// `journal search`: the sessions whose texts hold every word, newest first, found by
/// opening every session the filter takes as the vault's rows come, and then only the matches
/// again in date order: nothing is indexed, nothing written, and memory holds 24 bytes a
/// match.
public enum SearchSessions {
  /// The words were given as arguments, read from standard input ("-"), or asked for.
  public static func words(_ arguments: [String], _ runtime: Runtime) throws -> TextSearch {
    var words = arguments
    if arguments == ["-"] {
      // Bounded, as every read of standard input is: `yes | journal search -` ends.
      let limit = 64 * 1024
      guard let bytes = try? Descriptor.standardInput.readAll(limit: limit) else {
        throw AppError.stdinUnreadable
      }
      guard bytes.count <= limit else { throw AppError.searchWordsTooLong(maximumBytes: limit) }
      guard let line = String(validating: bytes, as: UTF8.self) else {
        throw AppError.stdinUnreadable
      }
      words = TextSearch.words(fromLine: line)
    } else if arguments.isEmpty {
      guard let terminal = runtime.terminal else { throw AppError.noSearchWords }
      words = TextSearch.words(
        fromLine: try terminal.readLine(prompt: "Search for (words, or \"a phrase\"): "))
    }
    guard let search = TextSearch(words) else { throw AppError.noSearchWords }
    return search
  }

  /// Hands what `make` makes of each match (the session and its hits) to `found`, newest
  /// first, at most the filter's `limit` of them; how many matched, and the ids of sessions
  /// that could not be read (skipped, and named by the caller). Opening, searching and
  /// `make` run on every core; `found` on this thread, in order.
  public static func search<Made: Sendable>(
    _ search: TextSearch, in fields: [Field], filter: SessionFilter, _ runtime: Runtime,
    make: @escaping @Sendable (Session, [TextSearch.Hit]) -> Made,
    found: (Made) throws -> Void
  ) throws -> (matched: Int, damaged: [SessionID]) {
    let journal = try runtime.openVault()
    var matched = 0
    var unfiltered = filter
    unfiltered.limit = nil
    var damaged: [SessionID] = []
    do {
      damaged = try journal.search(
        unfiltered, order: .newestFirst, matches: { search.matches($0, in: fields) }
      ) { session -> Made? in
        search.hits(in: session, fields: fields).map { make(session, $0) }
      } _: { (made: Made) in
        try found(made)
        matched += 1
        if let limit = filter.limit, matched >= limit { throw Enough() }
      }
    } catch is Enough {}
    return (matched, damaged)
  }
}

/// Ends a search once it has found as many as asked for.
private struct Enough: Error {}
