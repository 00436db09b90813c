import Foundation
import JournalCore
import JournalStore
import JournalSystem

/// The use cases of `journal remind` and `journal reminders`. None needs the passphrase.
public enum ReminderCommands {
  /// One pending reminder, without content: whose, when, how often.
  public struct Pending: Sendable {
    public let shortID: String
    public let due: Date
    public let repeatInterval: TimeInterval
  }

  /// Sets (or, for `.none`, cancels) the reminder of the session starting with `text`.
  /// Returns the session's short id, when the reminder falls due (nil when cancelled), and
  /// whether there was one before (a cancel with none to cancel says so).
  public static func set(_ text: String, _ choice: ReminderChoice, _ runtime: Runtime) throws
    -> (shortID: String, due: Date?, hadOne: Bool)
  {
    if case .at(let date) = choice, date <= runtime.context.now() {
      throw AppError.reminderInPast
    }
    let vault = try runtime.openLocked()
    let service = try runtime.reminders(vault)
    let id = try service.resolve(text)
    let hadOne = try vault.reminders().contains { $0.id == id }
    return (id.short, try service.set(id, choice), hadOne)
  }

  /// The reminders set, soonest first as the vault keeps them.
  public static func pending(_ runtime: Runtime) throws -> [Pending] {
    try runtime.openLocked().reminders().map {
      Pending(shortID: $0.id.short, due: $0.due, repeatInterval: $0.repeatInterval)
    }
  }

  /// `journal reminders daemon`: delivers reminders as they fall due until SIGTERM, SIGINT
  /// or SIGHUP; `note` says what could not be delivered.
  public static func daemon(_ runtime: Runtime, note: @escaping (String) -> Void) throws {
    let path = try runtime.vaultPath()
    let notifier = Notifier(environment: runtime.context.environment, report: note)
    // New and cancelled reminders are noticed at the next look, at most this far apart.
    let poll = Duration.parse(runtime.context.environment["JOURNAL_DAEMON_POLL"] ?? "") ?? 30
    StopSignal.install()
    note("delivering reminders; stop with Ctrl-C or SIGTERM")
    try ReminderDaemon(
      deliver: {
        let vault = try Vault.open(at: path)
        try vault.purgeExpired(now: runtime.context.now())
        try runtime.reminders(vault).run(notifier: notifier)
        return try vault.reminders().first?.due
      },
      now: runtime.context.now, sleep: { StopSignal.sleep($0) },
      stopRequested: { StopSignal.requested }, poll: poll
    ).run()
    note("stopped")
  }

  /// How many sessions wait for reflection, from the clear status column (no key, nothing
  /// decrypted, no purge: fast enough for a shell prompt).
  public static func waitingCount(_ runtime: Runtime) throws -> Int {
    try Vault.open(at: try runtime.vaultPath()).waitingCount()
  }

  /// `journal reminders answer` (started by a delivery, not by people): shows the reminder
  /// of the session starting with `text` as a notification with its answers, waits for one,
  /// and carries it out, none needing the passphrase: "Reflect now" opens a terminal
  /// ($TERMINAL, else x-terminal-emulator) running `journal reflect <id>`, "Tomorrow" moves
  /// the reminder to tomorrow, "No more reminders" cancels it (the session still waits in
  /// `list`).
  /// What it did; exit 11 when the notification could not be shown.
  @discardableResult
  public static func answer(
    _ text: String, _ runtime: Runtime, note: @escaping (String) -> Void
  ) throws -> Notifier.Answer? {
    let vault = try runtime.openLocked()
    let service = try runtime.reminders(vault)
    let id = try service.resolve(text)
    let notifier = Notifier(environment: runtime.context.environment, report: note)
    let (answer, failed) = notifier.ask(
      Notifier.message(count: max(try vault.waitingCount(), 1)))
    if failed { throw ExitCodeOnly(code: .ioError) }
    switch answer {
    case .reflect:
      let environment = runtime.context.environment
      let path = environment["PATH"] ?? "/usr/bin:/bin"
      let chosen = environment["TERMINAL"].flatMap { $0.isEmpty ? nil : $0 }
      guard
        let terminal = ExternalEditor.locate(chosen ?? "x-terminal-emulator", path: path)
      else {
        note(#"no terminal to open: set TERMINAL, or run "journal reflect \#(id.short)""#)
        throw ExitCodeOnly(code: .notFound)
      }
      let binary = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
      guard
        Subprocess.start(
          [terminal, "-e", binary, "reflect", id.hex, "--vault", vault.path],
          redirects: [.open("/dev/null", flags: O_RDONLY, onto: STDIN_FILENO)],
          newSession: true) != nil
      else {
        note(#"the terminal did not start; run "journal reflect \#(id.short)""#)
        throw ExitCodeOnly(code: .ioError)
      }
    case .tomorrow: try service.set(id, .tomorrow)
    case .stop: try service.set(id, ReminderChoice.none)
    case nil: break
    }
    return answer
  }

  /// Delivers the reminders that are due, once; `note` says what could not be delivered,
  /// and then the run fails (exit 11), so that cron or a systemd timer sees it.
  public static func deliverDue(_ runtime: Runtime, note: @escaping (String) -> Void) throws {
    let vault = try Vault.open(at: try runtime.vaultPath())
    try vault.purgeExpired(now: runtime.context.now())
    // The notifier reports only what it could not do.
    nonisolated(unsafe) var failed = false
    let notifier = Notifier(environment: runtime.context.environment) { message in
      failed = true
      note(message)
    }
    try runtime.reminders(vault).run(notifier: notifier)
    if failed { throw ExitCodeOnly(code: .ioError) }
  }
}
