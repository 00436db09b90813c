import Foundation
import JournalTestSupport
import Testing

/// Lines that misled, from the keyboard issue: each as a person meets it.
@Suite(.serialized) struct SmallDefectsTests {
  /// Closing the editor without saving (vim's :cq) is a cancellation: said as one, without
  /// "error", exit 130 as for Ctrl-C, and nothing of the session changed.
  @Test func editorClosedWithoutSaving() {
    let f = CLIFixture().initialise()
    let id = f.new()
    let script = f.home.write("quit-editor", "#!/bin/sh\nexit 1\n", mode: 0o700)
    let process = f.cli.interactive(["reflect", id, "--editor"], extra: ["EDITOR": script])
    #expect(process.expect("Mood after, 1 to 10 "))
    process.write("\n")
    let result = process.wait()
    #expect(result.status == 130, "\(result)")
    #expect(
      result.stderr == """
        journal: the editor was closed without saving (status 1); its text was not used
        journal: hint: what you answered before it is kept; run the command again to go on

        """)
    #expect(f.show(id)["reflection"] is NSNull)
  }

  /// `export --treatment "other:San Pedro"`, the form the hint names, is accepted and takes
  /// only that custom treatment.
  @Test func exportByCustomTreatment() throws {
    let f = CLIFixture().initialise()
    _ = f.new("--treatment", "other:San Pedro")
    _ = f.new("--treatment", "other:Kambo")
    _ = f.new()
    let result = f.run("export", "--treatment", "other:san pedro")
    #expect(result.status == 0, "\(result)")
    let document =
      try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
    let sessions = document?["sessions"] as? [[String: Any]] ?? []
    #expect(sessions.map { $0["treatment_name"] as? String } == ["San Pedro"])
    #expect(f.run("export", "--treatment", "other").stdout.contains("Kambo"))
  }

  /// A reminder for a moment already past is refused, not silently set.
  @Test func reminderInThePast() {
    let f = CLIFixture(extra: ["JOURNAL_DEBUG_NOW": "2026-11-21T20:00:00Z"]).initialise()
    let id = f.new()
    let result = f.run("remind", id, "--at", "2026-11-21 19:00")
    #expect(result.status == 2)
    #expect(
      result.stderr == """
        journal: error: that time has already passed
        journal: hint: choose a time ahead: --at with a later date, --in 3h, or --tomorrow

        """)
    #expect(f.run("reminders").stdout.isEmpty)
  }

  /// passwd asks for the current passphrase and then the new one, by those names.
  @Test func passwdSaysWhichPassphrase() {
    let f = CLIFixture().initialise()
    let process = f.cli.interactive(
      ["passwd", "--kdf", "interactive"], extra: ["JOURNAL_PASSPHRASE_FILE": ""])
    #expect(process.expect("Current passphrase: "))
    process.write(CLIFixture.passphrase + "\n")
    #expect(process.expect("New passphrase: "))
    process.write("a wholly new passphrase\n")
    #expect(process.expect("Type it again: "))
    process.write("a wholly new passphrase\n")
    let result = process.wait()
    #expect(result.status == 0, "\(result)")
  }
}
