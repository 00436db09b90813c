import Foundation
import Glibc
import JournalTestSupport
import Testing

/// What was typed or pasted ahead of a question, and a terminal that goes away: nothing of
/// it runs in the shell or answers a question it was not typed for, and nothing being typed
/// is lost (issue 32, "Leaks and losses"). Real binary, real pseudo-terminal.
@Suite(.serialized) struct TypedAheadTests {
  static let colourTerminal = ["TERM": "xterm-256color", "COLUMNS": "80"]
  /// No passphrase file: the passphrase is asked on the terminal.
  static let askPassphrase = ["JOURNAL_PASSPHRASE_FILE": ""]

  /// What bash reads from the terminal once journal has ended, between brackets.
  static let readWhatIsLeft = #"IFS= read -r -t 2 left; printf 'LEFT[%s]\n' "$left""#

  /// A paste of the passphrase and a shell command behind it, at the passphrase prompt of a
  /// command that asks nothing else: the command never reaches the shell.
  @Test(arguments: [["list"], ["show", "PREFIX"], ["search", "listen"]])
  func pasteBehindThePassphraseNeverReachesTheShell(_ arguments: [String]) {
    // Given a session, and a command run from a shell that asks for the passphrase
    let f = CLIFixture().initialise()
    let id = f.new()
    let command = arguments.map { $0 == "PREFIX" ? id : $0 }.joined(separator: " ")
    let process = f.cli.shell(
      #"stty -echo; "$J" \#(command); "# + Self.readWhatIsLeft,
      extra: Self.askPassphrase.merging(Self.colourTerminal) { $1 })
    #expect(process.expect("Passphrase: "))
    // When the passphrase and a command are pasted in one piece
    process.write(CLIFixture.passphrase + "\recho PASTED\r")
    let result = process.wait()
    // Then journal did its work, and the shell was left nothing
    #expect(result.status == 0, "\(result)")
    #expect(result.stdout.contains(id), "\(result)")
    #expect(result.stdout.hasSuffix("LEFT[]\n"), "\(result.stdout)")
  }

  /// The same paste with journal's output going into a pipe already closed (`journal list |
  /// true`): journal ends by SIGPIPE at its first line, and the shell is still left nothing.
  @Test func pasteBehindThePassphraseWithItsOutputClosed() {
    let f = CLIFixture().initialise()
    _ = f.new()
    let process = f.cli.shell(
      #"stty -echo; "$J" list | true; "# + Self.readWhatIsLeft,
      extra: Self.askPassphrase.merging(Self.colourTerminal) { $1 })
    #expect(process.expect("Passphrase: "))
    process.write(CLIFixture.passphrase + "\recho PASTED\r")
    let result = process.wait()
    #expect(result.stdout.hasSuffix("LEFT[]\n"), "\(result.stdout)")
  }

  /// Ctrl-Z at the passphrase prompt gives the shell its terminal as it was (echo on), and
  /// `fg` gives journal its own back (echo off) with the prompt drawn again: the passphrase
  /// typed then is never shown. (dash, which leaves the terminal as it finds it, where
  /// bash's line editing would hide what journal left; through `script`, which gives it a
  /// controlling terminal, as a terminal window does.)
  @Test func ctrlZAtThePassphrase() {
    let f = CLIFixture().initialise()
    let id = f.new()
    var environment = f.cli.environment.merging(Self.askPassphrase) { $1 }
    environment.merge(["J": CLI.binary, "PS1": "$ ", "ENV": ""]) { $1 }
    let shell = Spawned(
      arguments: ["/bin/sh", "-c", "exec /usr/bin/script -qfc '/bin/dash -i' /dev/null >&0"],
      environment: environment, terminal: true)
    #expect(shell.expect("$ "))
    shell.write(#""$J" list"# + "\r")
    #expect(shell.expect("Passphrase: "))
    shell.write("\u{1A}")
    #expect(shell.expect("$ ", occurrence: 2))
    shell.write(
      #"printf 'ECHO[%s]\n' "$(stty -a | tr ' ;' '\n\n' | grep -x -e echo -e -echo)""# + "\r")
    #expect(shell.expect("ECHO[echo]"), "\(shell.screenText)")
    shell.write("fg\r")
    #expect(shell.expect("Passphrase: ", occurrence: 2), "drawn again once continued")
    shell.write(CLIFixture.passphrase + "\r")
    #expect(shell.expect(id), "\(shell.screenText)")
    shell.write("exit\r")
    _ = shell.wait()
    #expect(!shell.screenText.contains(CLIFixture.passphrase), "\(shell.screenText)")
  }

  /// Part of a line typed before the passphrase prompt (no Enter: the kernel counts no line
  /// yet) is dropped too, never the start of the passphrase.
  @Test func partOfALineBeforeThePassphraseIsDropped() {
    let f = CLIFixture().initialise()
    let process = f.cli.interactive(
      ["list"], extra: Self.askPassphrase.merging(Self.colourTerminal) { $1 },
      typedAhead: "abcdefgh")
    #expect(process.expect("Passphrase: "))
    process.write(CLIFixture.passphrase + "\r")
    let result = process.wait()
    #expect(result.status == 0, "\(result)")
    #expect(!process.screenText.contains("does not open this journal"), "\(process.screenText)")
  }

  /// A "y" pasted behind the passphrase never answers "Delete this session?": only a key
  /// pressed once the question is drawn does.
  @Test func yesPastedBehindThePassphraseDoesNotDelete() {
    // Given a session
    let f = CLIFixture().initialise()
    let id = f.new()
    let process = f.cli.interactive(
      ["delete", id], extra: Self.askPassphrase.merging(Self.colourTerminal) { $1 })
    #expect(process.expect("Passphrase: "))
    // When the passphrase and "y" are pasted in one piece
    process.write(CLIFixture.passphrase + "\ry\r")
    #expect(process.expect("Delete this session? [y/N] "))
    // Then the question waits for a key; Enter (no) keeps the session
    process.write("\r")
    let result = process.wait()
    #expect(result.status == 130, "\(result)")
    #expect(result.stderr == "journal: nothing was deleted\n", "\(result)")
    #expect(f.sessions().count == 1)
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

  /// The window closes while a line of the intention is half typed, journal started by a
  /// shell (so no SIGHUP reaches it, only reads that fail): the half line is in the draft.
  @Test func closedWindowKeepsTheLineBeingTyped() {
    // Given `journal new` run from a shell, the intention being typed
    let f = CLIFixture().initialise()
    let process = f.cli.shell(#""$J" new; true"#, extra: Self.colourTerminal)
    answerUpToTheIntention(process)
    process.write("to meet the fear\rand to rest aft")
    #expect(process.expect("and to rest aft"))
    // When the terminal itself goes away
    process.hangUp()
    _ = process.wait()
    // Then the next `journal new` resumes with both lines
    let resumed = f.cli.interactive(["new"], extra: Self.colourTerminal)
    #expect(resumed.expect("Resume it, discard it, or keep it for later? [R/d/k] "))
    resumed.write("r\r")
    #expect(resumed.expect("Dose (optional) "))
    resumed.write("\r")
    #expect(resumed.expect("and to rest aft"))
    resumed.write("\u{04}")
    #expect(resumed.expect("5 😐 neutral"), "\(resumed.screenText)")
    resumed.write("\r")
    #expect(resumed.expect("No thanks [3] "))
    resumed.write("\r")
    #expect(resumed.expect("Add them now? [y/N] "))
    resumed.write("\r")
    let result = resumed.wait()
    #expect(result.status == 0, "\(result)")
    #expect(
      f.show(result.stdout.trimmingCharacters(in: .newlines))["intention"] as? String
        == "to meet the fear\nand to rest aft")
  }

  /// The same in `reflect`: the reflection's half-typed line is kept when the window closes.
  @Test func closedWindowKeepsTheReflectionLine() {
    // Given `journal reflect` run from a shell, the reflection being typed
    let f = CLIFixture().initialise()
    let id = f.new()
    let process = f.cli.shell(#""$J" reflect \#(id); true"#, extra: Self.colourTerminal)
    #expect(process.expect("Mood after"))
    process.write("\r")
    #expect(process.expect("Reflection — what stays with you"))
    process.write("the light on the wall\rand the qui")
    #expect(process.expect("and the qui"))
    // When the terminal goes away
    process.hangUp()
    _ = process.wait()
    // Then the next `reflect` offers both lines, and Enter takes them up
    let again = f.cli.interactive(["reflect", id], extra: Self.colourTerminal)
    #expect(again.expect("is kept (2 lines)."), "\(again.screenText)")
    #expect(again.expect("Go on with it? [Y/n] "))
    again.write("\r")
    #expect(again.expect("Mood after"))
    again.write("\r")
    #expect(again.expect("and the qui"))
    again.write("et\r.\r")
    #expect(again.expect("Environment — where, and with whom "))
    again.write("\r")
    #expect(again.expect("Music notes "))
    again.write("\r")
    let result = again.wait()
    #expect(result.status == 0, "\(result)")
    #expect(f.show(id)["reflection"] as? String == "the light on the wall\nand the quiet")
  }

  /// On a terminal said to mark pastes that did not mark this one (the Linux console), an
  /// intention pasted with a "." line and a sentence behind it stays the intention; the
  /// slider is not moved by the sentence's letters.
  @Test func unmarkedPasteStaysInTheIntention() {
    let f = CLIFixture().initialise()
    let process = f.cli.interactive(["new"], extra: Self.colourTerminal)
    answerUpToTheIntention(process)
    // When the intention is pasted without paste markers, in one write
    process.write("my intention\r.\rI hope to feel 9 times lighter\r")
    #expect(process.expect("inside pasted text was kept as text"))
    #expect(!process.screenText.contains("Mood before"), "the paste ended the intention")
    process.write(".\r")
    #expect(process.expect("5 😐 neutral"))
    process.write("\r")
    #expect(process.expect("No thanks [3] "))
    process.write("\r")
    #expect(process.expect("Add them now? [y/N] "))
    process.write("\r")
    let result = process.wait()
    // Then the whole paste is the intention, and the mood is the one chosen
    #expect(result.status == 0, "\(result)")
    let session = f.show(result.stdout.trimmingCharacters(in: .newlines))
    #expect(session["intention"] as? String == "my intention\n.\nI hope to feel 9 times lighter")
    #expect(session["mood_before"] as? Int == 5)
  }

  /// Text pasted unmarked at the slider itself is a paste, not keys: it moves nothing and
  /// chooses nothing, and the screen says it was left out; a pasted number is taken.
  @Test func unmarkedPasteAtTheSliderIsNotKeys() {
    let f = CLIFixture().initialise()
    let process = f.cli.interactive(["new"], extra: Self.colourTerminal)
    answerUpToTheIntention(process)
    process.write("to arrive\r")
    #expect(process.expect("to arrive"))
    process.write(".\r")
    #expect(process.expect("5 😐 neutral"))
    // When a sentence is pasted at the slider, letters, a digit and Enter in one read
    process.write("I hope to feel 9 times lighter\r")
    #expect(process.expect("(pasted text is not a mood; it was left out)"))
    #expect(!process.screenText.contains("No thanks"), "the paste chose a mood")
    // And then a number alone is pasted, and Enter pressed
    process.write(" 7 \n")
    #expect(process.expect("7 😊 good"))
    process.write("\r")
    #expect(process.expect("No thanks [3] "))
    process.write("\r")
    #expect(process.expect("Add them now? [y/N] "))
    process.write("\r")
    let result = process.wait()
    #expect(result.status == 0, "\(result)")
    #expect(f.show(result.stdout.trimmingCharacters(in: .newlines))["mood_before"] as? Int == 7)
  }

  /// A passphrase typed ahead of `journal new` in a journal that asks none (capture is on)
  /// is dropped before "When was it?" is drawn: never an answer, never shown there.
  @Test func typedAheadBeforeTheFirstQuestionIsDropped() {
    // Given a new journal (capture on) and no passphrase at hand
    let f = CLIFixture().initialise()
    // When the passphrase is typed before journal has drawn anything
    let process = f.cli.interactive(
      ["new"], extra: Self.askPassphrase.merging(Self.colourTerminal) { $1 },
      typedAhead: "quiet forest morning\r")
    #expect(process.expect("When was it? [now] "))
    #expect(process.expect("(what was typed before this question was left out)"))
    process.write("\r")
    #expect(process.expect("Treatment [psilocybin] "))
    // Then it answered nothing: the date question took the Enter typed after it
    let asked = process.screenText.components(separatedBy: "When was it?").dropFirst()
      .joined()
    #expect(!asked.contains("quiet forest"), "\(process.screenText)")
    #expect(!process.screenText.contains("the date could not be read"), "\(process.screenText)")
    process.signal(SIGTERM)
    _ = process.wait()
  }

  /// Words typed before the passphrase prompt is drawn are dropped, never read as the
  /// passphrase (where a wrong one would cost a try): only what is typed after it counts.
  @Test func typedAheadBeforeThePassphraseIsDropped() {
    // Given a journal
    let f = CLIFixture().initialise()
    // When something is typed before `journal list` has drawn its prompt
    let process = f.cli.interactive(
      ["list"], extra: Self.askPassphrase.merging(Self.colourTerminal) { $1 },
      typedAhead: "not the passphrase\r")
    #expect(process.expect("Passphrase: "))
    #expect(process.expect("(what was typed before this question was left out)"))
    process.write(CLIFixture.passphrase + "\r")
    let result = process.wait()
    // Then the passphrase typed after the prompt opened the journal at the first try
    #expect(result.status == 0, "\(result)")
    #expect(!process.screenText.contains("does not open this journal"), "\(process.screenText)")
  }
}
