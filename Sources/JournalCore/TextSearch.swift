import Foundation

/// Finding words in sessions, as `journal search` does: every word (or "phrase") must occur
/// somewhere in the fields searched; case and accents do not matter (Unicode case folding
/// and the removal of diacritics, after canonical equivalence: "Café", "cafe", "CAFÉ" and
/// "cafe\u{301}" are one word to it), while letters that are different letters stay so
/// (Turkish dotless "ı" is not "i"). Runs of white space, line breaks among them, count as one
/// space, so a phrase is found across a line break.
///
/// Pure: no index is kept anywhere; every text is folded as it is searched.
public struct TextSearch: Sendable {
  /// Where a word was found: the field, and the offset and length of the matching text in
  /// the field as stored, in Unicode scalars (Python's str indices).
  public struct Hit: Equatable, Sendable {
    public let field: Field
    public let offset: Int
    public let length: Int

    public init(field: Field, offset: Int, length: Int) {
      self.field = field
      self.offset = offset
      self.length = length
    }
  }

  /// The fields searched, in the order hits are reported.
  public static let fields: [Field] = [
    .intention, .reflection, .environment, .music, .dose, .treatment,
  ]

  private let terms: [[Unicode.Scalar]]

  /// The search for `words`; nil when none has any letter left once folded (only spaces).
  public init?(_ words: [String]) {
    let folded = words.map { Self.fold($0).scalars }.map(Self.trimmed).filter { !$0.isEmpty }
    guard !folded.isEmpty else { return nil }
    terms = folded
  }

  /// Splits a line typed or read from standard input into words, keeping each "quoted
  /// phrase" whole.
  public static func words(fromLine line: String) -> [String] {
    var words: [String] = []
    var current = ""
    var quoted = false
    for character in line {
      if character == "\"" {
        if quoted || !current.isEmpty { words.append(current) }
        current = ""
        quoted.toggle()
      } else if !quoted, character.isWhitespace {
        if !current.isEmpty { words.append(current) }
        current = ""
      } else {
        current.append(character)
      }
    }
    if !current.isEmpty { words.append(current) }
    return words.filter { !$0.allSatisfy(\.isWhitespace) }
  }

  /// The first hit of each word in each field searched, when every word is found somewhere;
  /// nil otherwise.
  public func hits(in session: Session, fields: [Field] = TextSearch.fields) -> [Hit]? {
    var hits: [Hit] = []
    var found = [Bool](repeating: false, count: terms.count)
    for field in fields {
      guard let text = Self.text(of: field, in: session) else { continue }
      let folded = Self.fold(text)
      for (index, term) in terms.enumerated() {
        guard let at = Self.find(term, in: folded.scalars) else { continue }
        found[index] = true
        let start = folded.origin[at].start
        let end = folded.origin[at + term.count - 1].end
        hits.append(Hit(field: field, offset: start, length: end - start))
      }
    }
    guard found.allSatisfy({ $0 }) else { return nil }
    func rank(_ field: Field) -> Int { Self.fields.firstIndex(of: field) ?? Self.fields.count }
    return hits.sorted {
      $0.field == $1.field ? $0.offset < $1.offset : rank($0.field) < rank($1.field)
    }
  }

  /// The text a field holds, as searched: the treatment only by a custom name.
  public static func text(of field: Field, in session: Session) -> String? {
    switch field {
    case .intention: session.intention
    case .reflection: session.reflection
    case .environment: session.environment
    case .music: session.music
    case .dose: session.dose
    case .treatment: session.treatment.customName
    case .date, .moodBefore, .moodAfter: nil
    }
  }

  /// The line of `text` around a hit, at most `width` characters: what comes before the hit
  /// on its line, the hit, what comes after it, each shortened with "…" when too long.
  public static func context(of hit: Hit, in text: String, width: Int = 72) -> (
    before: String, hit: String, after: String
  ) {
    let scalars = Array(text.unicodeScalars)
    let start = min(hit.offset, scalars.count)
    let end = min(hit.offset + hit.length, scalars.count)
    var lineStart = start
    while lineStart > 0, scalars[lineStart - 1] != "\n" { lineStart -= 1 }
    var lineEnd = end
    while lineEnd < scalars.count, scalars[lineEnd] != "\n" { lineEnd += 1 }
    func string(_ range: Range<Int>) -> String {
      var out = String.UnicodeScalarView()
      out.append(contentsOf: scalars[range])
      return String(out)
    }
    var before = string(lineStart..<start)
    let matched = string(start..<end)
    var after = string(end..<lineEnd)
    let room = max(width - matched.count, 10)
    if before.count > room / 2 { before = "…" + before.suffix(room / 2 - 1) }
    if after.count > room - before.count {
      after = after.prefix(max(room - before.count - 1, 0)) + "…"
    }
    return (before, matched, after)
  }

  // MARK: - Folding

  /// Where a folded scalar came from: the original character's scalars.
  struct Origin {
    let start: Int
    let end: Int
  }

  /// `text` folded for searching, each folded scalar with the original character it came
  /// from. ASCII is folded by itself (most text); any other character through Foundation's
  /// case and diacritic folding.
  static func fold(_ text: String) -> (scalars: [Unicode.Scalar], origin: [Origin]) {
    var scalars: [Unicode.Scalar] = []
    var origin: [Origin] = []
    scalars.reserveCapacity(text.utf8.count)
    origin.reserveCapacity(text.utf8.count)
    var offset = 0
    var lastWasSpace = false
    for character in text {
      let count = character.unicodeScalars.count
      let here = Origin(start: offset, end: offset + count)
      offset += count
      if character.isWhitespace {
        // A run of spaces and line breaks is one space.
        if !lastWasSpace {
          scalars.append(" ")
          origin.append(here)
        }
        lastWasSpace = true
        continue
      }
      lastWasSpace = false
      if let ascii = character.asciiValue {
        let lower = ascii >= 0x41 && ascii <= 0x5A ? ascii + 0x20 : ascii
        scalars.append(Unicode.Scalar(lower))
        origin.append(here)
        continue
      }
      let folded = String(character).folding(
        options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
      for scalar in folded.unicodeScalars {
        scalars.append(scalar)
        origin.append(here)
      }
    }
    return (scalars, origin)
  }

  private static func trimmed(_ scalars: [Unicode.Scalar]) -> [Unicode.Scalar] {
    var slice = scalars[...]
    while slice.first == " " { slice = slice.dropFirst() }
    while slice.last == " " { slice = slice.dropLast() }
    return Array(slice)
  }

  /// The index of the first occurrence of `term` in `text`.
  private static func find(_ term: [Unicode.Scalar], in text: [Unicode.Scalar]) -> Int? {
    guard !term.isEmpty, term.count <= text.count, let first = term.first else { return nil }
    var index = 0
    let last = text.count - term.count
    while index <= last {
      if text[index] == first {
        var matched = 1
        while matched < term.count, text[index + matched] == term[matched] { matched += 1 }
        if matched == term.count { return index }
      }
      index += 1
    }
    return nil
  }
}
