import Foundation
import JournalTestSupport
import Testing

/// Shell completion through the real binary: the generated bash script asks the binary for
/// session ids with ArgumentParser's hidden `---completion` arguments, and offers the known
/// treatments from a list written into it.
@Suite(.serialized) struct CompletionTests {
  /// A journal with one session whose treatment and intention are the person's own words.
  func fixture(_ runtime: AgentTests.Runtime) -> (CLIFixture, String) {
    let f = CLIFixture(extra: ["XDG_RUNTIME_DIR": runtime.path]).initialise()
    let id = f.new("--treatment", "other:San Pedro", "--intention", "to meet the quiet one")
    return (f, id)
  }

  /// What the bash script runs at Tab after `journal <command> ` (the word being completed
  /// empty): the binary, the hidden arguments, then the words on the line.
  static func asked(_ command: String, _ words: [String]) -> [String] {
    ["---completion", command, "--", "positional@0", String(words.count), "0", "journal"]
      + [command] + words + [""]
  }

  /// Every shell's script comes from the same command definitions as --help.
  @Test(arguments: ["bash", "zsh", "fish"])
  func completionScriptsNameEveryCommand(shell: String) {
    let f = CLIFixture()
    let result = f.run("--generate-completion-script", shell)
    #expect(result.status == 0)
    for command in ["reflect", "trends", "reminders", "passwd", "unlock"] {
      #expect(result.stdout.contains(command), "\(shell) lacks \(command)")
    }
    #expect(result.stdout.contains(shell == "fish" ? "'plain'" : "--plain"))
  }

  /// A shell journal has no script for is named as such, in one whole line.
  @Test func unknownShellIsSaidPlainly() {
    let result = CLIFixture().run("--generate-completion-script", "tcsh")
    #expect(result.status == 2)
    #expect(result.stdout.isEmpty)
    #expect(
      result.stderr
        == "journal: error: there is no completion script for that shell\n"
        + "journal: hint: choose bash, zsh or fish: journal --generate-completion-script bash\n")
  }

  /// The script's own request typed by hand, whole or not, is said to be that, not called
  /// an internal error.
  @Test(arguments: [["---completion"], ["---completion", "list"], ["---completion", "--", "x"]])
  func completionRequestByHand(_ arguments: [String]) {
    let result = CLIFixture().cli.run(arguments)
    #expect(result.status == 2, "\(result)")
    #expect(result.stdout.isEmpty)
    #expect(
      result.stderr
        == "journal: error: ---completion is the shell completion script's own request, not a command\n"
        + "journal: hint: install the script: journal --generate-completion-script bash (or zsh, fish)\n"
    )
  }

  /// The bash script is valid bash and registers a completion for journal.
  @Test func bashLoadsTheScript() throws {
    let f = CLIFixture()
    let script = f.home.write("journal.bash", f.run("--generate-completion-script", "bash").stdout)
    let result = f.cli.runProgram(
      ["/bin/bash", "-c", "source \(script) && complete -p journal"])
    #expect(result.status == 0, "\(result)")
    #expect(result.stdout.contains("journal"))
  }

  /// Session ids are offered only while the agent holds the key: locked, there are none,
  /// even with a passphrase file at hand, and nothing is printed to the terminal.
  @Test func idsOnlyWhileUnlocked() {
    let runtime = AgentTests.Runtime()
    let (f, id) = fixture(runtime)
    let locked = f.cli.run(Self.asked("show", []))
    #expect(locked.status == 0 && locked.stdout == "" && locked.stderr == "", "\(locked)")

    #expect(f.run("unlock", "--for", "5m").status == 0)
    defer { f.run("lock") }
    for command in ["show", "reflect", "edit", "delete", "remind"] {
      let unlocked = f.cli.run(Self.asked(command, []), extra: ["JOURNAL_PASSPHRASE_FILE": ""])
      #expect(unlocked.status == 0, "\(unlocked)")
      #expect(unlocked.stdout == id + "\n", "\(command): \(unlocked)")
      #expect(unlocked.stderr == "", "\(command): \(unlocked)")
    }
  }

  /// Only ids, never a word of a session: not the custom treatment, not the intention.
  @Test func neverAnyText() {
    let runtime = AgentTests.Runtime()
    let (f, _) = fixture(runtime)
    _ = f.new("--treatment", "mdma", "--reflection", "the light on the wall")
    #expect(f.run("unlock").status == 0)
    defer { f.run("lock") }
    let result = f.cli.run(Self.asked("show", []))
    let lines = result.stdout.split(separator: "\n")
    #expect(lines.count == 2, "\(result)")
    #expect(lines.allSatisfy { $0.count == 8 && $0.allSatisfy(\.isHexDigit) }, "\(result)")
  }

  /// A `--vault` on the line is the vault asked about: the agent's key opens only its own.
  @Test func vaultOnTheLine() {
    let runtime = AgentTests.Runtime()
    let (f, id) = fixture(runtime)
    let other = f.home.file("other/vault.db")
    #expect(f.run("init", "--kdf", "interactive", "--vault", other).status == 0)
    #expect(f.run("unlock").status == 0)
    defer { f.run("lock") }
    let elsewhere = f.cli.run(Self.asked("show", ["--vault", other]))
    #expect(elsewhere.status == 0 && elsewhere.stdout == "", "\(elsewhere)")
    let quoted = f.cli.run(Self.asked("show", ["--vault", "'\(f.vaultPath)'"]))
    #expect(quoted.stdout == id + "\n", "\(quoted)")
    let equals = f.cli.run(Self.asked("show", ["--vault=~/.local/share/journal/vault.db"]))
    #expect(equals.stdout == id + "\n", "\(equals)")
  }

  /// The script offers the known treatments after --treatment, and nothing of the vault's.
  @Test func treatmentsInTheScript() {
    let f = CLIFixture()
    let script = f.run("--generate-completion-script", "bash")
    #expect(script.status == 0)
    let offered =
      "'psilocybin'$'\\n''mdma'$'\\n''ketamine'$'\\n''lsd'$'\\n''ayahuasca'$'\\n''mescaline'"
      + "$'\\n''dmt'$'\\n''ibogaine'$'\\n''cannabis'$'\\n''other:'"
    // new and edit; export's filter offers "other" for every custom treatment.
    #expect(script.stdout.components(separatedBy: offered).count - 1 == 2)
    #expect(script.stdout.contains("'cannabis'$'\\n''other'\n"))
  }

  /// One real round trip in bash: the script, loaded by bash-completion from the user's
  /// completions directory as Scripts/install puts it, completes a treatment and, once
  /// unlocked, an id.
  @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/bin/bash")))
  func bashRoundTrip() throws {
    let runtime = AgentTests.Runtime()
    let (f, id) = fixture(runtime)
    let completions = f.home.file(".local/share/bash-completion/completions")
    try FileManager.default.createDirectory(
      atPath: completions, withIntermediateDirectories: true)
    let script = f.run("--generate-completion-script", "bash").stdout
    f.home.write(".local/share/bash-completion/completions/journal", script)
    let loader = "/usr/share/bash-completion/bash_completion"
    // Without bash-completion nothing would load the script; then it is sourced directly.
    let load =
      FileManager.default.fileExists(atPath: loader)
      ? "source \(loader); __load_completion journal || exit 3"
      : "source \(completions)/journal"
    let program = """
      \(load)
      complete -p journal
      ask() {
        COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
        COMPREPLY=()
        _journal journal "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
        echo "${COMPREPLY[*]}"
      }
      ask journal new --treatment ps
      ask journal show ''
      """
    let binaries = (CLI.binary as NSString).deletingLastPathComponent
    let path = ["PATH": "\(binaries):/usr/bin:/bin"]
    let bash = ["/bin/bash", "--norc", "--noprofile", "-c", program]
    let locked = f.cli.runProgram(bash, extra: path)
    #expect(
      locked.stdout == "complete -o filenames -F _journal journal\npsilocybin\n\n", "\(locked)")
    #expect(f.run("unlock").status == 0)
    defer { f.run("lock") }
    let unlocked = f.cli.runProgram(bash, extra: path)
    #expect(unlocked.stdout.hasSuffix("psilocybin\n\(id)\n"), "\(unlocked)")
    #expect(unlocked.stderr == "", "\(unlocked)")
  }
}
