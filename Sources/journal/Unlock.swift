import ArgumentParser
import JournalApp
import JournalDiagnostics
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
      if status {
        try Status.report(runtime)
        return
      }
      let times = try UnlockAgent.unlock(runtime, idle: idle)
      Report.note(
        "unlocked for \(Status.describe(times.idle)) of rest "
          + "(\(Status.describe(times.lifetime)) at most); \"journal lock\" locks again")
    }
  }

  /// `journal lock`: wipe the key and stop the agent now.
  struct Lock: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "lock",
      abstract: "Lock every unlocked vault now: each agent wipes its key and stops.",
      discussion: """
        Every vault's agents, in this session and in your others (a desktop's, seen over \
        ssh). With --vault, only that vault's; JOURNAL_VAULT does not narrow it.
        """)

    @OptionGroup var options: GlobalOptions

    func run() throws {
      let runtime = try Runtime(options)
      try UnlockAgent.lock(runtime, oneVault: options.vault != nil) { stopped in
        Report.note(
          stopped == 0 ? "already locked" : stopped == 1 ? "locked" : "locked \(stopped) vaults")
      }
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
      let waiting = try ReminderCommands.waitingCount(runtime)
      // An agent that does not answer may hold the key: neither "locked" nor "unlocked".
      // The line is still printed (a prompt keeps its count), then the error.
      var silent: Error?
      let agent: UnlockAgent.LockState?
      do {
        agent = try UnlockAgent.status(runtime)
      } catch let error where UnlockAgent.isNotAnswering(error) {
        agent = nil
        silent = error
      }
      if json {
        var object: [String: Any] = [
          "schema_version": 1, "waiting_for_reflection": waiting,
          "unlocked": agent.map { $0.here != nil } ?? Render.null,
          // Not asked when unlocked here: null, as for an agent that does not answer.
          "unlocked_in_another_session": agent.flatMap {
            $0.here == nil ? $0.elsewhere != nil : nil
          } ?? Render.null,
        ]
        if let here = agent?.here {
          object["locks_after_idle_seconds"] = here.idle
          object["locks_at_most_in_seconds"] = here.lifetime
        }
        try Runtime.output(Render.encode(object))
      } else {
        let reflect = waiting == 0 ? "nothing to reflect" : "\(waiting) to reflect"
        let lock =
          if let agent {
            agent.here.map { "unlocked \(Self.describe($0.idle))" }
              ?? (agent.elsewhere != nil ? "unlocked in another session" : "locked")
          } else {
            "agent not answering"
          }
        try Runtime.output("\(reflect)\(runtime.presentation.plain ? ", " : " · ")\(lock)\n")
      }
      if let silent { throw silent }
    }

    /// `journal unlock --status`: the lock alone, in words.
    static func report(_ runtime: Runtime) throws {
      let state = try UnlockAgent.status(runtime)
      if let times = state.here {
        try Runtime.output("unlocked: \(describe(times))\n")
      } else if let times = state.elsewhere {
        try Runtime.output(
          "unlocked in another session (commands here ask for the passphrase): \(describe(times))\n"
        )
      } else {
        try Runtime.output("locked\n")
      }
    }

    static func describe(_ times: UnlockAgent.Times) -> String {
      "locks after \(describe(times.idle)) idle, \(describe(times.lifetime)) at most"
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
      try UnlockAgent.serve(idle: idle, lifetime: lifetime)
    }
  }
}
