import ArgumentParser
import Foundation
import Glibc
import JournalApp
import JournalCrypto
import JournalStore
import JournalSystem
import JournalTerminal

extension Journal {
  /// `journal unlock`: type the passphrase once, stay unlocked for a while.
  struct Unlock: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "unlock",
      abstract: "Unlock once: an agent holds the key until it is idle too long, or you lock.",
      discussion: """
        The agent answers only your own user, holds the key in locked memory, and wipes it \
        after the idle time (--for, 10 min by default), after 2 h at most \
        (JOURNAL_AGENT_MAX_LIFETIME), on "journal lock", or when stopped.
        """)

    @OptionGroup var options: GlobalOptions

    @Option(
      name: .customLong("for"),
      help: ArgumentHelp("Idle time before locking again: 10m, 30m, 1h.", valueName: "duration"))
    var idle: String?

    @Flag(help: "Only say whether the journal is unlocked.")
    var status = false

    func run() throws {
      let runtime = try Runtime(options)
      let environment = runtime.context.environment
      if status {
        try Status.report(environment)
        return
      }
      let idleTime =
        try idle.map { text in
          guard let value = Duration.parse(text), value > 0 else {
            throw AppError.badSetting(
              name: "--for", expected: #"a duration above zero, such as "30m""#)
          }
          return value
        } ?? 600
      let lifetime =
        try environment["JOURNAL_AGENT_MAX_LIFETIME"].map { text in
          guard let value = Duration.parse(text), value > 0 else {
            throw AppError.badSetting(
              name: "JOURNAL_AGENT_MAX_LIFETIME", expected: #"a duration such as "2h""#)
          }
          return value
        } ?? 7200
      let socketPath = try AgentProtocol.socketPath(environment: environment)
      // Unlock with the passphrase itself (never an agent's copy), then hand the key over.
      let journal = try JournalVault.open(at: try runtime.vaultPath(), context: runtime.context) {
        guard let source = runtime.passphraseSource else { throw AppError.noPassphraseSource }
        return try source.read(prompt: "Passphrase: ", terminal: runtime.terminal)
      }
      AgentClient(environment: environment)?.lock()
      try AgentLauncher.start(
        keys: journal.unlockedKeys, idle: min(idleTime, lifetime), lifetime: lifetime,
        socketPath: socketPath)
      Report.note(
        "unlocked for \(Status.describe(Int(min(idleTime, lifetime)))) of rest "
          + "(\(Status.describe(Int(lifetime))) at most); \"journal lock\" locks again")
    }
  }

  /// `journal lock`: wipe the key and stop the agent now.
  struct Lock: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "lock",
      abstract: "Lock now: the agent wipes its key and stops.")

    @OptionGroup var options: GlobalOptions

    func run() throws {
      let runtime = try Runtime(options)
      let wasUnlocked = AgentClient(environment: runtime.context.environment)?.lock() ?? false
      Report.note(wasUnlocked ? "locked" : "already locked")
    }
  }

  /// `journal status`: one short line for a shell prompt or a status bar.
  struct Status: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "status",
      abstract: "One short line: how many sessions wait for reflection, and whether unlocked.",
      discussion: """
        Fast and safe for a shell prompt: it needs no passphrase, decrypts nothing, and says \
        nothing else. See the user guide for bash, zsh and tmux.
        """)

    @OptionGroup var options: GlobalOptions

    @Flag(help: "Print JSON.")
    var json = false

    func run() throws {
      let runtime = try Runtime(options)
      let vault = try Vault.open(at: try runtime.vaultPath())
      let waiting = try vault.waitingCount()
      let agent = AgentClient(environment: runtime.context.environment)?.status()
      if json {
        var object: [String: Any] = [
          "schema_version": 1, "waiting_for_reflection": waiting, "unlocked": agent != nil,
        ]
        if let agent {
          object["locks_after_idle_seconds"] = agent.idle
          object["locks_at_most_in_seconds"] = agent.lifetime
        }
        try Runtime.output(Render.encode(object))
        return
      }
      let reflect = waiting == 0 ? "nothing to reflect" : "\(waiting) to reflect"
      let lock = agent.map { "unlocked \(Self.describe($0.idle))" } ?? "locked"
      try Runtime.output("\(reflect)\(runtime.presentation.plain ? ", " : " · ")\(lock)\n")
    }

    /// `journal unlock --status`: the lock alone, in words.
    static func report(_ environment: [String: String]) throws {
      guard let (idle, lifetime) = AgentClient(environment: environment)?.status() else {
        try Runtime.output("locked\n")
        return
      }
      try Runtime.output(
        "unlocked: locks after \(describe(idle)) idle, \(describe(lifetime)) at most\n")
    }

    static func describe(_ seconds: Int) -> String {
      if seconds >= 3600 {
        let minutes = (seconds % 3600) / 60
        return "\(seconds / 3600) h" + (minutes > 0 ? " \(minutes) min" : "")
      }
      if seconds >= 60 { return "\(seconds / 60) min" }
      return "\(seconds) s"
    }
  }

  /// The agent process itself, started by `journal unlock` (not for people to run).
  struct AgentServe: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "agent-serve", abstract: "The unlock agent (started by journal unlock).",
      shouldDisplay: false)

    @Option var idle: Double
    @Option var lifetime: Double

    func run() throws {
      // The vault id (16) and data key (32) arrive on standard input, never in argv.
      let material = try SecureBytes(count: 48)
      var filled = 0
      material.withUnsafeMutableBytes { buffer in
        while filled < buffer.count {
          let count = read(
            STDIN_FILENO, buffer.baseAddress.map { $0 + filled }, buffer.count - filled)
          if count < 0 && errno == EINTR { continue }
          guard count > 0 else { break }
          filled += count
        }
      }
      guard filled == 48 else { throw ExitCodeOnly(code: .internalError) }
      let vaultID = material.withUnsafeBytes { Array($0.prefix(16)) }
      let dataKey = try SecureBytes(count: 32)
      dataKey.withUnsafeMutableBytes { out in
        material.withUnsafeBytes {
          out.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[16...]))
        }
      }
      material.wipe()
      let environment = ProcessInfo.processInfo.environment
      let agent = Agent(
        vaultID: vaultID, dataKey: dataKey, idleTimeout: idle, lifetime: lifetime,
        socketPath: try AgentProtocol.socketPath(environment: environment))
      try agent.bind()
      let ready = Array("ready\n".utf8)
      _ = ready.withUnsafeBytes { write(STDOUT_FILENO, $0.baseAddress, $0.count) }
      let null = open("/dev/null", O_RDWR)
      for fd in [STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO] { dup2(null, fd) }
      close(null)
      agent.serve()
    }
  }
}

/// Starts the agent as its own process (a new session, so closing the terminal does not
/// stop it) and hands it the key through a pipe.
enum AgentLauncher {
  static func start(keys: VaultKeys, idle: Double, lifetime: Double, socketPath: String) throws {
    var input: [Int32] = [0, 0]
    var output: [Int32] = [0, 0]
    guard pipe(&input) == 0, pipe(&output) == 0 else { throw AppError.internalError("pipe") }
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
      throw AppError.internalError("cannot start the agent")
    }
    AgentProtocol.writeAll(input[1], keys.vaultID)
    keys.withDataKey { (key: UnsafeRawBufferPointer) in AgentProtocol.writeAll(input[1], key) }
    close(input[1])
    // Wait for "ready": the socket is bound before unlock returns.
    var line = [UInt8](repeating: 0, count: 6)
    let got = read(output[0], &line, 6)
    guard got == 6, line == Array("ready\n".utf8) else {
      throw AppError.internalError("the agent did not start")
    }
  }
}
