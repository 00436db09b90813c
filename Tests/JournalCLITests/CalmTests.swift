import Foundation
import JournalTestSupport
import Testing

/// The calm terminal: the mood slider, plain mode, the settings file, trends, integration
/// prompts and narrow terminals, end to end.
@Suite(.serialized) struct CalmTests {
  private static let colourTerminal = ["TERM": "xterm-256color", "COLUMNS": "80", "NO_COLOR": ""]

  /// The "Now" form's date, treatment, dose and intention.
  private func answerUpToTheMood(_ process: Spawned) {
    #expect(process.expect("When was it? [now] "))
    process.write("2026-11-20 19:00\n\n\n")
    #expect(process.expect("Intention — what you bring to this session"))
    process.write("to arrive\n.\n")
  }

  /// After saving: no reminder, and the later fields another time.
  private func declineReminderAndLaterFields(_ process: Spawned, spoken: Bool = false) {
    // Plain mode asked for words its questions for the ear
    #expect(process.expect(spoken ? "(Enter for no thanks) " : "No thanks [3] "))
    process.write("\r")
    #expect(
      process.expect(spoken ? "Enter for no) " : "Add them now? [y/N] "))
    process.write("n\n")
  }

  /// Answers the "Now" form up to the mood, then the slider: → → ← and Tab chooses 6.
  @Test func moodSliderMovesWithArrowsAndRedrawsInPlace() {
    let f = CLIFixture().initialise()
    let process = f.cli.interactive(["new"], extra: Self.colourTerminal)
    answerUpToTheMood(process)
    #expect(process.expect("5 😐 neutral"))
    #expect(process.screenText.contains("\u{1B}[36m●●●●●\u{1B}[0m○○○○○"))
    process.write("\u{1B}[C\u{1B}[C")
    #expect(process.expect("7 😊 good"))
    process.write("\u{1B}[D")
    #expect(process.expect("6 🙂 steady"))
    process.write("\t")
    declineReminderAndLaterFields(process)
    let result = process.wait()
    #expect(result.status == 0, "\(result)")
    #expect(process.screenText.contains("\r\u{1B}[K  Mood before"))
    #expect(f.show(result.stdout.trimmingCharacters(in: .newlines))["mood_before"] as? Int == 6)
  }

  /// A digit jumps; "0" is 10; the optional mood after can be skipped with Enter.
  @Test func moodSliderDigitsAndSkipping() {
    let f = CLIFixture().initialise()
    let id = f.new()
    let process = f.cli.interactive(["reflect", id], extra: Self.colourTerminal)
    #expect(process.expect("not chosen"))
    process.write("0")
    #expect(process.expect("10 🤩 wonderful"))
    process.write("\u{7F}")
    #expect(process.expect("not chosen", occurrence: 2))
    process.write("\r")
    #expect(process.expect("Reflection — what stays with you"))
    process.write("quiet\n.\n")
    #expect(process.expect("Environment — where, and with whom "))
    process.write("\n\n")
    #expect(process.wait().status == 0)
    let session = f.show(id)
    #expect(session["mood_after"] is NSNull)
    #expect(session["reflection"] as? String == "quiet")
  }

  /// TERM=dumb: the whole guided form, list and show, without a single escape sequence,
  /// and the mood asked with a numbered prompt that names every value.
  @Test(arguments: [["TERM": "dumb"], ["TERM": "xterm-256color", "JOURNAL_PLAIN": "1"]])
  func plainModeHasNoEscapeSequences(environment: [String: String]) {
    let f = CLIFixture().initialise()
    let extra = environment.merging(["NO_COLOR": "", "COLUMNS": "60"]) { $1 }
    let process = f.cli.interactive(["new"], extra: extra)
    answerUpToTheMood(process)
    #expect(process.expect("10\u{A0}wonderful"))
    #expect(process.expect("Mood before, 1 (low) to 10 (high) "))
    process.write("7\n")
    declineReminderAndLaterFields(process, spoken: environment["JOURNAL_PLAIN"] != nil)
    let result = process.wait()
    #expect(result.status == 0, "\(result)")
    let id = result.stdout.trimmingCharacters(in: .newlines)
    let list = f.run("list", extra: extra)
    let show = f.run("show", id, extra: extra)
    let trends = f.run("trends", extra: extra)
    for text in [process.screenText, result.stderr, list.stdout, show.stdout, trends.stdout] {
      #expect(!text.contains("\u{1B}"), "\(text.debugDescription)")
      #expect(!text.contains("😊"))
    }
    // Plain mode asked for is written for the ear; a terminal that can do little gets the
    // plain layout
    let spoken = environment["JOURNAL_PLAIN"] != nil
    #expect(show.stdout.contains(spoken ? "Mood before: 7, good" : "Mood before   7 (good)"))
    // On a real terminal too, where colour would otherwise be on.
    if FileManager.default.isExecutableFile(atPath: "/usr/bin/script") {
      for command in ["list", "show \(id)", "trends", "status"] {
        let onTerminal = f.cli.runProgram(
          ["/usr/bin/script", "-qec", "\(CLI.binary) \(command)", "/dev/null"], extra: extra)
        #expect(onTerminal.status == 0, "\(command): \(onTerminal)")
        #expect(
          !onTerminal.stdout.contains("\u{1B}"), "\(command): \(onTerminal.stdout.debugDescription)"
        )
      }
    }
    #expect(show.stdout.contains(spoken ? "Environment: none" : "Environment   none"))
    #expect(!trends.stdout.contains("▁") && trends.stdout.contains("By month"))
  }

  /// The settings file: plain mode from it; a line that cannot be used stops every command
  /// with the line's number (exit 2), and the vault is not touched.
  @Test func settingsFile() throws {
    let f = CLIFixture().initialise()
    let id = f.new()
    try FileManager.default.createDirectory(
      atPath: f.home.file(".config/journal"), withIntermediateDirectories: true)
    let config = f.home.write(".config/journal/config", "plain = on\n")
    let plain = f.run("show", id, extra: ["TERM": "xterm-256color"])
    #expect(plain.stdout.contains("Mood before: 5, neutral"), "\(plain)")
    f.home.write(".config/journal/config", "plain = on\nbeep\n")
    let refused = f.run("list")
    #expect(refused.status == 2)
    #expect(
      refused.stderr == """
        journal: error: line 2 of the settings file "\(config)" cannot be used: it has no "="
        journal: hint: the settings are listed in "man journal"; fix or remove that line

        """)
    chmod(config, 0o666)
    #expect(f.run("list").status == 8)
  }

  /// trends: tables for a pipe, sparklines for a full terminal, JSON for programs.
  @Test func trends() throws {
    let f = CLIFixture().initialise()
    let first = f.new("--mood-before", "3", "--date", "2026-10-02 18:00")
    _ = f.new("--mood-before", "6", "--treatment", "mdma", "--date", "2026-11-02 18:00")
    #expect(f.run("reflect", first, "--mood-after", "8").status == 0)
    let plain = f.run("trends")
    #expect(plain.status == 0, "\(plain)")
    #expect(
      plain.stdout == """
        Mood before and after: 2 sessions, October 2026 to November 2026

        By month
          month    sessions  before  with after  after  change
          2026-10         1     3.0           1    8.0    +5.0
          2026-11         1     6.0           0   none    none

        By treatment
          treatment   sessions  before  with after  after  change
          MDMA               1     6.0           0   none    none
          Psilocybin         1     3.0           1    8.0    +5.0

        "before" averages every session; "after" and "change" (after − before) only the sessions with a mood after.

        """)
    let full = f.run("trends", extra: ["TERM": "xterm-256color"])
    #expect(full.stdout.contains("  before  ▂▅  average 4.5\n"))
    #expect(full.stdout.contains("  after   ▆\u{A0}  average 8.0 (1 without one yet)\n"))
    let json = try #require(
      try JSONSerialization.jsonObject(with: Data(f.run("trends", "--json").stdout.utf8))
        as? [String: Any])
    #expect(json["schema_version"] as? Int == 1)
    let overall = json["overall"] as? [String: Any]
    #expect(overall?["sessions"] as? Int == 2)
    #expect(overall?["average_mood_before"] as? Double == 4.5)
    #expect((json["months"] as? [Any])?.count == 2)
  }

  @Test func trendsOfAnEmptyJournal() {
    let f = CLIFixture().initialise()
    let result = f.run("trends")
    #expect(result.status == 0)
    #expect(result.stderr == "journal: no sessions yet; \"journal new\" logs your first\n")
  }

  /// Integration prompts: off by default; when on, a week after a session its line shows.
  @Test func integrationPromptAWeekLater() {
    // Given a session on 2026-11-14, and journal's clock (debug builds) at 2026-11-21
    let f = CLIFixture(extra: ["JOURNAL_DEBUG_NOW": "2026-11-21T15:00:00Z"]).initialise()
    let id = f.new("--date", "2026-11-14 00:30")
    #expect(!f.run("list").stderr.contains("since the session"))
    let on = f.run("list", extra: ["JOURNAL_INTEGRATION_PROMPTS": "on"])
    #expect(on.status == 0)
    #expect(on.stderr.contains("journal: a week since the session of "), "\(on)")
    #expect(on.stderr.contains("its intention is there to revisit (journal show \(id))"))
    #expect(on.stderr.contains("can go in a note: journal note \(id)"))
    #expect(!on.stderr.contains("to listen inward"))
  }

  /// At 40 columns on a real terminal, list takes two lines a session (wrapped further when
  /// needed) and cuts nothing.
  @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script")))
  func narrowList() {
    let f = CLIFixture().initialise()
    let id = f.new("--treatment", "other:a long custom ceremony name")
    let result = f.cli.runProgram(
      ["/usr/bin/script", "-qec", "\(CLI.binary) list", "/dev/null"],
      extra: ["COLUMNS": "40", "TERM": "xterm-256color"])
    let lines = result.stdout.replacingOccurrences(of: "\r", with: "")
      .split(separator: "\n")
    #expect(lines.count == 3, "\(result)")  // id and date; mood and treatment; status
    #expect(lines.allSatisfy { $0.count <= 40 })
    #expect(lines.first?.hasPrefix(id) == true)
    #expect(result.stdout.contains("a long custom ceremony name"))
    #expect(result.stdout.contains("needs reflection"))
  }
}
