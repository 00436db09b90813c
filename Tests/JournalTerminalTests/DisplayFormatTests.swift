import Foundation
import JournalTerminal
import Testing

struct DisplayFormatTests {
  /// The fast civil-date formatting agrees with Foundation's calendar across eras, leap days,
  /// time zones and a DST change.
  @Test(arguments: ["UTC", "Europe/Berlin", "America/New_York", "Asia/Kolkata", "Pacific/Chatham"])
  func agreesWithCalendar(zone: String) throws {
    let timeZone = try #require(TimeZone(identifier: zone))
    let format = DisplayFormat(timeZone: timeZone)
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = timeZone
    let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    var instant = -2_208_988_800.0  // 1900-01-01
    while instant < 4_102_444_800 {  // 2100-01-01
      let date = Date(timeIntervalSince1970: instant)
      let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .weekday], from: date)
      let expected = String(
        format: "%@ %04d-%02d-%02d %02d:%02d", weekdays[(c.weekday ?? 1) - 1], c.year ?? 0,
        c.month ?? 0,
        c.day ?? 0, c.hour ?? 0, c.minute ?? 0)
      #expect(format.dateTime(date) == expected, "\(instant)")
      instant += 3_456_789.5  // about 40 days, wandering through hours and minutes
    }
  }
}
