import Foundation
import Glibc
import JournalCore
import JournalDiagnostics
import JournalStore
import JournalSystem

/// When to be reminded, as a person chooses it.
public enum ReminderChoice: Sendable, Equatable {
  case inThreeHours
  case tomorrow
  case after(TimeInterval)
  case at(Date)
  case none

  /// Reads `--remind`: "3h", "tomorrow", "none", or any duration ("2h", "90m").
  public static func parse(_ text: String) -> ReminderChoice? {
    switch text.lowercased() {
    case "3h": return .inThreeHours
    case "tomorrow": return .tomorrow
    case "none", "no": return ReminderChoice.none
    default: return DurationText.parse(text).map { .after($0) }
    }
  }
}

/// Reminder settings from the environment: JOURNAL_REMINDER_TIME ("09:00", what "tomorrow"
/// means) and JOURNAL_REMINDER_REPEAT ("24h", how often a due reminder comes back).
public enum ReminderSettings {
  public static func schedule(
    environment: [String: String], timeZone: TimeZone
  ) throws(AppError) -> ReminderSchedule {
    var time = (hour: 9, minute: 0)
    if let text = environment["JOURNAL_REMINDER_TIME"], !text.isEmpty {
      let parts = text.split(separator: ":").compactMap { Int($0) }
      guard parts.count == 2, (0...23).contains(parts[0]), (0...59).contains(parts[1]) else {
        throw .badSetting(name: "JOURNAL_REMINDER_TIME", expected: #"a time such as "09:00""#)
      }
      time = (parts[0], parts[1])
    }
    var repeatInterval: TimeInterval = 86400
    if let text = environment["JOURNAL_REMINDER_REPEAT"], !text.isEmpty {
      guard let value = DurationText.parse(text), value >= 60 else {
        throw .badSetting(
          name: "JOURNAL_REMINDER_REPEAT",
          expected: #"a duration of a minute or more, such as "24h""#)
      }
      repeatInterval = value
    }
    return ReminderSchedule(timeZone: timeZone, tomorrowTime: time, repeatInterval: repeatInterval)
  }
}

/// The reminder use cases. None needs the passphrase: reminders hold only ids and times.
public struct ReminderService {
  public let vault: Vault
  public let schedule: ReminderSchedule
  public let now: () -> Date

  public init(vault: Vault, schedule: ReminderSchedule, now: @escaping () -> Date) {
    self.vault = vault
    self.schedule = schedule
    self.now = now
  }

  /// The one session whose id starts with `text`.
  public func resolve(_ text: String) throws -> SessionID {
    try vault.resolve(text)
  }

  /// Sets a session's reminder. Returns when it falls due (nil for `.none`, which cancels).
  @discardableResult
  public func set(_ id: SessionID, _ choice: ReminderChoice) throws -> Date? {
    guard let status = try vault.status(of: id) else {
      throw StoreError.noMatch(prefix: id.short)
    }
    guard status == SessionStatus.needsReflection.rawValue else {
      throw AppError.lifecycle(.alreadyComplete, id: id.short)
    }
    let instant = now()
    let due: Date
    switch choice {
    case .inThreeHours: due = schedule.inThreeHours(from: instant)
    case .tomorrow: due = schedule.tomorrow(from: instant)
    case .after(let interval): due = instant.addingTimeInterval(interval)
    case .at(let date): due = date
    case .none:
      try vault.cancelReminder(id)
      return nil
    }
    try vault.setReminder(id, due: due, repeatInterval: schedule.repeatInterval)
    return due
  }

  /// The one gentle line every command shows once a reminder has come due; nil before. It
  /// counts what `journal status` counts, every session waiting for reflection, and says how
  /// many of them a reminder is due for.
  public func banner() throws -> String? {
    let instant = now()
    let due = try vault.reminders().filter { $0.isWaiting(at: instant) }
    guard let first = due.first else { return nil }
    let waiting = max(try vault.waitingCount(), due.count)
    let id = first.id.short
    // Each answer, as a command to copy as it is printed. "Leave it" means close, as at the
    // end of reflect's form; the notification's own third answer only stops the reminders.
    let answers =
      #""journal reflect \#(id)" now, "journal remind \#(id) --tomorrow" tomorrow, or "#
      + #""journal close \#(id)" to leave it there"#
    if waiting == 1 { return "1 session is waiting for your reflections — \(answers)" }
    if due.count == 1 {
      return "\(waiting) sessions are waiting for your reflections; a reminder is due for "
        + "\(id) — \(answers)"
    }
    return "\(waiting) sessions are waiting for your reflections, \(due.count) with a reminder "
      + #"due — "journal list --needs-reflection""#
  }

  /// Fires what is due: one calm notification for all of them, and only once it was
  /// delivered does each move to its next time (at the interval it was set with). With no
  /// notifier, or a failing one, nothing moves: the next run tries again, and every command's
  /// line keeps showing the session. Returns how many were delivered.
  ///
  /// With one session due and notify-send offering actions, the notification can be
  /// answered ("Reflect now", "Tomorrow", "No more reminders"): see
  /// `Notifier.deliver(_:answering:)`.
  @discardableResult
  public func run(notifier: Notifier) throws -> Int {
    let instant = now()
    let due = try vault.dueReminders(now: instant)
    let message = Notifier.message(count: max(try vault.waitingCount(), due.count))
    guard !due.isEmpty,
      notifier.deliver(message, answering: due.count == 1 ? due[0].id : nil, vault: vault.path)
    else { return 0 }
    try vault.advance(due, now: instant) {
      schedule.next(after: $0.due, interval: $0.repeatInterval, now: instant)
    }
    return due.count
  }
}

/// Delivers a reminder's words: JOURNAL_NOTIFY_COMMAND when set, else the desktop's
/// notification service (notify-send, when a session bus is there). The command is run by
/// /bin/sh with the words as its last argument: a script path or a command with arguments of
/// its own gets them appended (`notify.sh` sees them as "$1"); a command line that names a
/// positional parameter itself ("$1", "$@", "$*") gets them there and nothing is appended.
/// Only an exit status of 0 counts as delivered; a failure is reported in one line and changes
/// nothing else.
public struct Notifier {
  public let environment: [String: String]
  public let report: (String) -> Void

  public init(environment: [String: String], report: @escaping (String) -> Void) {
    self.environment = environment
    self.report = report
  }

  /// The answers a notification offers where notify-send can show actions, by the name
  /// notify-send prints when one is chosen.
  public enum Answer: String, CaseIterable, Sendable {
    /// Opens a terminal running `journal reflect <id>`.
    case reflect
    /// The reminder comes again tomorrow (JOURNAL_REMINDER_TIME).
    case tomorrow
    /// No more reminders for this session (it still waits in `list`). Not "Leave it": that
    /// means closing the session, in the line before commands and at the end of reflect.
    case stop

    public var label: String {
      switch self {
      case .reflect: "Reflect now"
      case .tomorrow: "Tomorrow"
      case .stop: "No more reminders"
      }
    }
  }

  /// notify-send, when it is the notifier (no JOURNAL_NOTIFY_COMMAND, a session bus) and
  /// can show actions (libnotify 0.7.10 and later: `--action` in its help).
  func notifySendWithActions() -> String? {
    guard environment["JOURNAL_NOTIFY_COMMAND"].map({ $0.isEmpty }) ?? true,
      environment["DBUS_SESSION_BUS_ADDRESS"].map({ !$0.isEmpty }) ?? false,
      let notifySend = ExternalEditor.locate(
        "notify-send", path: environment["PATH"] ?? "/usr/bin:/bin")
    else { return nil }
    guard let help = Subprocess.capture([notifySend, "--help"], limit: 64 * 1024, timeout: 5),
      help.status == 0
    else { return nil }
    return String(decoding: help.output, as: UTF8.self).contains("--action") ? notifySend : nil
  }

  /// Delivers `message`; with `id` (the one session due) and notify-send showing actions,
  /// as a notification that can be answered. The answer is waited for by a helper of its
  /// own (`journal reminders answer`, in a new session, so that this run ends): delivered
  /// once it has shown the notification (still waiting after 2 s, or answered by then); a
  /// helper that failed at once leaves the reminder due, like any failed delivery.
  @discardableResult
  public func deliver(_ message: String, answering id: SessionID?, vault path: String) -> Bool {
    guard let id, notifySendWithActions() != nil else { return deliver(message) }
    let binary = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
    guard
      let helper = Subprocess.start(
        [binary, "reminders", "answer", id.hex, "--vault", path],
        redirects: [
          .open("/dev/null", flags: O_RDONLY, onto: STDIN_FILENO),
          .open("/dev/null", flags: O_WRONLY, onto: STDOUT_FILENO),
        ], newSession: true)
    else { return deliver(message) }
    let deadline = Deadline(in: 2)
    var status: Int32 = 0
    while !deadline.hasPassed {
      let done = waitpid(helper, &status, WNOHANG)
      if done == helper {
        let code = status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        if code != 0 { report("the notifier ended with exit status \(code); the reminder stays") }
        return code == 0
      }
      usleep(20_000)
    }
    return true
  }

  /// Shows the notification with its answers and waits (as long as the person takes) for
  /// one; nil when it was closed unanswered or notify-send failed (`failed` says which).
  public func ask(_ message: String) -> (answer: Answer?, failed: Bool) {
    guard let notifySend = notifySendWithActions() else { return (nil, true) }
    let actions = Answer.allCases.map { "--action=\($0.rawValue)=\($0.label)" }
    // notify-send prints the name of the action chosen, once the person chooses one.
    guard
      let shown = Subprocess.capture(
        [notifySend, "--app-name=journal"] + actions + ["journal", message], limit: 4096),
      shown.status == 0
    else { return (nil, true) }
    let name = String(decoding: shown.output, as: UTF8.self).trimmingCharacters(
      in: .whitespacesAndNewlines)
    return (Answer(rawValue: name), false)
  }

  /// Words that tell a person glancing at a locked screen nothing: no substance, dose,
  /// intention, mood or date.
  public static func message(count: Int) -> String {
    count == 1
      ? "A session is waiting for your reflections, whenever you are ready."
      : "\(count) sessions are waiting for your reflections, whenever you are ready."
  }

  @discardableResult
  public func deliver(_ message: String) -> Bool {
    let arguments: [String]
    if let command = environment["JOURNAL_NOTIFY_COMMAND"], !command.isEmpty {
      arguments = ["/bin/sh", "-c", Notifier.commandLine(command), "journal-notify", message]
    } else if environment["DBUS_SESSION_BUS_ADDRESS"].map({ !$0.isEmpty }) ?? false,
      let notifySend = ExternalEditor.locate(
        "notify-send", path: environment["PATH"] ?? "/usr/bin:/bin")
    {
      arguments = [notifySend, "--app-name=journal", "journal", message]
    } else {
      report("no notifier: set JOURNAL_NOTIFY_COMMAND, or run under a desktop session")
      return false
    }
    let started = Subprocess.start(
      arguments, redirects: [.open("/dev/null", flags: O_RDONLY, onto: STDIN_FILENO)])
    let status = started.map { Subprocess.wait($0, timeout: 10) } ?? 127
    if status != 0 { report("the notifier ended with exit status \(status); the reminder stays") }
    return status == 0
  }

  /// `command` as the shell runs it: with `"$@"` appended unless it already names a
  /// positional parameter, so that the words always reach the notifier.
  static func commandLine(_ command: String) -> String {
    let positional = ["$1", "${1", "$@", "${@", "$*", "${*"]
    if positional.contains(where: command.contains) { return command }
    return command + " \"$@\""
  }

}
