import Foundation
import Testing

/// The voice of every message, prompt, help text and error: reflective and neutral. Words
/// that blame, alarm, judge or sound clinical never appear in a string literal of the code
/// that talks to people (the app, the command line, the core's messages, the terminal's
/// prompts and views, the agent's and the drafts' words).
struct ToneTests {
  /// Words (and word starts, where marked with *) we never use in user-facing text.
  static let forbidden = [
    "fail*", "invalid", "illegal", "fatal", "abort*", "oops", "wrong", "bad", "stupid",
    "must", "forbidden", "denied", "crash*", "panic", "alarm*", "warning", "danger*", "violat*",
    "unfortunately", "sorry", "patient", "symptom*", "disorder*", "addict*", "abuse*",
    "overdose*", "junkie", "streak*", "score*", "achievement*", "badge", "badges", "level up",
    "reward*",
    "should have", "you forgot", "careless", "simply", "obviously", "!",
  ]

  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("../..").standardized

  /// The targets whose strings people read. JournalSync's literals are SQL and libpq's
  /// keywords; its words for people are in JournalApp's Diagnosis.
  static let directories = [
    "Sources/journal", "Sources/JournalApp", "Sources/JournalCore", "Sources/JournalTerminal",
    "Sources/JournalAgent", "Sources/JournalDrafts", "Sources/JournalDiagnostics",
  ]

  /// Every string literal in the sources people read from, with its file and line.
  static func literals() throws -> [(place: String, text: String)] {
    var found: [(String, String)] = []
    for directory in directories {
      let url = root.appendingPathComponent(directory)
      // Every file under the target's folder, its subfolders too (JournalApp's concerns).
      for name in try FileManager.default.subpathsOfDirectory(atPath: url.path).sorted()
      where name.hasSuffix(".swift") {
        let source = try String(contentsOf: url.appendingPathComponent(name), encoding: .utf8)
        for (line, text) in StringLiterals.scan(source) {
          found.append(("\(directory)/\(name):\(line)", text))
        }
      }
    }
    return found
  }

  /// The words a text breaks, matched whole (or as a word start for "word*").
  static func breaches(_ text: String) -> [String] {
    let lower = text.lowercased()
    return forbidden.filter { word in
      if word == "!" {
        // An exclamation mark in prose; "!=" and the like are code inside interpolations.
        return lower.contains("! ") || lower.hasSuffix("!")
      }
      let stem = word.hasSuffix("*") ? String(word.dropLast()) : word
      var search = lower.startIndex..<lower.endIndex
      while let range = lower.range(of: stem, range: search) {
        let before =
          range.lowerBound == lower.startIndex ? nil : lower[lower.index(before: range.lowerBound)]
        let after = range.upperBound == lower.endIndex ? nil : lower[range.upperBound]
        let startsWord = before.map { !$0.isLetter } ?? true
        let endsWord = word.hasSuffix("*") || (after.map { !$0.isLetter } ?? true)
        if startsWord && endsWord { return true }
        search = range.upperBound..<lower.endIndex
      }
      return false
    }
  }

  @Test func noUserFacingTextUsesAForbiddenWord() throws {
    let literals = try Self.literals()
    #expect(literals.count > 300, "the scan found too few strings to be reading the sources")
    // Each target is read, its subfolders included (a flat read of JournalApp found nothing
    // once its files moved into folders by concern).
    for directory in Self.directories {
      let read = literals.filter { $0.place.hasPrefix(directory + "/") }
      #expect(read.count >= 5, "\(directory): \(read.count) strings read")
    }
    #expect(literals.contains { $0.place.hasPrefix("Sources/JournalApp/UseCases/") })
    let offending = literals.compactMap { literal -> String? in
      let words = Self.breaches(literal.text)
      return words.isEmpty ? nil : "\(literal.place): \(words) in \(literal.text.debugDescription)"
    }
    #expect(offending.isEmpty, "\(offending.joined(separator: "\n"))")
  }

  /// The checker itself: it catches what it should and lets ordinary words through.
  @Test func theCheckerCatchesWordsNotParts() {
    #expect(Self.breaches("The save failed") == ["fail*"])
    #expect(Self.breaches("Invalid input!") == ["invalid", "!"])
    #expect(Self.breaches("a badger in the garden").isEmpty)
    #expect(Self.breaches("scored").isEmpty == false)
    #expect(Self.breaches("nothing to change").isEmpty)
  }

  /// The scanner reads plain, raw and multi-line literals, skips comments, and finds the
  /// literals inside interpolations too.
  @Test func theScannerFindsEveryKindOfLiteral() {
    let source = #"""
      // "in a comment"
      let a = "plain \(b ? "inner" : "other") end" /* "block" */
      let c = #"raw "quoted" text"#
      let d = """
        multi
        line
        """
      """#
    let texts = StringLiterals.scan(source).map(\.text)
    #expect(texts == ["inner", "other", "plain ", " end", #"raw "quoted" text"#, "multi\nline\n"])
  }
}

/// A small Swift lexer for string literals: enough for our own sources.
enum StringLiterals {
  static func scan(_ source: String) -> [(line: Int, text: String)] {
    var result: [(Int, String)] = []
    let chars = Array(source)
    var i = 0
    var line = 1
    func at(_ offset: Int) -> Character? { i + offset < chars.count ? chars[i + offset] : nil }

    // Reads a literal starting at `i` (at its first quote, after any #s); returns when it
    // closes. Interpolations are scanned recursively for nested literals.
    func literal(hashes: Int) {
      let multi = at(0) == "\"" && at(1) == "\"" && at(2) == "\""
      i += multi ? 3 : 1
      let closer =
        String(repeating: "\"", count: multi ? 3 : 1) + String(repeating: "#", count: hashes)
      let startLine = line
      var text = ""
      var pieces: [(Int, String)] = []
      while i < chars.count {
        if String(chars[i..<min(chars.count, i + closer.count)]) == closer {
          i += closer.count
          break
        }
        let escape = "\\" + String(repeating: "#", count: hashes)
        if String(chars[i..<min(chars.count, i + escape.count)]) == escape {
          let next = i + escape.count
          if next < chars.count && chars[next] == "(" {
            if !text.isEmpty { pieces.append((startLine, text)) }
            text = ""
            i = next + 1
            var depth = 1
            while i < chars.count && depth > 0 {
              if chars[i] == "\"" {
                literal(hashes: 0)
                continue
              }
              if chars[i] == "(" { depth += 1 }
              if chars[i] == ")" { depth -= 1 }
              if chars[i] == "\n" { line += 1 }
              i += 1
            }
            continue
          }
          if next < chars.count {
            text.append(chars[next] == "n" ? "\n" : chars[next] == "t" ? "\t" : chars[next])
          }
          i = next + 1
          continue
        }
        if chars[i] == "\n" { line += 1 }
        text.append(chars[i])
        i += 1
      }
      if !text.isEmpty || pieces.isEmpty { pieces.append((startLine, text)) }
      if multi {
        pieces = pieces.map { piece in
          // Drop the indentation of multi-line literals and the first newline.
          let lines = piece.1.split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.drop(while: { $0 == " " }) }
          return (piece.0, lines.joined(separator: "\n").drop(while: { $0 == "\n" }).description)
        }
      }
      result.append(contentsOf: pieces)
    }

    while i < chars.count {
      let c = chars[i]
      if c == "\n" {
        line += 1
        i += 1
      } else if c == "/" && at(1) == "/" {
        while i < chars.count && chars[i] != "\n" { i += 1 }
      } else if c == "/" && at(1) == "*" {
        i += 2
        while i < chars.count && !(chars[i] == "*" && at(1) == "/") {
          if chars[i] == "\n" { line += 1 }
          i += 1
        }
        i += 2
      } else if c == "#" && (at(1) == "\"" || at(1) == "#") {
        var hashes = 0
        while at(0) == "#" {
          hashes += 1
          i += 1
        }
        if at(0) == "\"" { literal(hashes: hashes) }
      } else if c == "\"" {
        literal(hashes: 0)
      } else {
        i += 1
      }
    }
    return result
  }
}
