import Foundation
import JournalTestSupport
import Testing

/// One error pipeline: every failure ends in one clear line, a documented exit code, and no
/// value the person typed.
@Suite(.serialized) struct ErrorPipelineTests {
  /// Standard output on a full disk ends with the disk exit code and one line, not a trap.
  @Test func fullDiskOnStandardOutput() throws {
    // Given a journal with a session
    let f = CLIFixture().initialise()
    _ = f.new()
    for command in ["export --format json", "list", "list --json", "show --json"] {
      // When the output goes to /dev/full
      let arguments = command == "show --json" ? "show \(f.sessionPrefix()) --json" : command
      let result = f.cli.runProgram(
        ["/bin/sh", "-c", "exec \"$0\" \(arguments) > /dev/full", CLI.binary])
      // Then journal says so in one line and exits 11
      #expect(result.status == 11, "\(command): \(result)")
      #expect(
        result.stderr.hasSuffix(
          "journal: error: standard output could not be written: No space left on device\n"
            + "journal: hint: check free space where the output goes; nothing in the journal "
            + "was changed\n"), "\(command): \(result)")
    }
  }

  /// Unquoted words after an option are not repeated in the message (cron mail, journald):
  /// the message names the option that needs quotes.
  @Test func unquotedValueIsNotEchoed() {
    let f = CLIFixture().initialise()
    let result = f.run("new", "--intention", "to", "rest", "by", "the", "sea", "--mood-before", "5")
    #expect(result.status == 2)
    #expect(
      result.stderr == """
        journal: error: the value of --intention has spaces and needs quotes
        journal: hint: write --intention "…", with the whole value inside the quotes

        """)
  }

  /// No refusal of the command line repeats a typed value, whatever the kind.
  @Test func noParseErrorRepeatsAValue() {
    let f = CLIFixture().initialise()
    let secret = "seaside-secret"
    let attempts: [[String]] = [
      ["new", "--intention", "x", "--mood-before", secret],
      ["init", "--kdf", secret],
      ["list", secret],
      ["list", "--\(secret)"],
      ["list", "--json=\(secret)"],
      [secret],
    ]
    for arguments in attempts {
      let result = f.cli.run(arguments)
      #expect(result.status == 2, "\(arguments): \(result)")
      #expect(!result.stderr.contains("seaside"), "\(arguments): \(result.stderr)")
      #expect(result.stderr.hasPrefix("journal: error: "), "\(arguments): \(result.stderr)")
      #expect(result.stdout.isEmpty)
    }
  }

  /// A missing argument is named by journal's own placeholder.
  @Test func missingArgumentIsNamed() {
    let result = CLIFixture().initialise().run("delete")
    #expect(result.status == 2)
    #expect(result.stderr.hasPrefix("journal: error: missing expected argument '<ids> ...'\n"))
  }

  /// Help through "journal help <command>" and "--help" still prints to stdout and succeeds.
  @Test func helpStillWorks() {
    let f = CLIFixture()
    let asked = [
      ["help", "init"], ["init", "--help"], ["--help"], ["help"], ["help", "reminders", "run"],
      ["help", "--help"],
    ]
    for arguments in asked {
      let result = f.cli.run(arguments)
      #expect(result.status == 0, "\(arguments): \(result)")
      #expect(result.stdout.contains("USAGE: journal"), "\(arguments)")
      #expect(result.stderr.isEmpty, "\(arguments): \(result.stderr)")
    }
  }

  /// A command line that names no completion script is parsed without ArgumentParser's look
  /// for one (`Journal.parse`): help, usage and errors still read as ArgumentParser writes
  /// them for journal, never with the root's name twice (the name the skip borrows), and a
  /// completion script is printed however it is asked for (the look is kept for those).
  @Test func skippingTheCompletionLookChangesNoWord() {
    let f = CLIFixture()
    for arguments in [["--help"], ["new", "--help"], ["show", "--nope"], ["edit"], ["nwe"]] {
      let result = f.cli.run(arguments)
      #expect(result.status != 1, "\(arguments): \(result)")
      #expect(!(result.stdout + result.stderr).contains("journal journal"), "\(arguments)")
    }
    #expect(f.cli.run(["new", "--help"]).stdout.contains("USAGE: journal new "))
    #expect(f.cli.run(["--version"]).stdout == "0.1.0\n")
    for arguments in [
      ["--generate-completion-script", "bash"], ["--generate-completion-script=zsh"],
    ] {
      let script = f.cli.run(arguments)
      #expect(script.status == 0, "\(arguments): \(script)")
      #expect(script.stdout.contains("journal"), "\(arguments)")
    }
  }

  /// One session exported is "1 session", not "1 sessions".
  @Test func exportCountsInWords() {
    let f = CLIFixture().initialise()
    _ = f.new()
    let output = f.home.path + "/out.json"
    let result = f.run("export", "--format", "json", "--output", output)
    #expect(result.status == 0)
    #expect(result.stderr.hasSuffix(#"journal: wrote 1 session to "\#(output)""# + "\n"))
    let verify = f.run("verify")
    #expect(verify.stderr.hasSuffix("journal: the 1 session is intact\n"), "\(verify)")
  }

  /// A date with a 70-digit fraction of a second (ICU's SIGFPE, exit 136 before) is read by
  /// journal's own parser wherever a date is typed: --date, --since and remind --at.
  @Test func longFractionInEveryDateFlag() {
    let f = CLIFixture().initialise()
    let long = "2026-01-01T00:00:00." + String(repeating: "7", count: 70) + "Z"
    let short = "2026-01-01T00:00:00." + String(repeating: "7", count: 30) + "Z"
    // Over the cap: one clear line, exit 2, no crash
    let refused = f.run("new", "--intention", "x", "--mood-before", "5", "--date", long)
    #expect(refused.status == 2, "\(refused)")
    #expect(refused.stderr.hasPrefix("journal: error: the date could not be read\n"))
    // Within it: read, to the millisecond
    let saved = f.run("new", "--intention", "x", "--mood-before", "5", "--date", short)
    #expect(saved.status == 0, "\(saved)")
    let id = saved.stdout.trimmingCharacters(in: .newlines)
    #expect((f.show(id)["date"] as? String)?.hasPrefix("2026-01-01T00:00:00.777") == true)
    for arguments in [
      ["list", "--json"], ["export", "--since", long], ["export", "--until", long],
    ] {
      let result = f.cli.run(arguments)
      #expect(result.status == (arguments[0] == "list" ? 0 : 2), "\(arguments): \(result)")
    }
    let remind = f.run("remind", id, "--at", long)
    #expect(remind.status == 2, "\(remind)")
    #expect(remind.stderr.hasPrefix("journal: error: the date could not be read\n"))
  }
}
