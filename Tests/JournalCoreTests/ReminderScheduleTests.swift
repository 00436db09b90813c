import Foundation
import JournalCore
import Testing

struct ReminderScheduleTests {
  let berlin = TimeZone(identifier: "Europe/Berlin") ?? .gmt

  func utc(_ text: String) -> Date {
    let formatter = ISO8601DateFormatter()
    return formatter.date(from: text) ?? .distantPast
  }

  /// "In 3 hours" is exactly three hours, even across a DST change.
  @Test func threeHours() {
    let schedule = ReminderSchedule(timeZone: berlin)
    // 2026-10-25 01:30 CEST; clocks go back at 03:00 CEST.
    let now = utc("2026-10-24T23:30:00Z")
    #expect(schedule.inThreeHours(from: now) == utc("2026-10-25T02:30:00Z"))
  }

  /// "Tomorrow" is 09:00 local on the next day, whatever the offset that day.
  @Test func tomorrowAcrossDST() {
    let schedule = ReminderSchedule(timeZone: berlin)
    // Saturday 22:00 CEST (UTC+2); Sunday is CET (UTC+1).
    #expect(schedule.tomorrow(from: utc("2026-10-24T20:00:00Z")) == utc("2026-10-25T08:00:00Z"))
    // Just after midnight, "tomorrow" is the next calendar day, not today.
    #expect(schedule.tomorrow(from: utc("2026-11-20T23:30:00Z")) == utc("2026-11-22T08:00:00Z"))
    let evening = ReminderSchedule(timeZone: berlin, tomorrowTime: (19, 30))
    #expect(evening.tomorrow(from: utc("2026-11-20T10:00:00Z")) == utc("2026-11-21T18:30:00Z"))
  }

  /// A daily repeat keeps 09:00 local across the DST change; an hourly one is exact.
  @Test func repeats() {
    let daily = ReminderSchedule(timeZone: berlin)
    let due = utc("2026-10-24T07:00:00Z")  // 09:00 CEST
    #expect(daily.next(after: due, now: due) == utc("2026-10-25T08:00:00Z"))  // 09:00 CET
    let hourly = ReminderSchedule(timeZone: berlin, repeatInterval: 3600)
    #expect(hourly.next(after: due, now: due) == due + 3600)
  }

  /// After a week asleep, a reminder fires once and comes back at the next time ahead, not
  /// once for every missed day.
  @Test func catchUpAfterGap() {
    let daily = ReminderSchedule(timeZone: .gmt)
    let due = utc("2026-11-01T09:00:00Z")
    let now = utc("2026-11-08T12:00:00Z")
    #expect(daily.next(after: due, now: now) == utc("2026-11-09T09:00:00Z"))
    let hourly = ReminderSchedule(timeZone: .gmt, repeatInterval: 3600)
    #expect(hourly.next(after: due, now: now) == utc("2026-11-08T13:00:00Z"))
  }
}
