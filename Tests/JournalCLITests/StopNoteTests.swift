import Foundation
import JournalTestSupport
import Testing

/// Every stop says in one line what was kept, and the words are true (issue 32, items 5 and
/// 10): real binary, real pseudo-terminal, Ctrl-C at each kind of question.
@Suite(.serialized) struct StopNoteTests {
  static let colourTerminal = ["TERM": "xterm-256color", "COLUMNS": "200"]
  /// No passphrase file: a new journal then writes without the passphrase (capture).
  static let locked = ["JOURNAL_PASSPHRASE_FILE": ""]

  /// In capture mode, Ctrl-C keeps a sealed draft, and the note names the way it is taken up
  /// again: a locked `journal new` starts afresh, so it cannot be "journal new" alone.
  @Test func sealedDraftNoteNamesTheKey() {
    // Given a new journal and no passphrase at hand
    let f = CLIFixture().initialise()
    let process = f.cli.interactive(
      ["new"], extra: Self.locked.merging(Self.colourTerminal) { $1 })
    #expect(process.expect("When was it? [now] "))
    process.write("2026-11-20 19:00\r")
    #expect(process.expect("Treatment [psilocybin] "))
    // When the form is stopped
    process.write("\u{03}")
    let result = process.wait()
    // Then the note says the draft is sealed and how it opens
    #expect(result.status == 130, "\(result)")
    #expect(
      process.screenWords.contains(
        #"journal: your draft is kept, sealed, with the date; it opens with your passphrase: "#
          + #"after "journal unlock", "journal new" offers it again"#),
      "\(process.screenText)")
    // And a locked `journal new` indeed does not offer it
    let again = f.cli.interactive(["new"], extra: Self.locked.merging(Self.colourTerminal) { $1 })
    #expect(again.expect("When was it? [now] "))
    #expect(again.screenText.contains("1 unfinished draft waits"), "\(again.screenText)")
    #expect(!again.screenText.contains("Resume it"))
    again.write("\u{03}")
    _ = again.wait()
  }
}
