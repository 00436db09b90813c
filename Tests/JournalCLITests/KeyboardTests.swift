import Foundation
import JournalTestSupport
import Testing

/// The keyboard as a terminal delivers it: a paste in one write (with and without bracketed
/// paste markers), a key and Enter in one read, Ctrl-C, a closed window and a kill in the
/// middle of a field; and nothing typed or pasted into journal reaches the shell after it.
/// Every test here runs the real binary on a real pseudo-terminal (`Spawned` opens it with
/// posix_openpt, in CTestSupport) and writes bytes to its master side as a terminal would.
@Suite(.serialized) struct KeyboardTests {
  static let colourTerminal = ["TERM": "xterm-256color", "COLUMNS": "80"]
  static let paste = (start: "\u{1B}[200~", end: "\u{1B}[201~")

  /// What bash reads from the terminal once journal has ended: the script prints it
  /// between brackets, or "[]" when nothing was left.
  static let readWhatIsLeft = #"IFS= read -r -t 2 left; printf 'LEFT[%s]\n' "$left""#

  /// A three-line paste (bracketed) at a one-line prompt is one answer, its lines joined and
  /// said so as the paste arrives; nothing spills into the next question or the shell.
  @Test func bracketedPasteIntoOneLineField() {
    // Given a session and `reflect` run from a shell, on a terminal that marks pastes
    let f = CLIFixture().initialise()
    let id = f.new()
    let process = f.cli.shell(
      #"stty -echo; "$J" reflect \#(id); "# + Self.readWhatIsLeft, extra: Self.colourTerminal)
    #expect(process.expect("Mood after"))
    process.write("\r")
    #expect(process.expect("Reflection — what stays with you"))
    process.write("\u{04}")
    #expect(process.expect("Environment — where, and with whom "))
    // When three lines are pasted at Environment, and Enter pressed after them
    process.write(Self.paste.start + "by the sea\nwith Ana\nlater: rain\n" + Self.paste.end)
    #expect(process.expect("by the sea with Ana later: rain"))
    #expect(!process.screenText.contains("Music notes"), "a pasted newline answered")
    // The joining is said as the paste arrives, while the answer can still be changed
    #expect(process.expect("(the pasted lines were joined into one)"))
    process.write("\r")
    #expect(process.expect("Music notes "))
    process.write("\r")
    #expect(process.expect("Leave it here for now? [y/N]"))
    process.write("\r")
    let result = process.wait()
    // Then the environment holds all three lines as one, music is empty, the shell got nothing
    #expect(result.status == 0, "\(result)")
    let session = f.show(id)
    #expect(session["environment"] as? String == "by the sea with Ana later: rain")
    #expect(session["music"] is NSNull)
    #expect(result.stdout.hasSuffix("LEFT[]\n"), "\(result.stdout)")
  }

  /// Without bracketed paste (a plain terminal), pasted lines answer the questions in turn,
  /// as typed-ahead answers would, but whatever is left when journal ends is dropped: the
  /// shell never runs it.
  @Test func unmarkedPasteNeverReachesTheShell() {
    let f = CLIFixture().initialise()
    let id = f.new()
    let process = f.cli.shell(
      #"stty -echo; "$J" reflect \#(id); "# + Self.readWhatIsLeft, extra: ["TERM": "dumb"])
    #expect(process.expect("Mood after, 1 to 10 "))
    process.write("\r")
    #expect(process.expect("Reflection — what stays with you"))
    process.write("\u{04}")
    #expect(process.expect("Environment — where, and with whom "))
    // (The empty third line answers the last question, "Leave it here for now?", with No.)
    process.write("by the sea\nwith Ana\n\nrm -rf ~/later\n")
    let result = process.wait()
    #expect(result.status == 0, "\(result)")
    #expect(f.show(id)["environment"] as? String == "by the sea")
    #expect(f.show(id)["music"] as? String == "with Ana")
    #expect(result.stdout.hasSuffix("LEFT[]\n"), "\(result.stdout)")
  }

  /// The "Now" form's date, treatment and dose, up to the intention's prompt.
  func answerUpToTheIntention(_ process: Spawned) {
    #expect(process.expect("When was it? [now] "))
    process.write("2026-11-20 19:00\r")
    #expect(process.expect("Treatment [psilocybin] "))
    process.write("\r")
    #expect(process.expect("Dose (optional) "))
    process.write("\r")
    #expect(process.expect("Intention — what you bring to this session"))
  }

  /// A key and Enter arriving in one read: the key answers, and the Enter goes with it
  /// rather than answering the next question.
  @Test func keyAndEnterInOneRead() {
    let f = CLIFixture().initialise()
    let process = f.cli.interactive(["new"], extra: Self.colourTerminal)
    answerUpToTheIntention(process)
    process.write("to arrive\r.\r")
    #expect(process.expect("5 😐 neutral"))
    process.write("\r")
    #expect(process.expect("No thanks [3] "))
    // When "2" and Enter come in one write
    process.write("2\r")
    #expect(process.expect("Tomorrow"))
    #expect(process.expect("Add them now? [y/N] "))
    process.write("n\r")
    let result = process.wait()
    #expect(result.status == 0, "\(result)")
    // The "n" answered the question, not the Enter that came with the "2"
    #expect(process.screenText.contains("Add them now? [y/N] n"), "\(process.screenText)")
    // Then the reminder is set for tomorrow
    let reminders = f.run("reminders", "list")
    #expect(reminders.stdout.contains("repeats daily"), "\(reminders)")
  }

  /// How a field is interrupted.
  enum Interruption: String, CaseIterable {
    case ctrlC, hangup, kill9
  }

  /// Typing the intention, interrupted mid-line: the lines already typed are in the draft
  /// (with Ctrl-C and a closed terminal, the unfinished line too), the message says exactly
  /// what was kept, and the next `journal new` resumes with them, the intention going on
  /// from where it stopped.
  @Test(arguments: Interruption.allCases)
  func intentionSurvivesInterruption(_ how: Interruption) {
    let f = CLIFixture().initialise()
    let process = f.cli.interactive(["new"], extra: Self.colourTerminal)
    answerUpToTheIntention(process)
    process.write("to meet the fear\rand to rest aft")
    #expect(process.expect("and to rest aft"))
    switch how {
    case .ctrlC: process.write("\u{03}")
    case .hangup: process.signal(SIGHUP)
    case .kill9: process.signal(SIGKILL)
    }
    let stopped = process.wait()
    #expect(stopped.status != 0)
    let expected = how == .kill9 ? "to meet the fear" : "to meet the fear\nand to rest aft"
    if how == .ctrlC {
      #expect(
        process.screenWords.contains(
          "journal: your draft is kept with the date, the treatment and 2 lines of the "
            + "intention; \"journal new\" will offer it again"), "\(process.screenText)")
    }
    // When the draft is resumed
    let resumed = f.cli.interactive(["new"], extra: Self.colourTerminal)
    #expect(resumed.expect("Resume it, discard it, or keep it for later? [R/d/k] "))
    resumed.write("r\r")
    // The dose was left empty, so it is asked again; the intention goes on from what was
    // kept, shown, and more can be written before it is ended
    #expect(resumed.expect("Dose (optional) "))
    resumed.write("\r")
    #expect(resumed.expect("Intention — what you bring to this session"))
    #expect(resumed.expect(expected.components(separatedBy: "\n").last ?? expected))
    #expect(
      resumed.screenWords.contains(expected.replacingOccurrences(of: "\n", with: " ")),
      "\(resumed.screenText)")
    resumed.write("and more\r")
    #expect(resumed.expect("and more"))
    resumed.write(".\r")
    #expect(resumed.expect("5 😐 neutral"))
    resumed.write("\r")
    #expect(resumed.expect("No thanks [3] "))
    resumed.write("\r")
    #expect(resumed.expect("Add them now? [y/N] "))
    resumed.write("\r")
    let result = resumed.wait()
    #expect(result.status == 0, "\(result)")
    #expect(
      f.show(result.stdout.trimmingCharacters(in: .newlines))["intention"] as? String
        == expected + "\nand more")
  }

  /// Without bracketed paste, a pasted line holding only "." with more text behind it does
  /// not end the intention: the whole paste is kept, and the screen says so.
  @Test func pastedDotLineIsText() {
    let f = CLIFixture().initialise()
    let process = f.cli.interactive(["new"], extra: ["TERM": "dumb"])
    #expect(process.expect("When was it? [now] "))
    process.write("2026-11-20 19:00\n\n\n")
    #expect(process.expect("Intention — what you bring to this session"))
    process.write("a list:\n.\nand more\n")
    #expect(process.expect("inside pasted text was kept as text"))
    process.write(".\n")
    #expect(process.expect("Mood before, 1 (low) to 10 (high) "))
    process.write("5\n")
    #expect(process.expect("No thanks [3] "))
    process.write("\n")
    #expect(process.expect("Add them now? [y/N] "))
    process.write("\n")
    let result = process.wait()
    #expect(result.status == 0, "\(result)")
    #expect(
      f.show(result.stdout.trimmingCharacters(in: .newlines))["intention"] as? String
        == "a list:\n.\nand more")
  }

  /// After `delete` and "y", "u" and Enter arriving in one read undo the deletion: before,
  /// the countdown ignored the read, ran out, and the session was purged.
  @Test func undoKeyWithEnterInOneRead() {
    let f = CLIFixture().initialise()
    let id = f.new()
    let process = f.cli.interactive(["delete", id], extra: Self.colourTerminal)
    #expect(process.expect("Delete this session? [y/N] "))
    process.write("y\r")
    #expect(process.expect("Press u to undo"))
    process.write("u\r")
    #expect(process.expect("Restored session \(id)."))
    let result = process.wait()
    #expect(result.status == 0, "\(result)")
    #expect(f.sessions().count == 1)
  }
}
