import JournalCore
import Testing

/// "Did you mean": the nearest of a few known words, by edit distance, or none.
struct SuggestionTests {
  /// Insertions, deletions, substitutions and swaps of neighbours each cost one.
  @Test func distance() {
    #expect(Suggestion.distance("nwe", "new") == 1)
    #expect(Suggestion.distance("psilocibin", "psilocybin") == 1)
    #expect(Suggestion.distance("ketamin", "ketamine") == 1)
    #expect(Suggestion.distance("kitten", "sitting") == 3)
    #expect(Suggestion.distance("", "abc") == 3)
    #expect(Suggestion.distance("same", "same") == 0)
  }

  /// A near word is suggested, case aside; a far one, an empty one or an exact one is not;
  /// of two equally near, the first listed.
  @Test func nearest() {
    let commands = ["init", "new", "reflect", "list", "show", "remind", "reminders"]
    #expect(Suggestion.nearest(to: "nwe", among: commands) == "new")
    #expect(Suggestion.nearest(to: "SHWO", among: commands) == "show")
    #expect(Suggestion.nearest(to: "remindr", among: commands) == "remind")
    #expect(Suggestion.nearest(to: "relfect", among: commands) == "reflect")
    #expect(Suggestion.nearest(to: "xyzzy", among: commands) == nil)
    #expect(Suggestion.nearest(to: "", among: commands) == nil)
    #expect(Suggestion.nearest(to: "ls", among: commands) == nil)
    #expect(Suggestion.nearest(to: "news", among: ["new", "news"]) == nil)
    #expect(Suggestion.nearest(to: "LIST", among: commands) == "list")
    #expect(Suggestion.nearest(to: "ab", among: ["ac", "ad"]) == "ac")
    #expect(Suggestion.nearest(to: "mushrooms", among: Treatment.known.map(\.key)) == nil)
  }
}
