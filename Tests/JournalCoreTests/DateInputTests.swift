import Foundation
import JournalCore
import Testing

struct DateInputTests {
  // 2026-11-21 18:30:00 UTC, a Saturday.
  let now = Date(timeIntervalSince1970: 1_795_285_800)
  let utc = DateInput(timeZone: TimeZone.gmt)

  func utcDate(_ y: Int, _ m: Int, _ d: Int, _ h: Int = 0, _ min: Int = 0) -> Date {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone.gmt
    return calendar.date(from: DateComponents(year: y, month: m, day: d, hour: h, minute: min))
      ?? .distantPast
  }

  /// Every accepted form reads as the instant it names.
  @Test(
    arguments: [
      ("now", 0), ("today", 0), ("yesterday", -86400), ("18:00", -1800),
      ("yesterday 20:00", -86400 + 5400), ("today 19:30", 3600),
    ] as [(String, Double)])
  func relativeForms(text: String, offset: Double) throws {
    #expect(try utc.parse(text, now: now) == now + offset)
  }

  /// Calendar forms, with and without a time, and ISO 8601 with a zone.
  @Test func absoluteForms() throws {
    #expect(try utc.parse("2026-11-20", now: now) == utcDate(2026, 11, 20))
    #expect(try utc.parse("2026-11-20 21:15", now: now) == utcDate(2026, 11, 20, 21, 15))
    #expect(try utc.parse("2026-11-20T21:15", now: now) == utcDate(2026, 11, 20, 21, 15))
    #expect(try utc.parse("2026-11-20T21:15:00+01:00", now: now) == utcDate(2026, 11, 20, 20, 15))
    #expect(try utc.parse("2026-11-20T21:15:00Z", now: now) == utcDate(2026, 11, 20, 21, 15))
  }

  /// Local forms follow the given time zone, across a daylight-saving change.
  @Test func timeZones() throws {
    let berlin = DateInput(timeZone: TimeZone(identifier: "Europe/Berlin")!)
    // Summer time (UTC+2), then winter time (UTC+1) after 2026-10-25.
    #expect(try berlin.parse("2026-10-24 12:00", now: now) == utcDate(2026, 10, 24, 10))
    #expect(try berlin.parse("2026-10-26 12:00", now: now) == utcDate(2026, 10, 26, 11))
  }

  /// Sixty days ahead is the limit (a session planned ahead); beyond it, nonsense and slips
  /// are refused with their own error.
  @Test func limits() throws {
    #expect(try utc.parse("2026-11-22 18:30", now: now) == now + 86400)
    #expect(try utc.parse("2027-01-20 18:30", now: now) == now + 60 * 86400)
    #expect(throws: FieldError.dateTooFarAhead) { try utc.parse("2027-01-20 18:31", now: now) }
    #expect(throws: FieldError.dateTooFarAhead) { try utc.parse("2027-01-21", now: now) }
    #expect(throws: FieldError.dateTooFarAhead) { try utc.parse("2099-01-01", now: now) }
    #expect(throws: FieldError.dateTooFarBack) { try utc.parse("1899-12-31", now: now) }
    for bad in ["2026-02-30", "2026-13-01", "25:00", "tomorrowish", "2026/11/20", "", "12"] {
      #expect(throws: FieldError.unreadableDate, "\(bad)") { try utc.parse(bad, now: now) }
    }
  }
}
