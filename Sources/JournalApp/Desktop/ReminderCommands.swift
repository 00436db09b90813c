import Foundation
import JournalCore
import JournalDiagnostics
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

  /// After the others were listed or delivered: names each damaged reminder (left out of
  /// them), the last as the command's error (exit 5), so that cron and systemd see it.
  public static func refuseDamaged(_ runtime: Runtime) throws {
    try refuseDamaged(try runtime.openLocked())
  }

  static func refuseDamaged(_ vault: Vault) throws {
    let ids = try vault.damagedReminders()
    for id in ids.dropLast() {
      Report.error(Diagnosis(StoreError.damagedReminder(id: id)).message)
    }
    if let last = ids.last { throw StoreError.damagedReminder(id: last) }
  }

  /// `journal reminders daemon`: delivers reminders as they fall due until SIGTERM, SIGINT
  /// or SIGHUP; `note` says what could not be delivered.
  public static func daemon(_ runtime: Runtime, note: @escaping (String) -> Void) throws {
    let path = try runtime.vaultPath()
    let notifier = Notifier(environment: runtime.context.environment, report: note)
    // New and cancelled reminders are noticed at the next look, at most this far apart.
    let poll = try Self.poll(runtime.context.environment)
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

  /// How often the daemon looks for new and cancelled reminders: JOURNAL_DAEMON_POLL, 30 s
  /// unless set; under a second is refused (0 s would spin a core).
  static func poll(_ environment: [String: String]) throws(AppError) -> TimeInterval {
    guard let text = environment["JOURNAL_DAEMON_POLL"], !text.isEmpty else { return 30 }
    guard let value = DurationText.parse(text), value >= 1 else {
      throw .badSetting(name: "JOURNAL_DAEMON_POLL", expected: #"a second or more, such as "30s""#)
    }
    return value
  }

  /// How many sessions wait for reflection, from the clear status column (no key, nothing
  /// decrypted, no purge: fast enough for a shell prompt).
  public static func waitingCount(_ runtime: Runtime) throws -> Int {
    let vault = try Vault.open(at: try runtime.vaultPath())
    // As every command does: a deletion whose window has closed is purged first (one read
    // when there is none, so a shell prompt stays fast).
    try vault.purgeExpired(now: runtime.context.now())
    return try vault.waitingCount()
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
    if failed { throw AppError.notificationNotShown }
    switch answer {
    case .reflect:
      let environment = runtime.context.environment
      let path = environment["PATH"] ?? "/usr/bin:/bin"
      let chosen = environment["TERMINAL"].flatMap { $0.isEmpty ? nil : $0 }
      guard
        let terminal = ExternalEditor.locate(chosen ?? "x-terminal-emulator", path: path)
      else { throw AppError.noTerminalProgram(id: id.short) }
      let binary = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
      guard
        Subprocess.start(
          [terminal, "-e", binary, "reflect", id.hex, "--vault", vault.path],
          redirects: [.open("/dev/null", flags: O_RDONLY, onto: STDIN_FILENO)],
          newSession: true) != nil
      else { throw AppError.terminalProgramFailed(id: id.short) }
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
    // The notifier reports only what it could not do: all but the last said as they come,
    // the last as the error the run ends with (exit 11), once the damaged are named.
    nonisolated(unsafe) var failures: [String] = []
    let notifier = Notifier(environment: runtime.context.environment) { message in
      if let earlier = failures.last { note(earlier) }
      failures.append(message)
    }
    try runtime.reminders(vault).run(notifier: notifier)
    if let last = failures.last {
      for id in try vault.damagedReminders() {
        Report.error(Diagnosis(StoreError.damagedReminder(id: id)).message)
      }
      throw AppError.remindersNotDelivered(reason: last)
    }
    try refuseDamaged(vault)
  }
}
