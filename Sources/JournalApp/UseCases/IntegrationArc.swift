import Foundation
import JournalCore
import JournalDiagnostics
import JournalTerminal

/// Gentle prompts to revisit a session's intention a day, a week and a month after it.
/// Off unless the `integration-prompts` setting is on. Shown on that day in the line every
/// unlocked command prints first; nothing is recorded about them, so nothing is counted.
public enum IntegrationArc {
  public enum Milestone: Sendable, Equatable, CaseIterable {
    case day, week, month

    var offset: DateComponents {
      switch self {
      case .day: DateComponents(day: 1)
      case .week: DateComponents(day: 7)
      case .month: DateComponents(month: 1)
      }
    }

    var phrase: String {
      switch self {
      case .day: "a day"
      case .week: "a week"
      case .month: "a month"
      }
    }
  }

  /// Whether the setting is on (JOURNAL_INTEGRATION_PROMPTS, or `integration-prompts`).
  public static func isOn(environment: [String: String]) throws(AppError) -> Bool {
    try Setting.flag("JOURNAL_INTEGRATION_PROMPTS", environment: environment) ?? false
  }

  /// The sessions whose day, week or month falls on `today`'s calendar day, oldest
  /// milestone first.
  public static func due(
    _ sessions: [SessionSummary], today: Date, timeZone: TimeZone
  ) -> [(session: SessionSummary, milestone: Milestone)] {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = timeZone
    let day = calendar.startOfDay(for: today)
    // Only sessions of the last five weeks can have a milestone today: a plain comparison
    // first, so the calendar's work is for a handful of sessions, not all of them.
    let earliest = day.addingTimeInterval(-35 * 86_400)
    let recent = sessions.filter { $0.date >= earliest && $0.date < day }
      .sorted { $0.date < $1.date }
    var found: [(SessionSummary, Milestone)] = []
    for milestone in Milestone.allCases.reversed() {
      for session in recent {
        let start = calendar.startOfDay(for: session.date)
        guard let then = calendar.date(byAdding: milestone.offset, to: start) else { continue }
        if calendar.isDate(then, inSameDayAs: day) { found.append((session, milestone)) }
      }
    }
    return found
  }

  /// The line for one prompt: when, which session, and how to open it. Never its text.
  public static func line(
    _ session: SessionSummary, _ milestone: Milestone, format: DisplayFormat
  ) -> String {
    "\(milestone.phrase) since the session of \(format.day(session.date)); its intention is "
      + "there to revisit (journal show \(session.id.short)), and what has come up since can "
      + "go in a note: journal note \(session.id.short)"
  }
}
