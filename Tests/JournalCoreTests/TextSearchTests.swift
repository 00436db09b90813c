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
}
