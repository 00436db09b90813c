import Foundation
import JournalCore
import JournalTestSupport
import Testing

/// Words are found whatever their case or accents (after canonical equivalence), letters that
/// differ stay different, phrases cross line breaks, and hits are placed exactly.
struct TextSearchTests {
  static func session(
    intention: String = "to be open", reflection: String? = nil, environment: String? = nil
  ) throws -> Session {
    var session = try Session.saving(
      SessionDraft(
        id: SessionID(randomBytes: [UInt8](repeating: 7, count: 16)), date: TestClock.reference,
        treatment: .other("San Pedro"), dose: "a cup", intention: intention,
        moodBefore: Mood(5)), now: TestClock.reference)
    if let environment { try session.apply(.environment(environment), now: TestClock.reference) }
    if let reflection { try session.apply(.reflection(reflection), now: TestClock.reference) }
    return session
  }

  @Test func caseAndAccentsFolded() throws {
    let composed = try Self.session(reflection: "at the Caf\u{E9} by noon")
    let decomposed = try Self.session(reflection: "at the Cafe\u{301} by noon")
    for words in [["cafe"], ["CAFÉ"], ["café"], ["Cafe\u{301}"]] {
      let search = try #require(TextSearch(words))
      let a = try #require(search.hits(in: composed), "\(words)")
      let b = try #require(search.hits(in: decomposed), "\(words)")
      // Placed on the text as stored: 4 scalars composed, 5 decomposed.
      #expect(a == [.init(field: .reflection, offset: 7, length: 4)])
      #expect(b == [.init(field: .reflection, offset: 7, length: 5)])
    }
  }

  @Test func turkishDotlessIStaysItself() throws {
    let dotless = try Self.session(reflection: "kırmızı")
    let dotted = try Self.session(reflection: "kirmizi")
    let searchDotless = try #require(TextSearch(["kırmızı"]))
    let searchDotted = try #require(TextSearch(["kirmizi"]))
    #expect(searchDotless.hits(in: dotless) != nil)
    #expect(searchDotless.hits(in: dotted) == nil)
    #expect(searchDotted.hits(in: dotless) == nil)
    #expect(searchDotted.hits(in: dotted) != nil)
  }

  @Test func phraseAcrossALineBreak() throws {
    let session = try Self.session(reflection: "we walked by the\n  sea, later")
    let search = try #require(TextSearch(TextSearch.words(fromLine: #""by the sea""#)))
    let hits = try #require(search.hits(in: session))
    #expect(hits == [.init(field: .reflection, offset: 10, length: 12)])
    let (before, hit, after) = TextSearch.context(
      of: hits[0], in: try #require(session.reflection))
    #expect(before == "we walked " && hit == "by the\n  sea" && after == ", later")
  }

  @Test func everyWordSomewhereAndFieldsScoped() throws {
    let session = try Self.session(
      intention: "to meet my father", reflection: "rain on the roof", environment: "home")
    let both = try #require(TextSearch(["Father", "RAIN"]))
    #expect(both.hits(in: session)?.map(\.field) == [.intention, .reflection])
    #expect(both.hits(in: session, fields: [.reflection]) == nil)
    #expect(TextSearch(["father", "snow"])?.hits(in: session) == nil)
    #expect(TextSearch(["san pedro"])?.hits(in: session)?.first?.field == .treatment)
    #expect(TextSearch(["cup"])?.hits(in: session, fields: [.dose]) != nil)
    #expect(TextSearch(["  ", ""]) == nil)
  }

  @Test func wordsFromALine() {
    #expect(
      TextSearch.words(fromLine: #"father "by the sea"  rain"#) == ["father", "by the sea", "rain"])
    #expect(TextSearch.words(fromLine: "  \n") == [])
  }

  // MARK: - The fast folding agrees with the reference

  /// A session holding `texts` in the fields searched, as the store rebuilds one (no
  /// validation: a stored text may hold any character).
  static func stored(_ texts: [String]) -> Session {
    func text(_ index: Int) -> String? { index < texts.count ? texts[index] : nil }
    return Session(
      id: SessionID(randomBytes: [UInt8](repeating: 9, count: 16)), date: TestClock.reference,
      treatment: text(5).map { .other($0) } ?? .psilocybin, dose: text(4),
      intention: text(0) ?? "", moodBefore: Mood(5), environment: text(2), music: text(3),
      moodAfter: nil, reflection: text(1), created: TestClock.reference,
      updated: TestClock.reference, status: .needsReflection)
  }

  /// Pieces that test the folding's edges: ASCII of every kind of space, letters and their
  /// accented, decomposed, upper-case and compatibility forms, a mark with nothing before it,
  /// letters whose folding grows (ß, ligatures), scripts without case, emoji sequences.
  static let pieces: [String] = [
    "a", "A", "e", "E", "z", "Z", "o", "cafe", "CAFE", " ", "  ", "\n", "\t", "\r\n", "\u{0B}",
    "\u{0C}", "\u{A0}", "\u{2028}", "\u{3000}", "\u{E9}", "\u{C9}", "e\u{301}", "E\u{301}",
    "\u{301}", "\u{308}", "o\u{308}\u{301}", "\u{DF}", "\u{1E9E}", "\u{FB01}", "\u{FB03}",
    "\u{131}", "\u{130}", "i\u{307}", "\u{3A9}", "\u{3C9}", "\u{3C2}", "\u{3A3}", "\u{FF21}",
    "\u{1C5}",
    "\u{1F600}", "\u{1F469}\u{200D}\u{1F469}\u{200D}\u{1F467}", "\u{1F1EB}\u{1F1F7}", "\u{5D0}",
    "\u{4E2D}", "\u{1100}\u{1161}", "\u{AC00}", ".", ",", "-", "0", "9", "\"", "\u{0}",
  ]

  /// Random texts from those pieces, and words taken from them (whole or cut anywhere,
  /// case changed, decomposed) or made the same way: every hit, and whether a session is
  /// found at all, is what the reference finds.
  @Test func agreesWithTheReferenceOnTrickyText() throws {
    let seed = SeededGenerator.runSeed
    var random = SeededGenerator(seed: seed, salt: 35)
    // Every other round in ASCII alone, where the folding takes eight bytes at a time.
    let ascii = Self.pieces.filter { $0.utf8.allSatisfy { $0 < 0x80 } }
    var pieces = Self.pieces
    func piecesText(_ count: Int) -> String {
      (0..<count).map { _ in pieces.randomElement(using: &random) ?? "" }.joined()
    }
    for round in 0..<2_000 {
      pieces = round.isMultiple(of: 2) ? Self.pieces : ascii
      let texts = (0..<6).map { _ in piecesText(Int.random(in: 0...40, using: &random)) }
      let session = Self.stored(texts)
      var words: [String] = []
      for _ in 0..<Int.random(in: 1...3, using: &random) {
        switch Int.random(in: 0..<4, using: &random) {
        case 0:
          // A cut of one of the texts, on character boundaries.
          let text = Array(texts.randomElement(using: &random) ?? "")
          let from = Int.random(in: 0...text.count, using: &random)
          let to = Int.random(in: from...min(text.count, from + 8), using: &random)
          words.append(String(text[from..<to]))
        case 1:
          // A cut on scalar boundaries (a mark without its letter, half a sequence).
          let text = Array((texts.randomElement(using: &random) ?? "").unicodeScalars)
          let from = Int.random(in: 0...text.count, using: &random)
          let to = Int.random(in: from...min(text.count, from + 6), using: &random)
          var word = ""
          word.unicodeScalars.append(contentsOf: text[from..<to])
          words.append(word)
        case 2: words.append(piecesText(Int.random(in: 1...4, using: &random)).uppercased())
        default:
          words.append(
            piecesText(Int.random(in: 0...3, using: &random)).decomposedStringWithCanonicalMapping)
        }
      }
      let fast = TextSearch(words)
      let reference = TextSearchReference(words)
      #expect((fast == nil) == (reference == nil), "seed \(seed), round \(round): \(words)")
      guard let fast, let reference else { continue }
      for fields in [TextSearch.fields, [.reflection], [.treatment, .dose]] {
        let expected = reference.hits(in: session, fields: fields)
        #expect(
          fast.hits(in: session, fields: fields) == expected,
          "seed \(seed), round \(round): \(words) in \(texts)")
        // The search's first pass, which only asks whether a session matches.
        #expect(
          fast.matches(session, in: fields) == (expected != nil),
          "seed \(seed), round \(round): \(words) in \(texts)")
      }
    }
  }

  /// Long texts: a word placed across every offset around the folding buffer's first size
  /// (4,096 bytes) and around 8-byte words, with ASCII, accented letters and letters whose
  /// folding grows before it, is found where the reference finds it.
  @Test func matchesAcrossBufferAndWordBoundaries() throws {
    let fillers = ["x", "\u{E9}", "\u{DF}", "\u{FB03}", "a\u{301}", " \n "]
    for filler in fillers {
      for length in [4_080, 4_090, 4_094, 4_095, 4_096, 4_097, 4_100, 8_190, 8_200] {
        var prefix = String(repeating: filler, count: length / filler.utf8.count)
        for extra in 0..<3 {
          let text = prefix + "Sea Gl\u{E2}ss" + String(repeating: "y", count: extra)
          let session = Self.stored(["to be open", text])
          for words in [["sea glass"], ["glass", "SEA"], ["y"], ["seaglass"]] {
            let fast = try #require(TextSearch(words))
            let reference = try #require(TextSearchReference(words))
            #expect(
              fast.hits(in: session) == reference.hits(in: session),
              "\(filler) × \(length) + \(extra): \(words)")
          }
          prefix += "o"
        }
      }
    }
    let found = try #require(TextSearch(["sea glass"]))
    let across = Self.stored(["to be open", String(repeating: "x", count: 4_093) + "SEA  glass"])
    #expect(found.hits(in: across) == [.init(field: .reflection, offset: 4_093, length: 10)])
  }

  /// Words that fold to nothing are left out, as before; with none left there is no search.
  @Test func emptyWordsAsBefore() throws {
    for words in [[], [""], [" "], ["", " \n\t "], ["\u{A0}"], ["\u{301}"]] {
      #expect((TextSearch(words) == nil) == (TextSearchReference(words) == nil), "\(words)")
    }
    #expect(TextSearch(["", " \n\t "]) == nil)
    let session = Self.stored(["rain on the roof"])
    let padded = try #require(TextSearch(["", "  rain ", " "]))
    #expect(padded.hits(in: session) == [.init(field: .intention, offset: 0, length: 4)])
    #expect(
      padded.hits(in: session) == TextSearchReference(["", "  rain ", " "])?.hits(in: session))
  }
}
