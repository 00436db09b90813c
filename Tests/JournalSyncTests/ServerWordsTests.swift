import Foundation
import JournalSync
import JournalTestSupport
import Testing

/// A hostile server cannot write to the terminal (issue 33): what it sends while the
/// connection is made (notices, a refusal) never reaches standard error raw, and what journal
/// repeats of its words is quoted as data, escaped, after a label of journal's own. Tried with
/// a server of the test's own making on loopback.
struct ServerWordsTests {
  /// Escape sequences a terminal acts on: a window title, a cleared screen, colour, and a
  /// line that would pass for journal's own.
  static let hostile =
    "\u{1B}]0;owned\u{07}\u{1B}[2J\u{1B}[31m\njournal: error: your passphrase leaked\u{1B}[0m"

  static func expectNothingRaw(_ result: CLI.Result) {
    #expect(!result.stderr.contains("\u{1B}") && !result.stderr.contains("\u{07}"), "\(result)")
    #expect(!result.stdout.contains("\u{1B}"))
    #expect(!result.stderr.contains("owned\u{07}"))
    // Exactly journal's two lines, the server's text inside the first
    let lines = result.stderr.split(separator: "\n", omittingEmptySubsequences: false)
    #expect(lines.count == 3, "\(result)")
    #expect(lines.first?.hasPrefix("journal: error: ") == true)
    #expect(lines.dropFirst().first?.hasPrefix("journal: hint: ") == true)
    #expect(!result.stderr.contains("passphrase leaked\n"))
  }

  /// A notice while connecting, then a refusal: neither reaches the terminal raw; the
  /// refusal's text is shown quoted.
  @Test func noticeAndRefusalWhileConnecting() {
    let server = FakePostgres(
      duringConnection: FakePostgres.authenticated
        + FakePostgres.fields("N", [("S", "NOTICE"), ("C", "00000"), ("M", Self.hostile)])
        + FakePostgres.fields(
          "E", [("S", "FATAL"), ("V", "FATAL"), ("C", "53300"), ("M", Self.hostile)]))
    defer { server.close() }
    let a = Device(nil)
    _ = a.initialise(sessions: 1)
    let refused = a.run("sync", "setup", "postgres://me@127.0.0.1:\(server.port)/journal")
    #expect(refused.status == 13, "\(refused)")
    Self.expectNothingRaw(refused)
    #expect(
      refused.stderr.hasPrefix(
        #"journal: error: the sync server refused the connection (53300); it said "\u{1B}]0;owned\u{7}\u{1B}[2J\u{1B}[31m""#
      ),
      "\(refused)")
  }

  /// A server that lets the device in, with notices on the way, then refuses its first
  /// statement with escape sequences in the words.
  @Test func noticesThenARefusedStatement() {
    let notice = FakePostgres.fields("N", [("S", "WARNING"), ("C", "01000"), ("M", Self.hostile)])
    let server = FakePostgres(
      duringConnection: FakePostgres.authenticated + notice + FakePostgres.ready + notice,
      perStatement: notice
        + FakePostgres.fields(
          "E", [("S", "ERROR"), ("V", "ERROR"), ("C", "XX000"), ("M", Self.hostile)]))
    defer { server.close() }
    let a = Device(nil)
    _ = a.initialise(sessions: 1)
    let refused = a.run("sync", "setup", "postgres://me@127.0.0.1:\(server.port)/journal")
    #expect(refused.status == 13, "\(refused)")
    Self.expectNothingRaw(refused)
    #expect(
      refused.stderr.hasPrefix(
        #"journal: error: the sync server refused a statement (XX000); it said "\u{1B}]0;owned"#),
      "\(refused)")
  }

  /// Quoting: every control and format character escaped, quotes and backslashes too, and a
  /// long text cut.
  @Test func quoted() {
    #expect(
      ServerText("a \"b\" \\ c\n\t\u{1B}[0m\u{202E}").quoted
        == #""a \"b\" \\ c\n\t\u{1B}[0m\u{202E}""#)
    let long = ServerText(String(repeating: "x", count: 500)).quoted
    #expect(long == "\"" + String(repeating: "x", count: 200) + "\"…")
  }
}
