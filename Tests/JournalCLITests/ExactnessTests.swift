import Foundation
import Glibc
import JournalTestSupport
import Testing

/// Small promises of the terminal kept exactly (issue 32, "Exactness"): the real binary on
/// a real pseudo-terminal, or with pipes where no terminal is involved.
@Suite(.serialized) struct ExactnessTests {
  static let colourTerminal = ["TERM": "xterm-256color", "COLUMNS": "100"]

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

  /// At the reminder question only the digits shown choose: a letter (the "t" of a typed
  /// "thanks") picks nothing.
  @Test func reminderQuestionTakesOnlyItsDigits() {
    let f = CLIFixture().initialise()
    let process = f.cli.interactive(["new"], extra: Self.colourTerminal)
    saveANewSession(process)
    #expect(process.expect("No thanks [3] "))
    // When "t", "h" and "n" are typed, then "1"
    process.write("thn")
    process.write("1")
    #expect(process.expect("In 3 hours\r\n"))
    #expect(process.expect("Add them now? [y/N] "))
    process.write("\r")
    let result = process.wait()
    // Then the letters chose nothing: the reminder is the digit's
    #expect(result.status == 0, "\(result)")
    #expect(!process.screenText.contains("Tomorrow\r\n"), "\(process.screenText)")
    #expect(process.screenText.contains("A gentle reminder will come"))
  }

  /// A missing editor is a setting to correct (exit 2), said before any question is asked;
  /// a missing output directory is a path to correct (exit 2), not a failing disk (11).
  @Test func exitCodesForValuesToCorrect() {
    let f = CLIFixture().initialise()
    let id = f.new()
    // A missing editor
    let process = f.cli.interactive(
      ["reflect", id, "--editor"], extra: ["EDITOR": "/nonexistent", "TERM": "dumb"])
    let result = process.wait()
    #expect(result.status == 2, "\(result)")
    #expect(
      result.stderr.hasPrefix(#"journal: error: the editor "/nonexistent" was not found"#),
      "\(result)")
    #expect(!process.screenText.contains("Mood after"), "asked before it failed")
    // A missing output directory
    let export = f.run("export", "--output", f.home.file("no-such-directory/out.json"))
    #expect(export.status == 2, "\(export)")
    #expect(export.stderr.contains("its directory does not exist"), "\(export)")
  }

  /// A value that starts with "-" after an option that needs one is not "missing": the
  /// message says to join it with "=", and that works.
  @Test func dashValueSaysToJoinIt() {
    let f = CLIFixture().initialise()
    let dose = f.run("new", "--intention", "x", "--mood-before", "5", "--dose", "-5 kg")
    #expect(dose.status == 2)
    #expect(
      dose.stderr == """
        journal: error: the value after --dose starts with "-" and reads as an option
        journal: hint: write it joined with "=": --dose=… (for example --dose=-5)

        """)
    let limit = f.run("list", "-n", "-1")
    #expect(limit.stderr.hasPrefix(#"journal: error: the value after -n starts with "-""#))
    // As the hint says
    let joined = f.run("new", "--intention", "x", "--mood-before", "5", "--dose=-5 kg")
    #expect(joined.status == 0, "\(joined)")
    #expect(f.show(joined.stdout.trimmingCharacters(in: .newlines))["dose"] as? String == "-5 kg")
  }

  /// A bare day word in a filter means the whole day, as a bare date does: `--since today`
  /// finds this morning's session; `--until yesterday` does not. A range that ends before it
  /// starts is refused, said so.
  @Test func dayWordsMeanTheWholeDay() {
    // Given a session this morning, and the clock at 20:00
    let f = CLIFixture(extra: ["JOURNAL_DEBUG_NOW": "2026-11-21T20:00:00Z"]).initialise()
    let id = f.new()  // dated 2026-11-20 18:00
    let morning = f.run(
      "new", "--intention", "a morning", "--mood-before", "6", "--date", "2026-11-21 09:00"
    ).stdout.trimmingCharacters(in: .newlines)
    // Then
    let today = f.run("list", "--since", "today")
    #expect(today.stdout.contains(morning) && !today.stdout.contains(id), "\(today)")
    let untilYesterday = f.run("list", "--until", "yesterday")
    #expect(
      untilYesterday.stdout.contains(id) && !untilYesterday.stdout.contains(morning),
      "\(untilYesterday)")
    let yesterday = f.run("list", "--since", "yesterday", "--until", "yesterday")
    #expect(yesterday.stdout.contains(id) && !yesterday.stdout.contains(morning), "\(yesterday)")
    let empty = f.run("list", "--since", "today", "--until", "yesterday")
    #expect(empty.status == 2)
    #expect(
      empty.stderr.hasPrefix(
        "journal: error: the dates after --since and --until make an empty range"), "\(empty)")
  }

  /// `reflect` up to its environment question, the mood and reflection skipped.
  func reflectUpToTheEnvironment(_ f: CLIFixture, _ id: String) -> Spawned {
    let process = f.cli.interactive(["reflect", id], extra: Self.colourTerminal)
    #expect(process.expect("Mood after"))
    process.write("\r")
    #expect(process.expect("Reflection — what stays with you"))
    process.write("\u{04}")
    #expect(process.expect("Environment — where, and with whom "))
    return process
  }

  /// The end of `reflect` after the environment: music skipped, the session left waiting.
  func finishReflect(_ process: Spawned) -> CLI.Result {
    #expect(process.expect("Music notes "))
    process.write("\r")
    #expect(process.expect("Leave it here for now? [y/N] "))
    process.write("\r")
    return process.wait()
  }

  /// Ctrl-W erases the word before the cursor, as in a shell.
  @Test func ctrlWErasesAWord() {
    let f = CLIFixture().initialise()
    let id = f.new()
    let process = reflectUpToTheEnvironment(f, id)
    process.write("by the sea")
    #expect(process.expect("by the sea"))
    process.write("\u{17}")
    process.write("lake\r")
    #expect(finishReflect(process).status == 0)
    #expect(f.show(id)["environment"] as? String == "by the lake")
  }

  /// Bytes that are not UTF-8, typed or pasted at a prompt, are refused as on standard input,
  /// never kept as U+FFFD: the question is asked again.
  @Test func invalidUTF8AtAPromptIsRefused() {
    let f = CLIFixture().initialise()
    let id = f.new()
    let process = reflectUpToTheEnvironment(f, id)
    process.write(bytes: Array("caf".utf8) + [0xE9, 0x0D])  // Latin-1 "café" and Enter
    #expect(process.expect("not UTF-8"))
    process.write("by the sea\r")
    #expect(finishReflect(process).status == 0)
    #expect(f.show(id)["environment"] as? String == "by the sea")
  }

  /// A 100 KB paste into a one-line answer is echoed as its start and its length, not a
  /// thousand lines of scrolling; Enter then refuses it for the dose, which is asked again.
  @Test func hugePasteIntoAOneLineAnswer() {
    let f = CLIFixture().initialise()
    let process = f.cli.interactive(["new"], extra: Self.colourTerminal)
    #expect(process.expect("When was it? [now] "))
    process.write("2026-11-20 19:00\r")
    #expect(process.expect("Treatment [psilocybin] "))
    process.write("\r")
    #expect(process.expect("Dose (optional) "))
    process.write("\u{1B}[200~" + String(repeating: "x", count: 100_000) + "\u{1B}[201~")
    #expect(process.expect("(100000 characters pasted)"))
    #expect(process.screenText.count < 5_000, "the paste was echoed whole")
    process.write("\r")
    #expect(process.expect("Dose (optional) ", occurrence: 2))
    process.signal(SIGTERM)
    _ = process.wait()
  }

  /// Small words kept exact: a cancel with no reminder to cancel says so; `journal` alone
  /// is a few lines that start with "journal init"; a date before 1900 says what to do.
  @Test func smallWordsAreExact() {
    let f = CLIFixture().initialise()
    let id = f.new()
    let cancel = f.run("remind", id, "--cancel")
    #expect(cancel.status == 0)
    #expect(cancel.stderr == "journal: session \(id) had no reminder; nothing was changed\n")
    let bare = f.run()
    #expect(bare.status == 0)
    #expect(bare.stdout.split(separator: "\n").count <= 12, "\(bare)")
    #expect(bare.stdout.contains("journal init"))
    let old = f.run("new", "--intention", "x", "--mood-before", "5", "--date", "1899-12-31")
    #expect(old.status == 2)
    #expect(old.stderr.contains("journal: hint: "), "\(old)")
  }
}
