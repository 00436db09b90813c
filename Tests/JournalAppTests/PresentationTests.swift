import Foundation
import JournalApp
import JournalCore
import JournalDiagnostics
import JournalTerminal
import JournalTestSupport
import Testing

/// Plain mode, wrapping, the settings file and the mood slider's keys.
struct PresentationTests {
  // MARK: - Plain mode

  @Test(
    arguments: [
      (false, [:], true),
      (false, ["TERM": "dumb"], true),
      (false, ["TERM": "xterm-256color"], false),
      (true, ["TERM": "xterm-256color"], true),
      (false, ["TERM": "xterm", "JOURNAL_PLAIN": "on"], true),
      (false, ["TERM": "xterm", "JOURNAL_PLAIN": "0"], false),
    ] as [(Bool, [String: String], Bool)])
  func plainIsChosenByFlagSettingOrTerminal(flag: Bool, environment: [String: String], plain: Bool)
    throws
  {
    #expect(try Setting.isPlain(flag: flag, environment: environment) == plain)
  }

  @Test func aPlainSettingThatIsNotYesOrNoIsRefused() {
    #expect(throws: AppError.self) {
      try Setting.isPlain(flag: false, environment: ["JOURNAL_PLAIN": "sometimes"])
    }
  }

  @Test func plainNeverHasColour() {
    #expect(Presentation(plain: true, colour: true, width: 80).colour == false)
    #expect(Presentation.colourAllowed(environment: ["NO_COLOR": "1"]) == false)
    #expect(Presentation.colourAllowed(environment: ["NO_COLOR": ""]) == true)
  }

  // MARK: - Wrapping

  @Test func wrapsAtSpacesAndIndentsWhatFollows() {
    let lines = Wrap.lines("  one two three four five six", width: 12, indent: "    ")
    #expect(lines == ["  one two", "    three", "    four", "    five six"])
    #expect(lines.allSatisfy { Wrap.columns($0) <= 12 })
  }

  /// A word that fits a line, but not after the indent, gets less of the indent, so the
  /// terminal never cuts it; one longer than the line is left whole.
  @Test func aLongWordGetsLessIndentRatherThanBeCut() {
    let word = String(repeating: "w", count: 38)
    #expect(Wrap.lines("    " + word, width: 40) == ["  " + word])
    #expect(Wrap.lines("ab " + word, width: 40, indent: "    ") == ["ab", "  " + word])
  }

  @Test func keepsLineBreaksAndLongWords() {
    #expect(Wrap.lines("a\n\nb", width: 10) == ["a", "", "b"])
    #expect(Wrap.lines("supercalifragilistic x", width: 8) == ["supercalifragilistic", "x"])
  }

  /// A quoted command is never broken across lines where it fits on one, so that it can be
  /// copied whole; one longer than a line breaks at its spaces as any words do.
  @Test func keepsQuotedCommandsWhole() {
    let text = #"journal: add them with "journal reflect 85ae550a" when ready"#
    let lines = Wrap.lines(text, width: 30, indent: "  ")
    #expect(lines == ["journal: add them with", #"  "journal reflect 85ae550a""#, "  when ready"])
    let long = Wrap.lines(#"see "a b c d e f g h" now"#, width: 8)
    #expect(long == [#"see "a b"#, "c d e f", #"g h" now"#])
  }

  @Test func countsEmojiAndWideCharactersAsTwoColumns() {
    #expect(Wrap.columns("🙂") == 2)
    #expect(Wrap.columns("日本") == 4)
    #expect(Wrap.columns("é") == 1)
    #expect(Wrap.columns("e\u{301}") == 1)
    #expect(Wrap.columns("\u{1B}[33m● needs reflection\u{1B}[0m") == 18)
  }

  // MARK: - The settings file

  @Test func settingsBecomeEnvironmentVariablesAndTheEnvironmentWins() throws {
    let directory = TemporaryDirectory()
    let path = directory.write(
      "config",
      """
      # calm settings
      plain = on
      undo-window = "30s"

      integration-prompts=yes
      """)
    let environment = try ConfigFile.apply(to: [
      "JOURNAL_CONFIG": path, "JOURNAL_UNDO_WINDOW": "2m",
    ])
    #expect(environment["JOURNAL_PLAIN"] == "on")
    #expect(environment["JOURNAL_UNDO_WINDOW"] == "2m")
    #expect(environment["JOURNAL_INTEGRATION_PROMPTS"] == "yes")
  }

  @Test func anUnknownSettingNamesItsLine() throws {
    #expect(
      throws: AppError.configLine(path: "c", line: 2, problem: #"there is no setting "colour""#)
    ) {
      try ConfigFile.parse("plain = on\ncolour = on\n", path: "c")
    }
    #expect(throws: AppError.configLine(path: "c", line: 1, problem: #"it has no "=""#)) {
      try ConfigFile.parse("plain\n", path: "c")
    }
  }

  @Test func aSettingsFileOthersCanWriteIsRefused() throws {
    let directory = TemporaryDirectory()
    let path = directory.write("config", "plain = on\n", mode: 0o666)
    #expect(throws: AppError.configUnsafe(path: path)) {
      try ConfigFile.apply(to: ["JOURNAL_CONFIG": path])
    }
  }

  /// A file written on Windows: each line still its own.
  @Test func windowsLineEndings() throws {
    let settings = try ConfigFile.parse("plain = on\r\nundo-window = 30s\r\n", path: "c")
    #expect(settings == ["JOURNAL_PLAIN": "on", "JOURNAL_UNDO_WINDOW": "30s"])
  }

  /// A yes/no setting with another value names its line at once.
  @Test func aYesNoSettingIsCheckedWithItsLine() {
    #expect(throws: AppError.configLine(path: "c", line: 2, problem: #""plain" takes on or off"#)) {
      try ConfigFile.parse("undo-window = 30s\nplain = on # quiet\n", path: "c")
    }
  }

  /// A symbolic link, a FIFO (which must not hang), or a directory others can write to.
  @Test func linksPipesAndOpenDirectoriesAreRefused() throws {
    let directory = TemporaryDirectory()
    let real = directory.write("real", "plain = on\n")
    let link = directory.file("link")
    symlink(real, link)
    #expect(throws: AppError.configUnsafe(path: link)) {
      try ConfigFile.apply(to: ["JOURNAL_CONFIG": link])
    }
    let fifo = directory.file("fifo")
    mkfifo(fifo, 0o600)
    #expect(throws: AppError.configUnreadable(path: fifo, errno: EINVAL)) {
      try ConfigFile.apply(to: ["JOURNAL_CONFIG": fifo])
    }
    let open = directory.file("open")
    mkdir(open, 0o777)
    chmod(open, 0o777)
    let inside = directory.write("open/config", "plain = on\n")
    #expect(throws: AppError.configUnsafe(path: inside)) {
      try ConfigFile.apply(to: ["JOURNAL_CONFIG": inside])
    }
  }

  @Test func noSettingsFileChangesNothing() throws {
    let directory = TemporaryDirectory()
    let environment = ["HOME": directory.path, "TERM": "xterm"]
    #expect(try ConfigFile.apply(to: environment) == environment)
  }

  // MARK: - The mood slider

  private func slider(current: Int? = nil, optional: Bool = false, clearable: Bool = false)
    -> MoodSlider
  {
    MoodSlider(
      question: MoodQuestion(
        field: optional ? .moodAfter : .moodBefore, prompt: "", current: current.flatMap(Mood.init),
        optional: optional, clearable: clearable))
  }

  private func keys(_ text: String, on slider: inout MoodSlider) -> Bool {
    var chose = false
    for byte in text.utf8 where !chose { chose = slider.press(byte) }
    return chose
  }

  @Test func aRequiredMoodStartsInTheMiddleAndMovesWithinOneToTen() {
    var s = slider()
    #expect(s.value == 5)
    for _ in 0..<8 { s.step(1) }
    #expect(s.value == 10)
    for _ in 0..<12 { s.step(-1) }
    #expect(s.value == 1)
    #expect(keys("l\r", on: &s))
    #expect(s.answer == "2")
  }

  @Test func digitsJumpAndZeroIsTen() {
    var s = slider()
    #expect(!keys("7", on: &s))
    #expect(s.value == 7)
    #expect(keys("10\t", on: &s))
    #expect(s.answer == "10")
  }

  @Test func anOptionalMoodLeftAloneIsSkipped() {
    var s = slider(optional: true)
    #expect(s.value == nil)
    #expect(keys("\r", on: &s))
    #expect(s.answer == "")
    var moved = slider(optional: true)
    moved.step(1)
    #expect(moved.value == 5)
  }

  @Test func editingKeepsTheCurrentValueOrClearsIt() {
    var kept = slider(current: 6, optional: true, clearable: true)
    #expect(keys("\r", on: &kept))
    #expect(kept.answer == "")
    var cleared = slider(current: 6, optional: true, clearable: true)
    #expect(keys("-\r", on: &cleared))
    #expect(cleared.answer == "-")
    var required = slider(current: 6)
    #expect(keys("\u{7F}\r", on: &required))
    #expect(required.answer == "")
  }

  @Test func theLineShowsDotsFaceAndWordAndDropsTheDotsWhenNarrow() {
    var s = slider()
    s.step(2)
    #expect(s.line(width: 80, colour: false) == "  Mood before  ●●●●●●●○○○  7 😊 good")
    #expect(s.line(width: 30, colour: false) == "  Mood before  7 😊 good")
    #expect(s.line(width: 80, colour: true).contains("\u{1B}[36m●●●●●●●\u{1B}[0m○○○"))
    #expect(slider(optional: true).line(width: 80, colour: false).hasSuffix("not chosen"))
    // At 20 columns the line still fits one row: only the value and its word.
    for _ in 0..<3 { s.step(1) }
    #expect(s.line(width: 20, colour: false) == "  10 wonderful")
    #expect(Wrap.columns(s.line(width: 20, colour: false)) < 20)
  }

  // MARK: - Plain prompts

  /// The plain mood prompt: every value with its word, then the numbered question.
  @Test func plainMoodPromptGolden() throws {
    let f = try AppFixture()
    let terminal = ScriptedTerminal(
      [.line(""), .line(""), .line(""), .text("to rest"), .line("6")],
      presentation: Presentation(plain: true, colour: false, width: 60))
    var draft = SessionDraft(id: f.context.newSessionID())
    try Forms(terminal: terminal, context: f.context).fillNow(&draft, skipping: [])
    #expect(
      terminal.transcript == """
        Now — before the session
          When was it? [now] 
          Treatments: psilocybin, mdma, ketamine, lsd, ayahuasca,
            mescaline, dmt, ibogaine, cannabis, other:<name>
          Treatment [psilocybin] 
          Dose (optional) 
          Intention — what you bring to this session (end with
            Ctrl-D or a line holding only ".")
        to rest
        .
          1\u{A0}very\u{A0}low, 2\u{A0}low, 3\u{A0}heavy, 4\u{A0}unsettled, 5\u{A0}neutral,
            6\u{A0}steady, 7\u{A0}good, 8\u{A0}bright, 9\u{A0}very\u{A0}good, 10\u{A0}wonderful
          Mood before, 1 (low) to 10 (high) 6

        """)
    #expect(draft.moodBefore == Mood(6))
  }
}
