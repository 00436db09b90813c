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

  /// Stops `process` with Ctrl-C and returns the screen's words, for the note.
  func stop(_ process: Spawned) -> (CLI.Result, String) {
    process.write("\u{03}")
    let result = process.wait()
    return (result, process.screenWords)
  }

  /// Where the form has answered nothing yet, and at the passphrase prompt: one line says
  /// nothing was changed.
  @Test func stopBeforeAnythingSaysNothingChanged() {
    let f = CLIFixture().initialise()
    // At the date, with nothing answered
    let new = f.cli.interactive(["new"], extra: Self.colourTerminal)
    #expect(new.expect("When was it? [now] "))
    let (stoppedNew, words) = stop(new)
    #expect(stoppedNew.status == 130)
    #expect(words.hasSuffix("journal: stopped; nothing was changed"), "\(new.screenText)")
    // At the passphrase prompt
    let list = f.cli.interactive(["list"], extra: Self.locked.merging(Self.colourTerminal) { $1 })
    #expect(list.expect("Passphrase: "))
    let (stoppedList, listWords) = stop(list)
    #expect(stoppedList.status == 130)
    #expect(listWords.hasSuffix("journal: stopped; nothing was changed"), "\(list.screenText)")
  }

  /// The form up to its save, with the mood chosen.
  func saveANewSession(_ process: Spawned) {
    #expect(process.expect("When was it? [now] "))
    process.write("2026-11-20 19:00\r")
    #expect(process.expect("Treatment [psilocybin] "))
    process.write("\r")
    #expect(process.expect("Dose (optional) "))
    process.write("\r")
    #expect(process.expect("Intention — what you bring to this session"))
    process.write("to arrive\r")
    #expect(process.expect("to arrive"))
    process.write(".\r")
    #expect(process.expect("5 😐 neutral"))
    process.write("\r")
  }

  /// After the save: at the reminder choice and at "Add them now?", the note says the
  /// session is saved (and the reminder set) and how to add the later fields.
  @Test func stopAfterTheSaveSaysItIsSaved() {
    let f = CLIFixture().initialise()
    let atReminder = f.cli.interactive(["new"], extra: Self.colourTerminal)
    saveANewSession(atReminder)
    #expect(atReminder.expect("No thanks [3] "))
    let id = f.sessionPrefix()
    let (first, reminderWords) = stop(atReminder)
    #expect(first.status == 130)
    #expect(
      reminderWords.hasSuffix(
        #"journal: stopped; session \#(id) is saved; "journal reflect \#(id)" adds the later fields"#
      ),
      "\(atReminder.screenText)")

    let atLater = f.cli.interactive(["new"], extra: Self.colourTerminal)
    saveANewSession(atLater)
    #expect(atLater.expect("No thanks [3] "))
    atLater.write("2")
    #expect(atLater.expect("Add them now? [y/N] "))
    let (second, laterWords) = stop(atLater)
    #expect(second.status == 130)
    #expect(laterWords.contains("is saved; a reminder comes "), "\(atLater.screenText)")
    #expect(laterWords.hasSuffix("adds the later fields"), "\(atLater.screenText)")
  }

  /// Ctrl-C while `new` writes the session is met once it is saved, and the note says so:
  /// the stop came after its draft was gone and before any note named the session, and
  /// ended journal saying nothing (a stop in the save's commit said the draft was kept).
  @Test func stopWhileSavingSaysItIsSaved() {
    let f = CLIFixture().initialise()
    let pause = f.home.file("pause")
    let process = f.cli.interactive(
      ["new"],
      extra: Self.colourTerminal.merging([
        "JOURNAL_DEBUG_PAUSE_AT": "new-saved", "JOURNAL_DEBUG_PAUSE_FILE": pause,
      ]) { $1 })
    saveANewSession(process)
    #expect(eventually(timeout: 60) { FileManager.default.fileExists(atPath: pause + ".paused") })
    // Pending once `kill` returns: journal meets it before it goes on from the pause.
    process.signal(SIGINT)
    _ = f.home.write("pause", "")
    let result = process.wait()
    #expect(result.status == 130, "\(result)")
    let id = f.sessionPrefix()
    #expect(
      process.screenWords.hasSuffix("journal: stopped; session \(id) is saved"),
      "\(process.screenText)")
    #expect(f.run("drafts").stderr == "journal: no unfinished drafts\n")
  }

  /// In `reflect`: at "Go on with it?" the kept reflection is named; at "Leave it here for
  /// now?" what was answered is saved and the session still waits.
  @Test func stopInReflectSaysWhatIsKept() {
    let f = CLIFixture().initialise()
    let id = f.new()
    // A reflection kept by an interrupted reflect
    let first = f.cli.interactive(["reflect", id], extra: Self.colourTerminal)
    #expect(first.expect("Mood after"))
    first.write("\r")
    #expect(first.expect("Reflection — what stays with you"))
    first.write("a first line\r")
    #expect(first.expect("a first line"))
    _ = stop(first)
    // At "Go on with it?"
    let again = f.cli.interactive(["reflect", id], extra: Self.colourTerminal)
    #expect(again.expect("Go on with it? [Y/n] "))
    let (goOn, goOnWords) = stop(again)
    #expect(goOn.status == 130)
    #expect(
      goOnWords.hasSuffix(
        #"journal: stopped; the reflection so far is kept; "journal reflect \#(id)" takes it up again"#
      ), "\(again.screenText)")
    // At "Leave it here for now?", the reflection skipped
    let last = f.cli.interactive(["reflect", id], extra: Self.colourTerminal)
    #expect(last.expect("Go on with it? [Y/n] "))
    last.write("n\r")
    #expect(last.expect("Mood after"))
    last.write("\r")
    #expect(last.expect("Reflection — what stays with you"))
    last.write("\u{04}")
    #expect(last.expect("Environment — where, and with whom "))
    last.write("by the sea\r")
    #expect(last.expect("Music notes "))
    last.write("\r")
    #expect(last.expect("Leave it here for now? [y/N] "))
    let (leave, leaveWords) = stop(last)
    #expect(leave.status == 130)
    #expect(
      leaveWords.hasSuffix(
        "journal: stopped; what you answered is saved; session \(id) still needs reflection"),
      "\(last.screenText)")
    #expect(f.show(id)["environment"] as? String == "by the sea")
  }

  /// In the `edit` walk, a stop names the fields saved so far.
  @Test func stopInEditNamesWhatIsSaved() {
    let f = CLIFixture().initialise()
    let id = f.new()
    let process = f.cli.interactive(["edit", id], extra: Self.colourTerminal)
    #expect(process.expect("When was it? ["))
    process.write("2026-11-19 18:00\r")
    #expect(process.expect("Treatment ["))
    let (result, words) = stop(process)
    #expect(result.status == 130)
    #expect(
      words.hasSuffix("journal: stopped; the date is saved; the other fields are as they were"),
      "\(process.screenText)")
  }
}
