import Foundation
import JournalTestSupport
import Testing

/// The guided forms on a real pseudo-terminal: what a person sees and types.
@Suite(.serialized) struct InteractiveTests {
  /// init asks twice without echo; the passphrase never appears on the screen.
  @Test func initAsksTwiceWithoutEcho() {
    let f = CLIFixture(extra: ["JOURNAL_PASSPHRASE_FILE": ""])
    let process = f.cli.interactive(["init", "--kdf", "interactive"])
    #expect(process.expect("Choose a passphrase: "))
    process.write("quiet forest morning\n")
    #expect(process.expect("Type it again: "))
    process.write("quiet forest morning\n")
    // The recovery code is offered, gently; Enter declines.
    #expect(process.expect("Make one now? [y/N] "))
    process.write("\n")
    let result = process.wait()
    #expect(result.status == 0, "\(result)")
    #expect(result.stdout.isEmpty, "no code made")
    #expect(
      process.screenText.contains(#"You can make one any time with "journal recovery-code"."#))
    #expect(!process.screenText.contains("quiet forest"))
    #expect(FileManager.default.fileExists(atPath: f.vaultPath))
  }

  /// Two different entries, or a short one, are said in one line and asked again (the
  /// length as soon as it is typed, before the second entry); three wrong tries end with
  /// nothing created.
  @Test func initAsksAgain() {
    let f = CLIFixture(extra: ["JOURNAL_PASSPHRASE_FILE": ""])
    let process = f.cli.interactive(["init", "--kdf", "interactive"])
    #expect(process.expect("Choose a passphrase: "))
    // A short one is refused at once
    process.write("short\n")
    #expect(process.expect("that is shorter than 8 characters"))
    #expect(!process.screenText.contains("Type it again"))
    #expect(process.expect("Choose a passphrase: ", occurrence: 2))
    // Two that differ are asked again
    process.write("quiet forest morning\n")
    #expect(process.expect("Type it again: "))
    process.write("quiet forest evening\n")
    #expect(process.expect("the two differ; choose it again"))
    #expect(process.expect("Choose a passphrase: ", occurrence: 3))
    process.write("quiet forest morning\n")
    #expect(process.expect("Type it again: ", occurrence: 2))
    process.write("quiet forest morning\n")
    #expect(process.expect("Make one now? [y/N] "))
    process.write("\n")
    let result = process.wait()
    #expect(result.status == 0, "\(result)")
    #expect(FileManager.default.fileExists(atPath: f.vaultPath))
  }

  /// Three tries that differ: nothing is created.
  @Test func initMismatch() {
    let f = CLIFixture(extra: ["JOURNAL_PASSPHRASE_FILE": ""])
    let process = f.cli.interactive(["init", "--kdf", "interactive"])
    for attempt in 1...3 {
      #expect(process.expect("Choose a passphrase: ", occurrence: attempt))
      process.write("quiet forest morning\n")
      #expect(process.expect("Type it again: ", occurrence: attempt))
      process.write("quiet forest evening\n")
    }
    let result = process.wait()
    #expect(result.status == 2)
    #expect(
      result.stderr
        == "journal: error: the two passphrases differ\njournal: hint: nothing was changed; try again\n"
    )
    #expect(!FileManager.default.fileExists(atPath: f.vaultPath))
  }

  /// new, guided: Now fields first, a bad mood asked again, saved, then the Later group.
  @Test func guidedNew() {
    let f = CLIFixture().initialise()
    let process = f.cli.interactive(["new"])
    #expect(process.expect("When was it? [now] "))
    process.write("2026-11-20 19:00\n")
    #expect(process.expect("Treatment [psilocybin] "))
    process.write("\n")
    #expect(process.expect("Dose (optional) "))
    process.write("2.5 g dried\n")
    #expect(process.expect("Intention — what you bring to this session"))
    process.write("to be gentle with myself\nand curious\n.\n")
    #expect(process.expect("Mood before, 1 (low) to 10 (high) "))
    process.write("0\n")
    #expect(process.expect("mood before 0 is outside 1 to 10"))
    #expect(process.expect("Mood before, 1 (low) to 10 (high) ", occurrence: 2))
    process.write("6\n")
    #expect(process.expect("No thanks [3] "))
    process.write("\r")
    #expect(process.expect("Add them now? [y/N] "))
    #expect(process.screenText.contains("needs reflection."))
    process.write("y\n")
    #expect(process.expect("Mood after, 1 to 10 "))
    process.write("8\n")
    #expect(process.expect("Reflection — what stays with you"))
    process.write("\u{04}")
    #expect(process.expect("Environment — where, and with whom "))
    process.write("home, with my guide\n")
    #expect(process.expect("Music notes "))
    process.write("\n")
    let result = process.wait()
    #expect(result.status == 0, "\(result)")
    let id = result.stdout.trimmingCharacters(in: .newlines)
    let session = f.show(id)
    #expect(session["intention"] as? String == "to be gentle with myself\nand curious")
    #expect(session["dose"] as? String == "2.5 g dried")
    #expect(session["treatment"] as? String == "psilocybin")
    #expect(session["mood_before"] as? Int == 6)
    #expect(session["mood_after"] as? Int == 8)
    #expect(session["environment"] as? String == "home, with my guide")
    #expect(session["status"] as? String == "needs_reflection")
  }

  /// reflect: Ctrl-C after the second answer keeps the first two, and the terminal is
  /// restored (echo back on).
  @Test func reflectInterruptedKeepsAnswers() {
    let f = CLIFixture().initialise()
    let id = f.new()
    let process = f.cli.interactive(["reflect", id])
    #expect(process.expect("Mood after, 1 to 10 "))
    process.write("7\n")
    #expect(process.expect("saved"))
    #expect(process.expect("Reflection — what stays with you"))
    process.write("the colours, and then the quiet\n\u{04}")
    #expect(process.expect("saved", occurrence: 2))
    #expect(process.expect("Environment — where, and with whom "))
    process.write("half an ans")
    process.write("\u{03}")
    let result = process.wait()
    #expect(result.status == 130, "\(result)")
    let session = f.show(id)
    #expect(session["mood_after"] as? Int == 7)
    #expect(session["reflection"] as? String == "the colours, and then the quiet")
    #expect(session["environment"] is NSNull)
    #expect(session["status"] as? String == "complete")
  }

  /// A 50 KB reflection typed (pasted) into the terminal is kept exactly, lines longer than
  /// the kernel's 4 KB canonical limit included.
  @Test func longTypedReflection() {
    let f = CLIFixture().initialise()
    let id = f.new()
    let line = String(repeating: "breathing in, breathing out; ", count: 200)  // ~5.8 KB
    let text = Array(repeating: line, count: 9).joined(separator: "\n")
    #expect(text.utf8.count > 50_000)
    let process = f.cli.interactive(["reflect", id])
    #expect(process.expect("Mood after, 1 to 10 "))
    process.write("\n")
    #expect(process.expect("Reflection — what stays with you"))
    process.write(text + "\n.\n")
    #expect(process.expect("Environment — where, and with whom ", timeout: 60))
    process.write("\n")
    #expect(process.expect("Music notes "))
    process.write("\n")
    let result = process.wait()
    #expect(result.status == 0, "\(result)")
    #expect(f.show(id)["reflection"] as? String == text.trimmingCharacters(in: .whitespaces))
  }

  /// The passphrase prompt on a terminal: a wrong one is asked again, three tries in all
  /// (like sudo and ssh); the third wrong one ends with exit code 4. Nothing typed is shown.
  @Test func wrongPassphraseOnTerminal() {
    let f = CLIFixture().initialise()
    let process = f.cli.interactive(["list"], extra: ["JOURNAL_PASSPHRASE_FILE": ""])
    for attempt in 1...3 {
      #expect(process.expect("Passphrase: ", occurrence: attempt))
      process.write("not the passphrase \(attempt)\r")
      if attempt < 3 {
        #expect(process.expect("that passphrase does not open this journal; try again"))
      }
    }
    let result = process.wait()
    #expect(result.status == 4, "\(result)")
    #expect(result.stderr.contains("after 3 tries"), "\(result)")
    #expect(!process.screenText.contains("not the passphrase"))
  }

  /// A mistake, then the right passphrase: the command goes on.
  @Test func secondTryOpens() {
    let f = CLIFixture().initialise()
    let id = f.new()
    let process = f.cli.interactive(["list"], extra: ["JOURNAL_PASSPHRASE_FILE": ""])
    #expect(process.expect("Passphrase: "))
    process.write("a typo\r")
    #expect(process.expect("Passphrase: ", occurrence: 2))
    process.write(CLIFixture.passphrase + "\r")
    let result = process.wait()
    #expect(result.status == 0, "\(result)")
    #expect((process.screenText + result.stdout).contains(id), "\(result)")
  }

  /// Without a terminal there is no one to ask again: a wrong passphrase file is one try.
  @Test func wrongPassphraseFileIsOneTry() {
    let f = CLIFixture().initialise()
    let file = f.home.write("wrong", "not it\n")
    let result = f.run("list", extra: ["JOURNAL_PASSPHRASE_FILE": file])
    #expect(result.status == 4)
    #expect(!result.stderr.contains("tries"), "\(result)")
  }
}
