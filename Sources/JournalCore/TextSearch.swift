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

  /// Each word folded, as UTF-8.
  private let terms: [[UInt8]]

  /// The search for `words`; nil when none has any letter left once folded (only spaces).
  public init?(_ words: [String]) {
    let folded = words.map { Self.fold($0).bytes }.map(Self.trimmed).filter { !$0.isEmpty }
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
        guard let at = Self.find(term, in: folded.bytes) else { continue }
        found[index] = true
        let start = folded.origin[at].start
        let end = folded.origin[at + term.count - 1].end
        hits.append(Hit(field: field, offset: Int(start), length: Int(end - start)))
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
    // By UTF-8 bytes (a search may show a context for every session): the hit's scalar
    // offsets turned into byte offsets, the line found around them.
    let utf8 = Array(text.utf8)
    var scalar = 0
    var start = utf8.count
    var end = utf8.count
    for (index, byte) in utf8.enumerated() where byte & 0xC0 != 0x80 {
      if scalar == hit.offset { start = index }
      if scalar == hit.offset + hit.length {
        end = index
        break
      }
      scalar += 1
    }
    start = min(start, end)
    var lineStart = start
    while lineStart > 0, utf8[lineStart - 1] != 0x0A { lineStart -= 1 }
    var lineEnd = end
    while lineEnd < utf8.count, utf8[lineEnd] != 0x0A { lineEnd += 1 }
    let room = max(width - (end - start), 10)
    // At most a few times the room on each side, cut at a character's start.
    var from = max(lineStart, start - 4 * room)
    while from > lineStart, utf8[from] & 0xC0 == 0x80 { from -= 1 }
    var to = min(lineEnd, end + 4 * room)
    while to < lineEnd, utf8[to] & 0xC0 == 0x80 { to += 1 }
    var before = String(decoding: utf8[from..<start], as: UTF8.self)
    let matched = String(decoding: utf8[start..<end], as: UTF8.self)
    var after = String(decoding: utf8[end..<to], as: UTF8.self)
    if from > lineStart || before.count > room / 2 { before = "…" + before.suffix(room / 2 - 1) }
    if to < lineEnd || after.count > room - before.count {
      after = after.prefix(max(room - before.count - 1, 0)) + "…"
    }
    return (before, matched, after)
  }

  // MARK: - Folding

  /// Where a folded byte came from: the original character's scalars.
  struct Origin {
    let start: Int32
    let end: Int32
  }

  /// `text` folded for searching, as UTF-8, each byte with the original character it came
  /// from. ASCII is folded by itself, byte by byte (most text, and most of the time of a
  /// search of every session); a run of other characters (with the ASCII character before
  /// it, which a combining mark may belong to) character by character: canonically composed,
  /// then through Foundation's case and diacritic folding.
  static func fold(_ text: String) -> (bytes: [UInt8], origin: [Origin]) {
    var text = text
    return text.withUTF8 { utf8 in
      // ASCII runs are written straight into buffers of the text's size (no closure, no
      // growing array: each cost more than the folding); other runs go through `append`.
      var bytes = [UInt8](repeating: 0, count: utf8.count)
      var origin = [Origin](repeating: Origin(start: 0, end: 0), count: utf8.count)
      var count = 0
      var index = 0
      var offset: Int32 = 0
      var lastWasSpace = false
      while index < utf8.count {
        let byte = utf8[index]
        if byte < 0x80, index + 1 == utf8.count || utf8[index + 1] < 0x80 {
          let isSpace = byte == 0x20 || (0x09...0x0D).contains(byte)
          if !(isSpace && lastWasSpace) {
            if count == bytes.count {
              bytes.append(0)
              origin.append(Origin(start: 0, end: 0))
            }
            bytes[count] = isSpace ? 0x20 : (byte >= 0x41 && byte <= 0x5A ? byte + 0x20 : byte)
            origin[count] = Origin(start: offset, end: offset + 1)
            count += 1
          }
          lastWasSpace = isSpace
          index += 1
          offset += 1
          continue
        }
        // A run of other characters, with the ASCII one before any of them.
        var end = index + 1
        while end < utf8.count,
          utf8[end] >= 0x80 || (end + 1 < utf8.count && utf8[end + 1] >= 0x80)
        {
          end += 1
        }
        let run = String(decoding: UnsafeBufferPointer(rebasing: utf8[index..<end]), as: UTF8.self)
        for character in run {
          let scalars = Int32(character.unicodeScalars.count)
          let here = Origin(start: offset, end: offset + scalars)
          offset += scalars
          let folded: String
          if character.isWhitespace {
            if lastWasSpace { continue }
            folded = " "
            lastWasSpace = true
          } else {
            folded = String(character).precomposedStringWithCanonicalMapping.folding(
              options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
            lastWasSpace = false
          }
          for byte in folded.utf8 {
            if count == bytes.count {
              bytes.append(0)
              origin.append(Origin(start: 0, end: 0))
            }
            bytes[count] = byte
            origin[count] = here
            count += 1
          }
        }
        index = end
      }
      bytes.removeLast(bytes.count - count)
      origin.removeLast(origin.count - count)
      return (bytes, origin)
    }
  }

  private static func trimmed(_ bytes: [UInt8]) -> [UInt8] {
    var slice = bytes[...]
    while slice.first == 0x20 { slice = slice.dropFirst() }
    while slice.last == 0x20 { slice = slice.dropLast() }
    return Array(slice)
  }

  /// The index of the first occurrence of `term` in `text`.
  private static func find(_ term: [UInt8], in text: [UInt8]) -> Int? {
    guard !term.isEmpty, term.count <= text.count else { return nil }
    return text.withUnsafeBufferPointer { text in
      term.withUnsafeBufferPointer { term in
        let first = term[0]
        let last = text.count - term.count
        var index = 0
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
  }
}
