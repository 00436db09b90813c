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
  /// Returns the session's short id and when the reminder falls due (nil when cancelled).
  public static func set(_ text: String, _ choice: ReminderChoice, _ runtime: Runtime) throws
    -> (shortID: String, due: Date?)
  {
    if case .at(let date) = choice, date <= runtime.context.now() {
      throw AppError.reminderInPast
    }
    let service = try runtime.reminders(try runtime.openLocked())
    let id = try service.resolve(text)
    return (id.short, try service.set(id, choice))
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

  /// Delivers the reminders that are due, once; `note` says what could not be delivered.
  public static func deliverDue(_ runtime: Runtime, note: @escaping (String) -> Void) throws {
    let vault = try Vault.open(at: try runtime.vaultPath())
    try vault.purgeExpired(now: runtime.context.now())
    let notifier = Notifier(environment: runtime.context.environment, report: note)
    try runtime.reminders(vault).run(notifier: notifier)
  }
}
