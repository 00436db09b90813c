import JournalCore
import Testing

/// Untrusted text in a message (a server's words, a value read in the clear, SQLite's about a
/// hand-made file) is shown as data: nothing in it acts on a terminal or turns the text.
struct QuotedTests {
  @Test func everyActiveCharacterIsWrittenOut() {
    #expect(Quoted.data("a \"b\" \\ c") == #""a \"b\" \\ c""#)
    #expect(Quoted.data("\n\t\r") == #""\n\t\r""#)
    // Escapes, a bell, DEL, C1; the direction override, isolate and marks; zero width; a
    // line separator; private use; a code point not yet assigned.
    let active =
      "\u{1B}[2J\u{7}\u{7F}\u{9B}\u{202E}\u{2067}\u{200F}\u{61C}\u{200B}\u{2028}\u{E000}\u{378}"
    #expect(
      Quoted.data(active)
        == #""\u{1B}[2J\u{7}\u{7F}\u{9B}\u{202E}\u{2067}\u{200F}\u{61C}\u{200B}\u{2028}\u{E000}\u{378}""#
    )
    #expect(Quoted.data("é, 😀, 日本") == "\"é, 😀, 日本\"")
  }

  @Test func cutAtTheLimit() {
    let long = String(repeating: "x", count: Quoted.limit + 1)
    #expect(Quoted.data(long) == "\"" + String(repeating: "x", count: Quoted.limit) + "\"…")
    let whole = String(repeating: "x", count: Quoted.limit)
    #expect(Quoted.data(whole) == "\"" + whole + "\"")
  }
}
