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

  /// `journal help nwe` is a usage error naming the nearest command, not the top-level help
  /// with exit 0; `journal nwe` says the same; a word far from every command gets no guess
  /// and is not repeated (it may be anything: ErrorPipelineTests).
  @Test func unknownCommandSuggestsTheNearest() {
    let f = CLIFixture()
    let expected = """
      journal: error: no command "nwe"; did you mean "new"?
      journal: hint: run "journal help" to see the commands

      """
    for arguments in [["help", "nwe"], ["nwe"], ["nwe", "--intention", "private words"]] {
      let result = f.cli.run(arguments)
      #expect(result.status == 2, "\(arguments)")
      #expect(result.stdout.isEmpty)
      #expect(result.stderr == expected, "\(arguments)")
    }
    let nested = f.run("help", "reminders", "rnu")
    #expect(nested.status == 2)
    #expect(
      nested.stderr.hasPrefix(
        #"journal: error: no command "reminders rnu"; did you mean "reminders run"?"#))
    let far = f.run("xyzzy")
    #expect(far.status == 2)
    #expect(
      far.stderr == """
        journal: error: there is no such command
        journal: hint: run "journal help" to see the commands

        """)
    let help = f.run("help", "new")
    #expect(help.status == 0)
    #expect(help.stdout.contains("journal new"))
    #expect(f.run("help").status == 0)
  }

  /// A mistyped treatment gets the nearest known one, and what was typed is never repeated:
  /// a substance's name is record content.
  @Test func unknownTreatmentSuggestsTheNearest() {
    let f = CLIFixture().initialise()
    let result = f.run(
      "new", "--intention", "to listen", "--mood-before", "5", "--treatment", "psilocibin")
    #expect(result.status == 2)
    #expect(
      result.stderr == """
        journal: error: unknown treatment; did you mean "psilocybin"?
        journal: hint: choose one of psilocybin, mdma, ketamine, lsd, ayahuasca, mescaline, dmt, ibogaine, cannabis, or "other:<name>"

        """)
    let far = f.run("export", "--treatment", "my secret brew")
    #expect(far.status == 2)
    #expect(far.stderr.hasPrefix("journal: error: unknown treatment\n"))
    #expect(!far.stderr.contains("secret"))
    #expect(f.sessions().isEmpty)
  }
}
