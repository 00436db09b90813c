import Foundation

/// When reminders fall due and when they come back: pure functions of now, the calendar and
/// the time zone.
public struct ReminderSchedule: Sendable {
  private let calendar: Calendar
  /// The hour (and minute) "tomorrow" means, local time: 09:00 unless set otherwise.
  public let tomorrowTime: (hour: Int, minute: Int)
  /// How often a due reminder comes back until the session is reflected on: 24 h.
  public let repeatInterval: TimeInterval

  public init(
    timeZone: TimeZone, tomorrowTime: (hour: Int, minute: Int) = (9, 0),
    repeatInterval: TimeInterval = 86400
  ) {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = timeZone
    self.calendar = calendar
    self.tomorrowTime = tomorrowTime
    self.repeatInterval = repeatInterval
  }

  /// "In 3 hours": an exact interval, whatever the clock on the wall does meanwhile.
  public func inThreeHours(from now: Date) -> Date { now.addingTimeInterval(3 * 3600) }

  /// "Tomorrow": the next calendar day at the configured local time, across any DST change.
  public func tomorrow(from now: Date) -> Date {
    let today = calendar.startOfDay(for: now)
    let next = calendar.date(byAdding: .day, value: 1, to: today) ?? now.addingTimeInterval(86400)
    return calendar.date(
      bySettingHour: tomorrowTime.hour, minute: tomorrowTime.minute, second: 0, of: next)
      ?? next
  }

  /// The next time after `now` that a reminder due at `due` comes back. A whole number of
  /// days keeps the local time of day (09:00 stays 09:00 across DST); other intervals are
  /// exact. After a long gap (a machine asleep for a week) it fires once, not once per
  /// missed day: the next time is the first repetition still ahead.
  public func next(after due: Date, now: Date) -> Date {
    next(after: due, interval: repeatInterval, now: now)
  }

  /// The same, for a reminder that keeps its own interval (set when it was made).
  public func next(after due: Date, interval repeatInterval: TimeInterval, now: Date) -> Date {
    let days = repeatInterval / 86400
    if days >= 1, days == days.rounded() {
      var candidate = due
      var step = 0
      while candidate <= now {
        step += Int(days)
        candidate =
          calendar.date(byAdding: .day, value: step, to: due)
          ?? now.addingTimeInterval(repeatInterval)
      }
      return candidate
    }
    let missed = max(0, floor(now.timeIntervalSince(due) / repeatInterval) + 1)
    return due.addingTimeInterval(missed * repeatInterval)
  }
}
