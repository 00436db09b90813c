import Foundation
import Glibc
import JournalAgent
import JournalCrypto
import JournalDiagnostics
import JournalStore
import JournalSystem

/// `journal unlock`, `lock` and the lock half of `status`: the agent started, asked and
/// stopped.
public enum UnlockAgent {
  /// How long the agent stays, as it was told and as it answers.
  public struct Times: Sendable, Equatable {
    public let idle: Int
    public let lifetime: Int
  }

  /// Reads the idle time (`--for`, 10 min by default) and the maximum lifetime
  /// (JOURNAL_AGENT_MAX_LIFETIME, 2 h by default); the idle time never exceeds the lifetime.
  public static func times(idle text: String?, environment: [String: String]) throws -> (
    idle: TimeInterval, lifetime: TimeInterval
  ) {
    let idle =
      try text.map { text in
        guard let value = DurationText.parse(text), value > 0 else {
          throw AppError.badSetting(
            name: "--for", expected: #"a duration above zero, such as "30m""#)
        }
        return value
      } ?? 600
    let lifetime =
      try environment["JOURNAL_AGENT_MAX_LIFETIME"].map { text in
        guard let value = DurationText.parse(text), value > 0 else {
          throw AppError.badSetting(
            name: "JOURNAL_AGENT_MAX_LIFETIME", expected: #"a duration such as "2h""#)
        }
        return value
      } ?? 7200
    return (min(idle, lifetime), lifetime)
  }

  /// Unlocks with the passphrase itself (never an agent's copy), stops this vault's agent if
  /// one is running, and starts a new one holding its key. Other vaults' agents are left as
  /// they are: each unlocked vault has its own. Returns its times.
  public static func unlock(_ runtime: Runtime, idle text: String?) throws -> Times {
    let environment = runtime.context.environment
    let (idle, lifetime) = try times(idle: text, environment: environment)
    var file: Vault?
    let journal = try JournalVault.open(
      at: try runtime.vaultPath(), context: runtime.context, beforeUnlock: { file = $0 },
      tries: runtime.passphraseTries, tryAgain: runtime.passphraseTryAgain
    ) {
      if let file { runtime.announceSealed(file) }
      return try runtime.askPassphrase(prompt: "Passphrase: ")
    }
    // What was written without the passphrase has just been opened: said here too.
    runtime.reportOpened(journal)
    CrashPoint.reached("unlock-opened", environment: environment)
    let keys = journal.unlockedKeys
    let socketPath = try AgentProtocol.socketPath(environment: environment, vaultID: keys.vaultID)
    // One that does not answer may only be busy (with a client it waits on): the new agent
    // asks it again for a few seconds, and only one that still does not stop is named.
    var silent: (any Error)?
    do { try AgentClient(socketPath: socketPath).stop() } catch { silent = error }
    // One that holds no lock (of a journal before it, or whose lock file went) would not be
    // waited for: its socket would be taken from under it, its key kept out of any lock's
    // reach. Named now, if its socket is still there (an agent that just ended removed it).
    var info = stat()
    if try Agent.checkLock(socketPath: socketPath), let silent, lstat(socketPath, &info) == 0,
      info.st_mode & S_IFMT == S_IFSOCK
    {
      throw silent
    }
    do {
      try start(keys: keys, idle: idle, lifetime: lifetime, socketPath: socketPath)
    } catch AgentError.stillRunning {
      throw silent ?? AgentError.stillRunning
    }
    CrashPoint.reached("unlock-listening", environment: environment)
    // A key change begun meanwhile (`passwd --new-key` in another terminal, a sync following
    // another device's) stops the agents it finds, and may have looked before this one was
    // listening: the header, read again now that it listens, tells, since a change begins by
    // writing it. This agent may hold the old key, so it is stopped and nothing is unlocked;
    // as it is when the header cannot be read (nothing says its key is current).
    let current = Result { try journal.file.keyIsCurrent() }
    if case .success(true) = current {
      return Times(idle: Int(idle), lifetime: Int(lifetime))
    }
    try AgentClient(socketPath: socketPath).stop()
    _ = try current.get()
    throw StoreError.keyChanged
  }

  /// Asks every agent (each unlocked vault's, in each of the user's runtime directories) to
  /// wipe its key and stop, and hands `locked` how many vaults' did (none: already locked).
  /// An agent that did not stop (it said nothing, stopped or hung, or refused) may still hold
  /// its key: an error naming it, after the others are locked and said, never "locked".
  /// With `oneVault`, only the named vault's agents (its id read from the vault's header,
  /// no passphrase), in each of those directories.
  public static func lock(_ runtime: Runtime, oneVault: Bool = false, locked: (Int) -> Void)
    throws
  {
    let environment = runtime.context.environment
    var (vaults, left): (Set<String>, [Int32?])
    if oneVault {
      let vaultID = try JournalVault.id(at: try runtime.vaultPath())
      (vaults, left) = AgentClient.lockVault(environment: environment, vaultID: vaultID)
    } else {
      (vaults, left) = AgentClient.lockAll(environment: environment)
      // Then every agent in the user's other runtime directories (one started in another
      // session holds its key as well); two agents of one vault are one vault locked.
      let elsewhere = AgentClient.lockElsewhere(environment: environment)
      vaults.formUnion(elsewhere.locked)
      left += elsewhere.notStopped
    }
    if !vaults.isEmpty || left.isEmpty { locked(vaults.count) }
    guard left.isEmpty else {
      throw AgentError.notAnswering(count: left.count, processes: left.compactMap { $0 })
    }
  }

  /// Whether `error` is an agent's that took a request and did not answer (it may hold its
  /// key), for `status` to print its line before it.
  public static func isNotAnswering(_ error: Error) -> Bool {
    if case AgentError.notAnswering = error { return true }
    return false
  }

  /// Whether the named vault is unlocked: by this session's agent, which commands here
  /// use, and by one started in another session (a desktop's, seen over ssh), which holds
  /// the key as well.
  public struct LockState: Sendable, Equatable {
    /// What this session's agent says of its time left; nil when it holds no key.
    public let here: Times?
    /// What the agent in another runtime directory says (the one that locks last); nil
    /// when none holds the key, or when not asked (`here` holds it).
    public let elsewhere: Times?
  }

  /// What the named vault's agents say of their time left: the user's other runtime
  /// directories asked only when this session's agent holds no key (a prompt that is
  /// unlocked pays nothing more). Reads the vault's id from its file: no passphrase, nothing
  /// decrypted.
  public static func status(_ runtime: Runtime) throws -> LockState {
    let vault = try Vault.open(at: try runtime.vaultPath())
    try vault.purgeExpired(now: runtime.context.now())
    let vaultID = vault.header.vaultID
    let environment = runtime.context.environment
    // An agent that says nothing (stopped, or hung) is not "locked": it may hold the key.
    var silent: Int32?? = nil
    let here = AgentClient(environment: environment, vaultID: vaultID)?.status {
      silent = $0
    }
    let elsewhere =
      here != nil || silent != nil
      ? nil
      : AgentClient.statusElsewhere(environment: environment, vaultID: vaultID) {
        silent = silent ?? $0
      }
    if let process = silent {
      throw AgentError.notAnswering(process: process)
    }
    return LockState(
      here: here.map { Times(idle: $0.idle, lifetime: $0.lifetime) },
      elsewhere: elsewhere.map { Times(idle: $0.idle, lifetime: $0.lifetime) })
  }

  /// Starts the agent as its own process (a new session, so closing the terminal does not
  /// stop it) and hands it the vault id and key through a pipe, from guarded memory.
  static func start(keys: VaultKeys, idle: Double, lifetime: Double, socketPath: String) throws {
    var input: [Int32] = [0, 0]
    var output: [Int32] = [0, 0]
    guard pipe(&input) == 0, pipe(&output) == 0 else { throw AgentError.notStarted }
    for fd in input + output { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
    let binary = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
    let started = Subprocess.start(
      [binary, "agent-serve", "--idle", String(idle), "--lifetime", String(lifetime)],
      redirects: [
        .duplicate(input[0], onto: STDIN_FILENO), .duplicate(output[1], onto: STDOUT_FILENO),
        .open("/dev/null", flags: O_WRONLY, onto: STDERR_FILENO),
      ],
      newSession: true)
    close(input[0])
    close(output[1])
    defer { close(output[0]) }
    guard started != nil else {
      close(input[1])
      throw AgentError.notStarted
    }
    AgentProtocol.writeAll(input[1], keys.vaultID)
    keys.withDataKey { (key: UnsafeRawBufferPointer) in AgentProtocol.writeAll(input[1], key) }
    close(input[1])
    // Wait for "ready": the socket is bound before unlock returns. All six bytes, through a
    // signal or a write in parts; the agent's end of the pipe closing first, or no line
    // within 20 s (its own wait for an older agent is bounded well within that), is "not
    // started".
    let line = AgentProtocol.read(output[0], count: 6, timeout: 20)
    guard line == Array(AgentProtocol.readyLine.utf8) else {
      if line == Array(AgentProtocol.stillRunningLine.utf8) { throw AgentError.stillRunning }
      // Said "not started": so it must not start later. (Ended, it is this process's
      // zombie until this process ends: its pid is not reused meanwhile.)
      if let started { kill(started, SIGKILL) }
      throw AgentError.notStarted
    }
  }

  /// The agent process's whole life (`journal agent-serve`).
  public static func serve(idle: Double, lifetime: Double) throws {
    try Agent.serveFromStandardInput(
      idle: idle, lifetime: lifetime, environment: ProcessInfo.processInfo.environment)
  }
}
