import Foundation
import GRDB
import Glibc
import JournalTestSupport
import Testing

/// The unlock agent, with real processes and its real socket.
@Suite(.serialized) struct AgentTests {
  typealias Runtime = TestRuntimeDirectory

  /// Another session's runtime directory (`anotherSession`), where `lock` and a key change
  /// look for agents too, as they look in the user's real ones.
  let otherSession = Runtime()

  func fixture(_ runtime: Runtime) -> CLIFixture {
    CLIFixture(extra: [
      "XDG_RUNTIME_DIR": runtime.path,
      "JOURNAL_DEBUG_OTHER_RUNTIME_DIRECTORIES": runtime.path + "/journal:" + otherSession.path
        + "/journal",
    ]).initialise()
  }

  let locked = ["JOURNAL_PASSPHRASE_FILE": ""]

  /// Unlock, then commands need no passphrase source at all; lock, and the next asks again.
  @Test func unlockAndLock() {
    let runtime = Runtime()
    let f = fixture(runtime)
    let id = f.new()
    let unlocked = f.run("unlock", "--for", "10m")
    #expect(unlocked.status == 0, "\(unlocked)")
    #expect(unlocked.stderr.hasPrefix("journal: unlocked for 10 min of rest"))
    var info = stat()
    #expect(lstat(runtime.socket, &info) == 0 && info.st_mode & 0o777 == 0o600)
    #expect(f.run("show", id, extra: locked).status == 0)
    #expect(f.run("unlock", "--status").stdout.hasPrefix("unlocked: locks after "))
    #expect(f.run("lock").stderr == "journal: locked\n")
    #expect(f.run("unlock", "--status").stdout == "locked\n")
    let after = f.run("show", id, extra: locked)
    #expect(after.status == 9)
    #expect(f.run("lock").stderr == "journal: already locked\n")
  }

  /// While unlocked, the agent remembers the latest state of the vault: the vault put back
  /// whole together with this computer's record of it (both files rolled back) is still
  /// noticed, and `verify --accept` trusts it, after which the agent agrees.
  @Test func agentNoticesARollbackOfTheRecordToo() throws {
    let runtime = Runtime()
    let f = fixture(runtime)
    _ = f.new()
    #expect(f.run("unlock", "--for", "10m").status == 0)
    defer { f.run("lock") }
    let seen = f.home.path + "/.local/state/journal/seen"
    let backup = f.home.file("backup.db")
    #expect(f.run("backup", backup).status == 0)
    let records = f.home.file("seen-backup")
    try FileManager.default.copyItem(atPath: seen, toPath: records)
    _ = f.new()
    for suffix in ["", "-wal", "-shm"] { unlink(f.vaultPath + suffix) }
    try FileManager.default.copyItem(atPath: backup, toPath: f.vaultPath)
    try FileManager.default.removeItem(atPath: seen)
    try FileManager.default.copyItem(atPath: records, toPath: seen)
    let refused = f.run("list", extra: locked)
    #expect(refused.status == 12, "\(refused)")
    #expect(refused.stderr.contains("older than the one this computer last saw"))
    #expect(f.run("verify", "--accept", "--yes", extra: locked).status == 0)
    #expect(f.run("list", extra: locked).status == 0)
    #expect(f.sessions().count == 1)
  }

  // The idle timeout and the maximum lifetime are tested by moving a clock
  // (JournalAgentTests.AgentServerTests), not by waiting here.

  /// Another vault is never opened with the unlocked vault's key.
  @Test func otherVault() {
    let runtime = Runtime()
    let f = fixture(runtime)
    #expect(f.run("unlock").status == 0)
    let other = f.home.file("other/vault.db")
    #expect(f.run("init", "--kdf", "interactive", "--vault", other).status == 0)
    let result = f.run("list", "--vault", other, extra: locked)
    #expect(result.status == 9)
    f.run("lock")
  }

  /// Each vault has its own agent: unlocking B leaves A unlocked, each status tells the
  /// truth about the vault it names, and `lock` locks both.
  @Test func twoVaults() {
    let runtime = Runtime()
    let f = fixture(runtime)
    let a = f.new()
    let other = f.home.file("other/vault.db")
    #expect(f.run("init", "--kdf", "interactive", "--vault", other).status == 0)
    let b = f.new("--vault", other)
    #expect(f.run("unlock", "--status", "--vault", other).stdout == "locked\n")
    #expect(f.run("unlock").status == 0)
    #expect(f.run("unlock", "--status", "--vault", other).stdout == "locked\n")
    #expect(f.run("status", "--vault", other).stdout.hasSuffix("locked\n"))
    #expect(f.run("unlock", "--vault", other).status == 0)
    #expect(runtime.sockets.count == 2)
    #expect(f.run("unlock", "--status").stdout.hasPrefix("unlocked: "))
    #expect(f.run("unlock", "--status", "--vault", other).stdout.hasPrefix("unlocked: "))
    #expect(f.run("show", a, extra: locked).status == 0)
    #expect(f.run("show", b, "--vault", other, extra: locked).status == 0)
    #expect(f.run("lock").stderr == "journal: locked 2 vaults\n")
    #expect(runtime.sockets.isEmpty)
    #expect(f.run("unlock", "--status").stdout == "locked\n")
    #expect(f.run("show", b, "--vault", other, extra: locked).status == 9)
  }

  /// Two agents of one vault started one after the other with no lock between them, as two
  /// `journal unlock` racing start them (each asked the vault's agent to lock before either
  /// was there): the second stops the first, and `journal lock` reaches the one left. (That
  /// the first is stopped before the second binds, not after, is AgentServerTests'
  /// `aSecondAgentStopsTheFirst`.)
  @Test func twoAgentsOfOneVault() {
    let runtime = Runtime()
    let f = fixture(runtime)
    let material = String(repeating: "v", count: 16) + String(repeating: "k", count: 32)
    var started: [Spawned] = []
    // Whatever happens, no agent of this test outlives it.
    defer {
      for agent in started {
        kill(agent.pid, SIGTERM)
        _ = agent.wait()
      }
    }
    func start(_ marker: String) {
      let agent = Spawned(
        arguments: [CLI.binary, "agent-serve", "--idle", marker, "--lifetime", "7200"],
        environment: f.cli.environment, terminal: false)
      agent.write(material)
      agent.closeInput()
      started.append(agent)
    }
    start("781")
    #expect(eventually { runtime.sockets.count == 1 })
    #expect(agentPID(marker: "781") != nil)
    start("782")
    #expect(eventually { agentPID(marker: "781") == nil })
    #expect(eventually { agentPID(marker: "782") != nil && runtime.sockets.count == 1 })
    #expect(f.run("lock").stderr == "journal: locked\n")
    #expect(eventually { agentPID(marker: "782") == nil })
    #expect(runtime.sockets.isEmpty)
  }

  /// An agent of the vault that does not stop (here, its lock held by the test): `unlock`
  /// waits a few seconds, then says so and what to do, starting nothing.
  @Test func unlockWhenAnAgentDoesNotStop() {
    let runtime = Runtime()
    let f = fixture(runtime)
    #expect(f.run("unlock").status == 0)
    let socket = runtime.socket
    #expect(f.run("lock").stderr == "journal: locked\n")
    let holder = open(socket + ".lock", O_RDWR | O_CLOEXEC)
    #expect(holder >= 0 && flock(holder, LOCK_EX) == 0)
    defer { close(holder) }
    let refused = f.run("unlock")
    #expect(refused.status == 11, "\(refused)")
    #expect(
      refused.stderr == """
        journal: error: another unlock agent of this vault did not stop when asked
        journal: hint: run "journal lock", then "journal unlock" again

        """)
    #expect(runtime.sockets.isEmpty)
    #expect(f.run("unlock", "--status").stdout == "locked\n")
  }

  /// `journal lock` never says "locked" of an agent that does not answer (stopped, or hung:
  /// here a socket the test listens on and never serves): it locks the others, says so, and
  /// names the one left by its process. Nor does `unlock --status` of the vault whose agent
  /// it is.
  @Test func aSilentAgentIsNeverCalledLocked() {
    let runtime = Runtime()
    let f = fixture(runtime)
    #expect(f.run("unlock").status == 0)
    let own = runtime.socket
    let other = runtime.path + "/journal/agent-" + String(repeating: "0", count: 32) + ".sock"
    let silent = listeningSocket(at: other)
    #expect(silent >= 0)
    let result = f.run("lock")
    #expect(result.status == 11, "\(result)")
    #expect(
      result.stderr == """
        journal: locked
        journal: error: an unlock agent (process \(getpid())) does not answer and may still hold its key
        journal: hint: end it with "kill -KILL \(getpid())"

        """)
    close(silent)
    unlink(other)
    #expect(f.run("unlock", "--status").stdout == "locked\n")
    let silentOwn = listeningSocket(at: own)
    #expect(silentOwn >= 0)
    let status = f.run("unlock", "--status")
    #expect(status.status == 11, "\(status)")
    #expect(status.stderr.hasPrefix("journal: error: an unlock agent (process \(getpid())) does"))
    // The prompt's line keeps its count, says what is, and the error follows.
    let line = f.run("status")
    #expect(line.status == 11)
    #expect(line.stdout == "nothing to reflect, agent not answering\n", "\(line)")
    #expect(f.run("status", "--json").stdout.contains(#""unlocked" : null"#))
    close(silentOwn)
    unlink(own)
    #expect(f.run("lock").stderr == "journal: already locked\n")
  }

  /// `passwd --new-key` retires the old key, which the vault's agent holds: one that does
  /// not stop when asked (here a socket the test listens on and never serves) would outlive
  /// the change still holding it, so nothing changes and the agent is named, as `unlock`
  /// names it rather than waiting for it in vain. A change a crash interrupted is not
  /// finished past it either. Once it is gone, both go through.
  @Test func aSilentAgentStopsAKeyChange() throws {
    let runtime = Runtime()
    let f = fixture(runtime)
    let id = f.new()
    #expect(f.run("unlock").status == 0)
    let own = runtime.socket
    #expect(f.run("lock").status == 0)
    // Room in its queue for every request below (a full queue names no process); and its
    // lock held, as a hung agent holds it.
    let silent = listeningSocket(at: own, backlog: 64)
    #expect(silent >= 0)
    let holder = open(own + ".lock", O_RDWR | O_CLOEXEC)
    #expect(holder >= 0 && flock(holder, LOCK_EX) == 0)
    let named = "journal: error: an unlock agent (process \(getpid())) does not answer"
    let newFile = f.home.write("new", "a passphrase after the leak\n")
    let refused = f.run("passwd", "--new-key", "--new-passphrase-file", newFile)
    #expect(refused.status == 11, "\(refused)")
    #expect(refused.stderr.hasPrefix(named), "\(refused.stderr)")
    #expect(try rotating(f) == false)
    #expect(f.run("show", id).status == 0, "the old passphrase still opens it")
    let unlock = f.run("unlock")
    #expect(unlock.status == 11, "\(unlock)")
    #expect(unlock.stderr.hasPrefix(named), "\(unlock.stderr)")
    // Nor is one that holds no lock (of an older journal, or its lock file gone) replaced.
    close(holder)
    let unheld = f.run("unlock")
    #expect(unheld.status == 11, "\(unheld)")
    #expect(unheld.stderr.hasPrefix(named), "\(unheld.stderr)")
    close(silent)
    unlink(own)
    let killed = f.run(
      "passwd", "--new-key", "--new-passphrase-file", newFile,
      extra: ["JOURNAL_DEBUG_KILL_AT": "key-change-begun"])
    #expect(killed.status == 137, "\(killed)")
    let again = listeningSocket(at: own, backlog: 64)
    #expect(again >= 0)
    let withNew = ["JOURNAL_PASSPHRASE_FILE": newFile]
    let unfinished = f.run("show", id, extra: withNew)
    #expect(unfinished.status == 11, "\(unfinished)")
    // Only the new passphrase opens it now, and the error says so.
    #expect(
      unfinished.stderr.hasPrefix(
        "journal: error: the new key is begun but not finished: an unlock agent (process \(getpid())) does not answer"
      ), "\(unfinished.stderr)")
    #expect(
      unfinished.stderr.contains(
        "; then run any command with the new passphrase to finish it\n"), "\(unfinished.stderr)")
    #expect(try rotating(f) == true)
    close(again)
    unlink(own)
    let finished = f.run("show", id, extra: withNew)
    #expect(finished.status == 0, "\(finished)")
    #expect(finished.stderr.contains("was interrupted; it is finished now"))
    #expect(try rotating(f) == false)
  }

  /// What another session's commands are run with: an XDG_RUNTIME_DIR of its own
  /// (`otherSession`), as a desktop's and an ssh login's (with none: /dev/shm) differ.
  var anotherSession: [String: String] { ["XDG_RUNTIME_DIR": otherSession.path] }

  /// `f`'s journal unlocked as another session unlocks it (`anotherSession`): the socket its
  /// agent listens on, and the one this session's agent would (where none listens).
  func unlockInAnotherSession(_ f: CLIFixture, _ runtime: Runtime) throws -> (
    other: String, own: String
  ) {
    #expect(f.run("unlock").status == 0)
    let own = runtime.socket
    #expect(f.run("lock").status == 0)
    try #require(f.run("unlock", extra: anotherSession).status == 0)
    let other = otherSession.path + "/journal/" + (own as NSString).lastPathComponent
    #expect(access(other, F_OK) == 0)
    return (other, own)
  }

  /// An agent started in another session (`anotherSession`) holds the key as well: `passwd --new-key` run where
  /// XDG_RUNTIME_DIR names another directory stops it too, and one there that does not
  /// answer stops the change.
  @Test func aKeyChangeStopsTheAgentOfAnotherSession() throws {
    let runtime = Runtime()
    let f = fixture(runtime)
    let id = f.new()
    let socket = try unlockInAnotherSession(f, runtime).other
    let elsewhere = anotherSession
    let first = f.home.write("first", "the first passphrase after the leak\n")
    #expect(f.run("passwd", "--new-key", "--new-passphrase-file", first).status == 0)
    #expect(access(socket, F_OK) != 0, "the other session's agent stopped")
    #expect(f.run("unlock", "--status", extra: elsewhere).stdout == "locked\n")
    let silent = listeningSocket(at: socket, backlog: 64)
    #expect(silent >= 0)
    defer {
      close(silent)
      unlink(socket)
    }
    let withFirst = ["JOURNAL_PASSPHRASE_FILE": first]
    let second = f.home.write("second", "the second passphrase after the leak\n")
    let refused = f.run(
      "passwd", "--new-key", "--new-passphrase-file", second, extra: withFirst)
    #expect(refused.status == 11, "\(refused)")
    #expect(
      refused.stderr.hasPrefix(
        "journal: error: an unlock agent (process \(getpid())) does not answer"),
      "\(refused.stderr)")
    #expect(f.run("show", id, extra: withFirst).status == 0, "the first one still opens it")
  }

  /// `journal lock` also locks the agents started in another session (`anotherSession`), the
  /// journal's as a key change stops it, and another vault's; the two agents of one vault are
  /// one vault locked.
  @Test func lockReachesTheAgentOfAnotherSession() throws {
    let runtime = Runtime()
    let f = fixture(runtime)
    let (socket, own) = try unlockInAnotherSession(f, runtime)
    let elsewhere = anotherSession
    let locked = f.run("lock")
    #expect(locked.stderr == "journal: locked\n", "\(locked)")
    #expect(eventually { access(socket, F_OK) != 0 })
    #expect(f.run("unlock", "--status", extra: elsewhere).stdout == "locked\n")
    try #require(f.run("unlock", extra: elsewhere).status == 0)
    #expect(f.run("unlock").status == 0)
    let both = f.run("lock")
    #expect(both.stderr == "journal: locked\n", "\(both)")
    #expect(eventually { access(socket, F_OK) != 0 && access(own, F_OK) != 0 })
    // Another vault unlocked only in the other session, with the default vault gone from
    // here: locked all the same (lock needs no vault).
    let other = f.home.file("other.db")
    #expect(f.run("init", "--kdf", "interactive", "--vault", other).status == 0)
    #expect(f.run("unlock", "--vault", other, extra: elsewhere).status == 0)
    #expect(rename(f.vaultPath, f.vaultPath + ".moved") == 0)
    let another = f.run("lock")
    #expect(another.stderr == "journal: locked\n", "\(another)")
    #expect(otherSession.sockets.isEmpty)
  }

  /// `journal lock --vault` locks that vault's agents alone, here and in another session,
  /// and leaves another vault unlocked; a vault that is not there is said, nothing locked.
  @Test func lockOfOneVault() throws {
    let runtime = Runtime()
    let f = fixture(runtime)
    let other = f.home.file("other.db")
    #expect(f.run("init", "--kdf", "interactive", "--vault", other).status == 0)
    #expect(f.run("unlock").status == 0)
    let own = runtime.socket
    #expect(f.run("unlock", "--vault", other).status == 0)
    #expect(f.run("unlock", "--vault", other, extra: anotherSession).status == 0)
    #expect(runtime.sockets.count == 2 && otherSession.sockets.count == 1)
    let missing = f.run("lock", "--vault", f.home.file("missing.db"))
    #expect(missing.status != 0 && missing.stderr.contains("missing.db"), "\(missing)")
    #expect(runtime.sockets.count == 2 && otherSession.sockets.count == 1)
    let locked = f.run("lock", "--vault", other)
    #expect(locked.stderr == "journal: locked\n", "\(locked)")
    #expect(eventually { runtime.sockets == [own] && otherSession.sockets.isEmpty })
    #expect(f.run("unlock", "--status").stdout.hasPrefix("unlocked: "))
    #expect(f.run("lock", "--vault", other).stderr == "journal: already locked\n")
    #expect(f.run("lock").stderr == "journal: locked\n")
  }

  /// A runtime directory whose mode was changed after an agent began listening in it (no
  /// longer private, so nothing is written there) is still looked in for agents: `lock`
  /// locks the one there rather than saying "already locked".
  @Test func lockFindsAnAgentInADirectoryNoLongerPrivate() throws {
    let runtime = Runtime()
    let f = fixture(runtime)
    #expect(f.run("unlock").status == 0)
    let socket = runtime.socket
    #expect(chmod(runtime.path + "/journal", 0o750) == 0)
    defer { chmod(runtime.path + "/journal", 0o700) }
    let locked = f.run("lock")
    #expect(locked.stderr == "journal: locked\n", "\(locked)")
    #expect(eventually { access(socket, F_OK) != 0 })
  }

  /// A key change also stops the single agent of an earlier journal version (`agent.sock`),
  /// in every runtime directory: it may hold this vault's key. One there that does not
  /// answer stops the change before anything is changed.
  @Test func aKeyChangeStopsAnEarlierVersionsAgent() throws {
    let runtime = Runtime()
    let f = fixture(runtime)
    let id = f.new()
    #expect(f.run("unlock", extra: anotherSession).status == 0)
    let legacy = otherSession.path + "/journal/agent.sock"
    let silent = listeningSocket(at: legacy, backlog: 64)
    #expect(silent >= 0)
    defer {
      close(silent)
      unlink(legacy)
    }
    let new = f.home.write("new", "the passphrase after the leak\n")
    let refused = f.run("passwd", "--new-key", "--new-passphrase-file", new)
    #expect(refused.status == 11, "\(refused)")
    #expect(
      refused.stderr.hasPrefix(
        "journal: error: an unlock agent (process \(getpid())) does not answer"),
      "\(refused.stderr)")
    #expect(eventually { otherSession.sockets.isEmpty }, "the vault's own agent stopped")
    #expect(f.run("show", id).status == 0, "the old passphrase still opens it")
  }

  /// The journal unlocked in another session holds its key: `status` and `unlock --status`
  /// here say so instead of "locked" (commands here still ask for the passphrase), and one
  /// there that does not answer is named as this session's would be.
  @Test func statusSeesTheAgentOfAnotherSession() throws {
    let runtime = Runtime()
    let f = fixture(runtime)
    let (socket, _) = try unlockInAnotherSession(f, runtime)
    let report = f.run("unlock", "--status")
    #expect(
      report.stdout.hasPrefix(
        "unlocked in another session (commands here ask for the passphrase): locks after "),
      "\(report)")
    #expect(f.run("status").stdout == "nothing to reflect, unlocked in another session\n")
    let json =
      try JSONSerialization.jsonObject(with: Data(f.run("status", "--json").stdout.utf8))
      as? [String: Any]
    #expect(json?["unlocked"] as? Bool == false)
    #expect(json?["unlocked_in_another_session"] as? Bool == true)
    #expect(json?["locks_after_idle_seconds"] == nil, "this session's agent's times only")
    #expect(f.run("unlock").status == 0)
    #expect(f.run("unlock", "--status").stdout.hasPrefix("unlocked: locks after "))
    let unlockedHere =
      try JSONSerialization.jsonObject(with: Data(f.run("status", "--json").stdout.utf8))
      as? [String: Any]
    #expect(unlockedHere?["unlocked"] as? Bool == true)
    #expect(unlockedHere?["unlocked_in_another_session"] is NSNull, "not asked")
    #expect(f.run("lock").status == 0)
    #expect(eventually { access(socket, F_OK) != 0 })
    #expect(f.run("unlock", "--status").stdout == "locked\n")
    let silent = listeningSocket(at: socket)
    #expect(silent >= 0)
    defer {
      close(silent)
      unlink(socket)
    }
    let line = f.run("status")
    #expect(line.status == 11, "\(line)")
    #expect(line.stdout == "nothing to reflect, agent not answering\n", "\(line)")
    #expect(
      line.stderr.hasPrefix("journal: error: an unlock agent (process \(getpid())) does not"))
  }

  /// A key change made while `unlock` is between opening the vault and its agent listening
  /// (where the change's own stop finds no agent to stop), or just after (where it stops
  /// that agent), leaves no agent holding the old key and `unlock` never says "unlocked": it
  /// reads the header again once its agent listens, stops it, and says so.
  @Test(arguments: ["unlock-opened", "unlock-listening"])
  func aKeyChangeWhileUnlockingLeavesNoAgent(pausedAt point: String) throws {
    let runtime = Runtime()
    let f = fixture(runtime)
    let id = f.new()
    let pause = f.home.file("pause")
    let unlocking = Spawned(
      arguments: [CLI.binary, "unlock"],
      environment: f.cli.environment.merging([
        "JOURNAL_DEBUG_PAUSE_AT": point, "JOURNAL_DEBUG_PAUSE_FILE": pause,
      ]) { $1 }, terminal: false)
    unlocking.closeInput()
    #expect(eventually(timeout: 60) { access(pause + ".paused", F_OK) == 0 })
    let new = f.home.write("new", "the passphrase after the leak\n")
    let changed = f.run("passwd", "--new-key", "--new-passphrase-file", new)
    #expect(changed.status == 0, "\(changed)")
    #expect(FileManager.default.createFile(atPath: pause, contents: nil))
    let unlocked = unlocking.wait(timeout: 60)
    #expect(unlocked.status == 7, "\(unlocked)")
    #expect(
      unlocked.stderr.hasPrefix(
        "journal: error: the journal's key was changed by another journal meanwhile"),
      "\(unlocked)")
    #expect(access(runtime.socket, F_OK) != 0, "no agent listens")
    #expect(f.run("unlock", "--status").stdout == "locked\n")
    #expect(f.run("show", id, extra: locked).status != 0, "nothing hands out a key")
    #expect(f.run("show", id, extra: ["JOURNAL_PASSPHRASE_FILE": new]).status == 0)
  }

  /// What is wrong with the vault's agent lock file (planted: a directory, a symbolic link,
  /// a file open to others) is said by `unlock`, which starts no agent and never makes the
  /// link's target; put right, it unlocks.
  @Test func aBadAgentLockIsSaid() {
    let runtime = Runtime()
    let f = fixture(runtime)
    #expect(f.run("unlock").status == 0)
    let lock = runtime.socket + ".lock"
    #expect(f.run("lock").status == 0)
    #expect(unlink(lock) == 0 && mkdir(lock, 0o700) == 0)
    let directory = f.run("unlock")
    #expect(directory.status == 11, "\(directory)")
    #expect(directory.stderr == "journal: error: cannot use \"\(lock)\": Is a directory\n")
    #expect(runtime.sockets.isEmpty)
    let target = f.home.file("target")
    #expect(rmdir(lock) == 0 && symlink(target, lock) == 0)
    let link = f.run("unlock")
    #expect(link.status == 8, "\(link)")
    #expect(
      link.stderr.hasPrefix(
        "journal: error: \"\(lock)\" is a symbolic link, which journal does not follow\n"))
    #expect(access(target, F_OK) != 0)
    #expect(unlink(lock) == 0)
    let open = creat(lock, 0o644)
    #expect(open >= 0 && fchmod(open, 0o644) == 0)
    close(open)
    let loose = f.run("unlock")
    #expect(loose.status == 8, "\(loose)")
    #expect(loose.stderr.contains("\"\(lock)\" is open to other users (mode 0644)"))
    #expect(runtime.sockets.isEmpty)
    #expect(chmod(lock, 0o600) == 0)
    #expect(f.run("unlock").status == 0)
    #expect(f.run("lock").stderr == "journal: locked\n")
  }

  /// Whether a key change has begun and not finished.
  func rotating(_ f: CLIFixture) throws -> Bool {
    let queue = try DatabaseQueue(path: f.vaultPath)
    defer { try? queue.close() }
    return try queue.read { db in
      try Bool.fetchOne(db, sql: "SELECT rotation_key IS NOT NULL FROM vault") ?? false
    }
  }

  /// An agent whose "ready" cannot reach `unlock` (gone, having given up; here its output
  /// is /dev/full) does not serve: `unlock` has said the journal stays locked. Bounded by
  /// timeout(1), which would end a serving agent with 124.
  @Test func anAgentThatCannotSayReadyDoesNotServe() {
    let runtime = Runtime()
    let f = fixture(runtime)
    let material = String(repeating: "v", count: 16) + String(repeating: "k", count: 32)
    let result = f.cli.runProgram([
      "/usr/bin/timeout", "20", "/bin/sh", "-c",
      "printf %s \(material) | \(CLI.binary) agent-serve --idle 784 --lifetime 7200 > /dev/full",
    ])
    #expect(result.status == 11, "\(result)")
    #expect(runtime.sockets.isEmpty)
    #expect(agentPID(marker: "784") == nil)
  }

  /// SIGTERM makes the agent wipe its key and exit, removing its socket.
  @Test func sigterm() throws {
    let runtime = Runtime()
    let f = fixture(runtime)
    #expect(f.run("unlock", "--for", "777s").status == 0)
    let pid = try #require(agentPID(marker: "777.0"))
    kill(pid, SIGTERM)
    #expect(eventually { kill(pid, 0) != 0 })
    #expect(!FileManager.default.fileExists(atPath: runtime.socket))
    #expect(f.run("unlock", "--status").stdout == "locked\n")
  }

  /// One SIGSEGV stops the agent (the Swift runtime's crash reporter no longer catches it to
  /// print the agent's memory and go on): the key goes with the process.
  @Test func sigsegvStopsIt() throws {
    let runtime = Runtime()
    let f = fixture(runtime)
    #expect(f.run("unlock", "--for", "778s").status == 0)
    let pid = try #require(agentPID(marker: "778.0"))
    kill(pid, SIGSEGV)
    #expect(eventually { kill(pid, 0) != 0 })
    #expect(f.run("unlock", "--status").stdout == "locked\n")
  }

  /// Malformed requests are answered and never kill the agent.
  @Test func malformedRequests() {
    let runtime = Runtime()
    let f = fixture(runtime)
    #expect(f.run("unlock").status == 0)
    let cases: [[UInt8]] = [
      [],
      Array("JRN".utf8),
      Array("JRNA".utf8) + [1, 1, 0xFF, 0xFF],
      Array("JRNA".utf8) + [9, 2, 0, 0],
      Array("JRNA".utf8) + [1, 42, 0, 0],
      Array("XXXX".utf8) + [1, 2, 0, 0],
      Array("JRNA".utf8) + [1, 1, 16, 0] + [UInt8](repeating: 0, count: 16),
      [UInt8](repeating: 0x41, count: 100_000),
    ]
    for bytes in cases {
      let answer = rawRequest(runtime.socket, bytes)
      if !bytes.isEmpty {
        #expect(answer.count >= 6 && answer[5] != 0, "\(bytes.prefix(8)) got \(answer)")
      }
      #expect(
        f.run("unlock", "--status").stdout.hasPrefix("unlocked"), "alive after \(bytes.prefix(8))")
    }
    f.run("lock")
  }

  /// A process of another user is refused by the agent's own check, even when the socket's
  /// permissions are opened up to let it connect.
  @Test(
    .enabled(if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")))
  func otherUserRefused() throws {
    let runtime = Runtime()
    let f = fixture(runtime)
    #expect(f.run("unlock").status == 0)
    chmod(runtime.path, 0o711)
    chmod(runtime.path + "/journal", 0o711)
    chmod(runtime.socket, 0o666)
    let script = """
      import socket, sys
      s = socket.socket(socket.AF_UNIX)
      s.settimeout(10)
      s.connect(sys.argv[1])
      try:
          s.sendall(b"JRNA\\x01\\x02\\x00\\x00")
      except BrokenPipeError:
          pass  # refused before it asked: the answer is still there to read
      print(s.recv(64).hex())
      """
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
    process.arguments = [
      "--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/env", "python3", "-c", script,
      runtime.socket,
    ]
    let output = Pipe()
    process.standardOutput = output
    process.standardError = output
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    let answer = String(decoding: data, as: UTF8.self).trimmingCharacters(
      in: .whitespacesAndNewlines)
    #expect(answer == "4a524e4101040000", "refused (code 4), got \(answer)")
    chmod(runtime.socket, 0o600)
    chmod(runtime.path + "/journal", 0o700)
    chmod(runtime.path, 0o700)
    f.run("lock")
  }

  private func rawRequest(_ path: String, _ bytes: [UInt8]) -> [UInt8] {
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
      raw.copyBytes(from: Array(path.utf8))
    }
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
      }
    }
    guard connected == 0 else { return [] }
    _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    shutdown(fd, Int32(SHUT_WR))
    var answer = [UInt8](repeating: 0, count: 64)
    var timeout = timeval(tv_sec: 5, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    let count = recv(fd, &answer, answer.count, 0)
    return count > 0 ? Array(answer[0..<count]) : []
  }

  private func agentPID(marker: String) -> pid_t? {
    let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
    for entry in entries {
      guard let pid = pid_t(entry),
        let data = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline")
      else { continue }
      let arguments = data.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
      if arguments.contains("agent-serve") && arguments.contains(marker) { return pid }
    }
    return nil
  }
}

/// `journal status`: one short line for a prompt, without the passphrase.
@Suite(.serialized) struct StatusLineTests {
  @Test func statusLine() throws {
    let runtime = AgentTests.Runtime()
    let f = CLIFixture(extra: ["XDG_RUNTIME_DIR": runtime.path]).initialise()
    let locked = ["JOURNAL_PASSPHRASE_FILE": "", "TERM": "xterm-256color"]
    #expect(f.run("status", extra: locked).stdout == "nothing to reflect · locked\n")
    // Plain mode (no TERM here) says it with a comma, for a screen reader.
    #expect(f.run("status", extra: ["TERM": "dumb"]).stdout == "nothing to reflect, locked\n")
    let id = f.new()
    _ = f.new()
    f.run("reflect", id, "--reflection", "done")
    #expect(f.run("status", extra: locked).stdout == "1 to reflect · locked\n")
    #expect(f.run("unlock", "--for", "30m").status == 0)
    let unlocked = f.run("status", extra: locked).stdout
    #expect(unlocked.hasPrefix("1 to reflect · unlocked "), "\(unlocked)")
    let json =
      try JSONSerialization.jsonObject(with: Data(f.run("status", "--json").stdout.utf8))
      as? [String: Any]
    #expect(json?["waiting_for_reflection"] as? Int == 1)
    #expect(json?["unlocked"] as? Bool == true)
    f.run("lock")
  }
}
