import ArgumentParser
import Foundation
import JournalApp
import JournalCore

/// What a shell offers at Tab, beyond the commands and options ArgumentParser knows.
enum Completions {
  /// Session ids, asked of the binary at each Tab: only while `journal unlock` holds the key,
  /// never by asking for a passphrase, never any text (SessionCompletion).
  static let sessionIDs = CompletionKind.custom { words, _, _ in
    SessionCompletion.ids(vault: vault(in: words))
  }

  /// The known treatments and the start of a custom one; written into the script, so no
  /// vault is opened for them (and no custom name of the person's is ever offered).
  static let treatments = CompletionKind.list(Treatment.known.map(\.key) + ["other:"])

  /// The treatments a filter takes: the known ones, and every custom one as "other".
  static let treatmentFilters = CompletionKind.list(Treatment.known.map(\.key) + ["other"])

  /// The vault named on the line being completed (`--vault PATH` or `--vault=PATH`), as the
  /// shell would pass it: one pair of quotes around it removed, a leading "~/" made HOME.
  /// Words arrive as typed, quotes and all.
  static func vault(in words: [String]) -> String? {
    var found: String?
    for (index, word) in words.enumerated() {
      if word == "--vault", index + 1 < words.count {
        found = words[index + 1]
      } else if word.hasPrefix("--vault=") {
        found = String(word.dropFirst("--vault=".count))
      }
    }
    guard var path = found, !path.isEmpty else { return nil }
    if path.count >= 2, let first = path.first, first == "'" || first == "\"", path.last == first {
      path = String(path.dropFirst().dropLast())
    }
    if path.hasPrefix("~/"), let home = ProcessInfo.processInfo.environment["HOME"] {
      path = home + path.dropFirst()
    }
    return path.isEmpty ? nil : path
  }
}
