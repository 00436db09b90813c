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
    .intention, .reflection, .notes, .environment, .music, .dose, .treatment,
  ]

  /// Each word folded, as UTF-8.
  private let terms: [[UInt8]]

  /// The search for `words`; nil when none has any letter left once folded (only spaces).
  public init?(_ words: [String]) {
    let folded = words.map(Self.folded).map(Self.trimmed).filter { !$0.isEmpty }
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
    let buffer = FoldedText()
    for field in fields {
      guard var text = Self.text(of: field, in: session) else { continue }
      text.withUTF8 { utf8 in
        // Folded without origins first: most fields hold none of the words.
        Self.fold(utf8, into: buffer, origins: false)
        var places: [(term: Int, at: Int)] = []
        for (index, term) in terms.enumerated() {
          if let at = Self.find(term, in: buffer.folded) { places.append((index, at)) }
        }
        guard !places.isEmpty else { return }
        // The same bytes again, with where each came from.
        Self.fold(utf8, into: buffer, origins: true)
        for (index, at) in places {
          found[index] = true
          let start = buffer.origins[at].start
          let end = buffer.origins[at + terms[index].count - 1].end
          hits.append(Hit(field: field, offset: Int(start), length: Int(end - start)))
        }
      }
    }
    guard found.allSatisfy({ $0 }) else { return nil }
    func rank(_ field: Field) -> Int { Self.fields.firstIndex(of: field) ?? Self.fields.count }
    return hits.sorted {
      $0.field == $1.field ? $0.offset < $1.offset : rank($0.field) < rank($1.field)
    }
  }

  /// Whether every word is found somewhere in `fields`: `hits(in:fields:) != nil`, without
  /// placing the hits (no origins made), and done once every word is found.
  public func matches(_ session: Session, in fields: [Field] = TextSearch.fields) -> Bool {
    var found = [Bool](repeating: false, count: terms.count)
    var left = terms.count
    let buffer = FoldedText()
    for field in fields {
      guard var text = Self.text(of: field, in: session) else { continue }
      text.withUTF8 { Self.fold($0, into: buffer, origins: false) }
      for index in terms.indices where !found[index] {
        guard Self.find(terms[index], in: buffer.folded) != nil else { continue }
        found[index] = true
        left -= 1
      }
      if left == 0 { return true }
    }
    return false
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
    // Every note shown, oldest first, a blank line between (what `show` lists).
    case .notes: session.text(of: .notes)
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

  /// `text` folded for searching, as UTF-8.
  static func folded(_ text: String) -> [UInt8] {
    var text = text
    let buffer = FoldedText(capacity: text.utf8.count)
    text.withUTF8 { fold($0, into: buffer, origins: false) }
    return Array(buffer.folded)
  }

  /// `utf8` folded for searching into `buffer`, each byte with the original character it came
  /// from when `origins` is asked for. ASCII is folded by itself, byte by byte (most text, and
  /// most of the time of a search of every session): letters to lower case, each run of white
  /// space to one space. A run of other characters (with the ASCII character before it, which
  /// a combining mark may belong to) is folded character by character: canonically composed,
  /// then through Foundation's case and diacritic folding.
  ///
  /// A search first folds a field without origins (the stretches of ASCII in a tight loop,
  /// nothing allocated), and again with them only when a word was found in it.
  static func fold(_ utf8: UnsafeBufferPointer<UInt8>, into buffer: FoldedText, origins: Bool) {
    buffer.reset(expected: utf8.count, origins: origins)
    guard let text = utf8.baseAddress else { return }
    let total = utf8.count
    var index = 0
    var offset: Int32 = 0
    var lastWasSpace = false
    while index < total {
      // The ASCII characters not followed by another kind: up to the one before the first
      // byte of another character.
      let other = firstNonASCII(text, from: index, count: total)
      let stop = other == total ? total : max(index, other - 1)
      if stop > index {
        buffer.reserve(stop - index)
        var count = buffer.count
        let bytes = buffer.bytes
        if origins {
          let origin = buffer.origins
          for at in index..<stop {
            let (byte, isSpace) = foldASCII(text[at])
            bytes[count] = byte
            origin[count] = FoldedText.Origin(
              start: offset + Int32(at - index), end: offset + Int32(at - index) + 1)
            count &+= isSpace && lastWasSpace ? 0 : 1
            lastWasSpace = isSpace
          }
        } else {
          // Eight bytes at a time, unless one is white space after white space (to be
          // dropped): then that byte alone.
          var at = index
          while at < stop {
            if at + 8 <= stop {
              let (word, spaces) = foldASCII(
                eight: UnsafeRawPointer(text + at).loadUnaligned(as: UInt64.self))
              if spaces & (spaces << 8 | (lastWasSpace ? 0x80 : 0)) == 0 {
                UnsafeMutableRawPointer(bytes + count).storeBytes(of: word, as: UInt64.self)
                count &+= 8
                lastWasSpace = spaces >> 63 != 0
                at &+= 8
                continue
              }
            }
            let (byte, isSpace) = foldASCII(text[at])
            bytes[count] = byte
            count &+= isSpace && lastWasSpace ? 0 : 1
            lastWasSpace = isSpace
            at &+= 1
          }
        }
        buffer.setCount(count)
        offset += Int32(stop - index)
        index = stop
      }
      guard index < total else { break }
      // A run of other characters, with the ASCII one before any of them.
      var end = index + 1
      while end < total, text[end] >= 0x80 || (end + 1 < total && text[end + 1] >= 0x80) {
        end += 1
      }
      let run = String(
        decoding: UnsafeBufferPointer(start: text + index, count: end - index), as: UTF8.self)
      for character in run {
        let scalars = Int32(character.unicodeScalars.count)
        let here = FoldedText.Origin(start: offset, end: offset + scalars)
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
        for byte in folded.utf8 { buffer.append(byte, from: here) }
      }
      index = end
    }
  }

  /// An ASCII byte folded: letters to lower case, white space (space, tab, line feed,
  /// vertical tab, form feed, carriage return) to a space, which it says.
  @inline(__always)
  private static func foldASCII(_ byte: UInt8) -> (byte: UInt8, isSpace: Bool) {
    let isSpace = byte == 0x20 || byte &- 0x09 < 5
    if isSpace { return (0x20, true) }
    return (byte &- 0x41 < 26 ? byte &+ 0x20 : byte, false)
  }

  /// Eight ASCII bytes folded as `foldASCII` folds each (lowest address in the lowest bits),
  /// and the high bit of each byte that was white space. Within a byte below 0x80, adding a
  /// constant below 0x80 never carries into the next, so each test is one addition.
  @inline(__always)
  private static func foldASCII(eight word: UInt64) -> (word: UInt64, spaces: UInt64) {
    let ones: UInt64 = 0x0101_0101_0101_0101
    let high: UInt64 = 0x8080_8080_8080_8080
    // 0x41...0x5A: at least 0x41 and below 0x5B.
    let upper = (word &+ ones &* 0x3F) & ~(word &+ ones &* 0x25) & high
    // 0x20, or 0x09...0x0D.
    let notSpace = word ^ (ones &* 0x20)
    let space = ~((notSpace &+ ones &* 0x7F) | notSpace) & high
    let control = (word &+ ones &* 0x77) & ~(word &+ ones &* 0x72) & high
    let spaces = space | control
    let spaceBytes = (spaces >> 7) &* 0xFF
    let folded = ((word | upper >> 2) & ~spaceBytes) | (spaceBytes & (ones &* 0x20))
    return (folded, spaces)
  }

  /// The index of the first byte from `index` that is not ASCII; `count` when there is none.
  @inline(__always)
  private static func firstNonASCII(
    _ text: UnsafePointer<UInt8>, from index: Int, count: Int
  ) -> Int {
    var at = index
    while at + 8 <= count {
      let word = UnsafeRawPointer(text + at).loadUnaligned(as: UInt64.self)
      if word & 0x8080_8080_8080_8080 != 0 { break }
      at += 8
    }
    while at < count, text[at] < 0x80 { at += 1 }
    return at
  }

  private static func trimmed(_ bytes: [UInt8]) -> [UInt8] {
    var slice = bytes[...]
    while slice.first == 0x20 { slice = slice.dropFirst() }
    while slice.last == 0x20 { slice = slice.dropLast() }
    return Array(slice)
  }

  /// The index of the first occurrence of `term` in `text`: each place of its first byte
  /// (found by `memchr`, many bytes at a time), then the rest compared.
  static func find(_ term: [UInt8], in text: UnsafeBufferPointer<UInt8>) -> Int? {
    guard !term.isEmpty, term.count <= text.count, let base = text.baseAddress else {
      return nil
    }
    return term.withUnsafeBufferPointer { term -> Int? in
      guard let termBase = term.baseAddress else { return nil }
      let first = Int32(term[0])
      let rest = term.count - 1
      let last = text.count - term.count
      var from = 0
      while from <= last {
        guard let found = memchr(base + from, first, last - from + 1) else { return nil }
        let at = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
        if rest == 0 || memcmp(base + at + 1, termBase + 1, rest) == 0 { return at }
        from = at + 1
      }
      return nil
    }
  }
}
