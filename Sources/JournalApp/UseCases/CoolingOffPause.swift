import Foundation
import JournalCore
import JournalDiagnostics

/// The pause before an act that cannot be undone, right after a session (issue 36): within
/// the `cooling-off` window after the last session, such an act first says, calmly, how long
/// ago the session was and that this can wait, and asks once more (No by default). It never
/// blocks: with `--yes`, or without a terminal (a script), nothing is said or asked. The one
/// definition of its words; the rule is `CoolingOff`'s.
enum CoolingOffPause {
  /// The acts that pause, each with its question and what a no leaves as it was.
  enum Act {
    case changeKey
    case removeRecoveryCode
    case leaveSync(deletingServerCopy: Bool)
    case captureOff
    /// A deletion with no undo window (JOURNAL_UNDO_WINDOW=0): purged at once.
    case deleteForGood(sessions: Int)

    /// Asked after the calm line; the answer defaults to no.
    var question: String {
      switch self {
      case .changeKey: "Change the key now anyway?"
      case .removeRecoveryCode: "Remove the recovery code now anyway?"
      case .leaveSync(false): "Stop syncing here now anyway?"
      case .leaveSync(true): "Stop syncing and delete the server's copy now anyway?"
      case .captureOff: "Turn off writing without the passphrase now anyway?"
      case .deleteForGood(1): "It cannot be undone. Delete it for good now anyway?"
      case .deleteForGood: "They cannot be undone. Delete them for good now anyway?"
      }
    }

    /// What is said after a no (as `journal delete` says its "nothing was deleted").
    var kept: String {
      switch self {
      case .changeKey: "the key was not changed"
      case .removeRecoveryCode: "the recovery code was kept"
      case .leaveSync: "this journal still syncs here"
      case .captureOff: "writing without the passphrase is still on"
      case .deleteForGood: "nothing was deleted"
      }
    }
  }

  /// The window, read before anything is asked: a bad setting stops the command at once,
  /// with or without a terminal.
  static func window(_ runtime: Runtime) throws -> TimeInterval {
    try CoolingOffWindow.duration(environment: runtime.context.environment)
  }

  /// On a terminal and unless `confirmed` (--yes): when the last session that has happened
  /// was less than `window` ago, says so and asks `act`'s question. A no throws
  /// `AppError.declined` before anything changed. Reads the sessions' dates only when it
  /// could ask: a script pays nothing.
  static func check(
    _ act: Act, window: TimeInterval, journal: JournalVault, confirmed: Bool, _ runtime: Runtime
  ) throws {
    guard !confirmed, window > 0, let terminal = runtime.terminal else { return }
    let now = runtime.context.now()
    // Only the newest session that has happened: a planned one, dated ahead, is left out,
    // and one summary is enough.
    var filter = SessionFilter(now: now, standing: .happened)
    filter.limit = 1
    var dates: [Date] = []
    _ = try journal.streamList(filter) { dates.append($0.date) }
    guard let since = CoolingOff.sinceLastSession(dates, now: now, window: window) else {
      return
    }
    terminal.writeLine(line(since: since))
    let forms = Forms(terminal: terminal, context: runtime.context)
    guard try forms.confirm(act.question, default: false, destructive: true) else {
      throw AppError.declined(what: act.kept)
    }
  }

  /// "Your last session was 3 hours ago. This can wait until another day."
  static func line(since: TimeInterval) -> String {
    "Your last session was \(ago(since)). This can wait until another day."
  }

  /// How long ago, in the words a person would use: minutes under an hour, hours under a
  /// day, then days; always rounded down, so it never sounds longer than it was.
  static func ago(_ seconds: TimeInterval) -> String {
    let minutes = Int(max(seconds, 0) / 60)
    let hours = minutes / 60
    let days = hours / 24
    switch (days, hours, minutes) {
    case (0, 0, 0): return "less than a minute ago"
    case (0, 0, 1): return "a minute ago"
    case (0, 0, _): return "\(minutes) minutes ago"
    case (0, 1, _): return "an hour ago"
    case (0, _, _): return "\(hours) hours ago"
    case (1, _, _): return "a day ago"
    default: return "\(days) days ago"
    }
  }
}
