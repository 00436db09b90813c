import Foundation
import GRDB
import Glibc
import JournalTestSupport
import Testing

/// The smaller doors of issue 31, each tried as an attacker or an accident would: an output
/// that fails after a save, a FIFO or a never-ending command as the passphrase's source, a
/// passphrase that is not UTF-8, a recovery code's file with an empty first line.
struct DoorTests {
  /// `new` whose standard output cannot be written: the session was saved, and it says so
  /// (exit 11) with how to see it, never "nothing in the journal was changed".
  @Test func savedThenOutputFails() {
    let f = CLIFixture().initialise()
    let result = f.cli.runProgram([
      "/bin/sh", "-c", #"exec "$0" new --intention "x y" --mood-before 5 > /dev/full"#,
      CLI.binary,
    ])
    #expect(result.status == 11, "\(result)")
    #expect(result.stderr.contains("was saved, but standard output could not be written"))
    #expect(!result.stderr.contains("nothing in the journal was changed"))
    #expect(f.sessions().count == 1)
  }

  /// A FIFO named as the passphrase file is refused at once (it would wait for a writer for
  /// ever); so is a directory.
  @Test func fifoAsPassphraseFile() {
    let f = CLIFixture().initialise()
    let fifo = f.home.file("fifo")
    #expect(mkfifo(fifo, 0o600) == 0)
    for path in [fifo, f.home.path] {
      let result = f.run("list", "--passphrase-file", path)
      #expect(result.status == 9, "\(result)")
      #expect(result.stderr.contains("is not a regular file"), "\(result.stderr)")
    }
  }

  /// A passphrase command that never prints is stopped after its time, with exit 9 and a
  /// line saying so (the tests' time is a second; a person's is two minutes).
  @Test func passphraseCommandThatNeverEnds() {
    let f = CLIFixture().initialise()
    let result = f.run(
      "list",
      extra: [
        "JOURNAL_PASSPHRASE_FILE": "", "JOURNAL_PASSPHRASE_COMMAND": "exec sleep 100",
        "JOURNAL_DEBUG_PASSPHRASE_TIMEOUT": "1",
      ])
    #expect(result.status == 9, "\(result)")
    #expect(result.stderr.contains("printed no passphrase within 1 s"), "\(result.stderr)")
  }

  /// A new passphrase that is not UTF-8 is refused (SECURITY.md says a passphrase is UTF-8):
  /// no vault is made.
  @Test func passphraseNotUTF8() throws {
    let home = TemporaryDirectory()
    let file = home.file("pass")
    try Data([0xFF, 0xFE, 0x61, 0x62, 0x63, 0x64, 0x65, 0x66, 0x67, 0x0A]).write(
      to: URL(fileURLWithPath: file))
    chmod(file, 0o600)
    let cli = CLI(home: home.path, extra: ["JOURNAL_PASSPHRASE_FILE": file])
    let result = cli.run(["init", "--kdf", "interactive"])
    #expect(result.status == 2, "\(result)")
    #expect(result.stderr.contains("not valid UTF-8"))
    #expect(!FileManager.default.fileExists(atPath: home.path + "/.local/share/journal/vault.db"))
  }

  /// A recovery code's file whose first line is empty is said to be that, not "the
  /// passphrase is empty".
  @Test func emptyRecoveryCodeFile() {
    let f = CLIFixture().initialise()
    #expect(f.run("recovery-code").status == 0)
    let code = f.home.write("code", "\nABCD\n")
    chmod(code, 0o600)
    let result = f.run(
      "passwd", "--recovery-code", extra: ["JOURNAL_RECOVERY_CODE_FILE": code])
    #expect(result.status == 9, "\(result)")
    #expect(result.stderr.contains("the recovery code's file has an empty first line"))
  }

  /// `reminders daemon` with a poll of 0 s is refused (it spun a core), with what to set.
  @Test func daemonPollOfZero() {
    let f = CLIFixture().initialise()
    let result = f.run("reminders", "daemon", extra: ["JOURNAL_DAEMON_POLL": "0s"])
    #expect(result.status == 2, "\(result)")
    #expect(result.stderr.contains("JOURNAL_DAEMON_POLL"))
  }

  /// An endless standard input for a field (`yes | journal new --intention -`) is refused
  /// once past the field's limit, instead of being read until memory runs out.
  @Test func endlessStandardInput() {
    let f = CLIFixture().initialise()
    let result = f.cli.runProgram([
      "/bin/sh", "-c", #"yes | exec "$0" new --intention - --mood-before 5"#, CLI.binary,
    ])
    #expect(result.status == 2, "\(result)")
    #expect(result.stderr.contains("intention"), "\(result.stderr)")
    #expect(f.sessions().isEmpty)
  }

  /// `status` and `unlock --status` purge a deletion whose window has closed, as every
  /// other command does.
  @Test(arguments: [["status"], ["unlock", "--status"]])
  func statusPurges(command: [String]) throws {
    let f = CLIFixture(extra: ["JOURNAL_UNDO_WINDOW": "10s"]).initialise()
    let id = f.new()
    #expect(
      f.run("delete", id, "--yes", extra: ["JOURNAL_DEBUG_NOW": "2026-11-26T10:00:00Z"]).status == 0
    )
    _ = f.cli.run(command, extra: ["JOURNAL_DEBUG_NOW": "2026-11-26T10:01:00Z"])
    let queue = try DatabaseQueue(path: f.vaultPath)
    defer { try? queue.close() }
    let tombstones = try queue.read { db in
      try Int.fetchOne(db, sql: "SELECT count(*) FROM tombstone")
    }
    #expect(tombstones == 1)
  }

  /// A crash (here a SIGSEGV sent to a form waiting for its first answer) ends journal with
  /// the signal and prints none of its memory or registers: the runtime's crash reporter is
  /// off.
  @Test func crashPrintsNoMemory() {
    let f = CLIFixture().initialise()
    let form = f.cli.interactive(["new"])
    #expect(form.expect("When was it?"))
    form.signal(SIGSEGV)
    let result = form.wait()
    #expect(result.status == 128 + SIGSEGV, "\(result)")
    #expect(!result.stderr.contains("Registers") && !result.stderr.contains("Backtrac"))
    #expect(!form.screenText.contains("Registers"))
  }

  /// Guarded memory that cannot be locked (the locked-memory limit at 0, and for root no
  /// CAP_IPC_LOCK) is said, once, and journal goes on.
  @Test func unlockedMemoryIsSaid() {
    let f = CLIFixture().initialise()
    _ = f.new()
    let limit = ["/usr/bin/prlimit", "--memlock=0:0", CLI.binary, "list"]
    let dropped =
      getuid() == 0
      ? ["/usr/bin/setpriv", "--bounding-set=-ipc_lock", "--inh-caps=-ipc_lock"] + limit : limit
    let result = f.cli.runProgram(dropped)
    #expect(result.status == 0, "\(result)")
    #expect(
      result.stderr.components(separatedBy: "could not be locked in memory").count == 2,
      "\(result.stderr)")
    #expect(!f.run("list").stderr.contains("could not be locked"))
  }
}
