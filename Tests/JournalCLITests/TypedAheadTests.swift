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
    #expect(process.screenText.contains("Nothing was deleted."), "\(process.screenText)")
    #expect(f.sessions().count == 1)
  }
}
