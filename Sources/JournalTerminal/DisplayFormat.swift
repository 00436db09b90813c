import Foundation
import JournalCore

/// How dates read for people: local time, 24-hour, with the weekday.
public struct DisplayFormat: Sendable {
  private let calendar: Calendar

  public init(timeZone: TimeZone) {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = timeZone
    self.calendar = calendar
  }

  /// "Sat 2026-11-21 18:30"
  public func dateTime(_ date: Date) -> String {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(20)
    appendDateTime(date, to: &bytes)
    return String(decoding: bytes, as: UTF8.self)
  }

  /// "Saturday 21 November 2026, 18:30": the date as it is said, for plain mode read aloud
  /// (a screen reader says "2026-11-21" as "two thousand and twenty-six dash eleven dash…").
  public func spokenDateTime(_ date: Date) -> String {
    let parts = calendar.dateComponents(
      [.weekday, .day, .month, .year, .hour, .minute], from: date)
    let weekday = Self.weekdayNames[((parts.weekday ?? 1) - 1) % 7]
    let month = Self.monthNames[((parts.month ?? 1) - 1) % 12]
    let time = String(format: "%02d:%02d", parts.hour ?? 0, parts.minute ?? 0)
    return "\(weekday) \(parts.day ?? 1) \(month) \(parts.year ?? 0), \(time)"
  }

  private static let weekdayNames = [
    "Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday",
  ]
  private static let monthNames = [
    "January", "February", "March", "April", "May", "June", "July", "August", "September",
    "October", "November", "December",
  ]

  /// An id as it is said: its characters apart ("5 b 5 4 9 6 b 7"), so that a screen reader
  /// spells it rather than reading "5496" as a number. Typed back, the spaces are ignored.
  public static func spokenID(_ id: String) -> String {
    id.map(String.init).joined(separator: " ")
  }

  /// "Sat 2026-11-21"
  public func day(_ date: Date) -> String { String(dateTime(date).prefix(14)) }

  /// "2026-11": the year and month, in this zone.
  public func month(_ date: Date) -> String { String(dateTime(date).dropFirst(4).prefix(7)) }

  /// Appends "Sat 2026-11-21 18:30" as UTF-8.
  ///
  /// Civil-date arithmetic (ISO8601.civil, Howard Hinnant's) on the zone's offset
  /// at that instant: `list` formats one date per session, and Calendar's general machinery
  /// cost more than the decryption.
  public func appendDateTime(_ date: Date, to bytes: inout [UInt8]) {
    let offset = calendar.timeZone.secondsFromGMT(for: date)
    let seconds = Int((date.timeIntervalSince1970).rounded(.down)) + offset
    let days = seconds >= 0 ? seconds / 86400 : (seconds - 86399) / 86400
    let secondOfDay = seconds - days * 86400
    let (year, month, day) = ISO8601.civil(fromDays: days)
    let weekday = Self.weekdays[((days % 7) + 7) % 7]  // 1970-01-01 was a Thursday
    if (0...9999).contains(year) {
      // The usual case, all 20 bytes at once: one append per date rather than twenty.
      var text: (UInt64, UInt64, UInt32) = (0, 0, 0)
      withUnsafeMutableBytes(of: &text) { out in
        func two(_ value: Int, at index: Int) {
          out[index] = UInt8(0x30 + value / 10)
          out[index + 1] = UInt8(0x30 + value % 10)
        }
        out[0] = weekday[0]
        out[1] = weekday[1]
        out[2] = weekday[2]
        out[3] = 0x20
        two(year / 100, at: 4)
        two(year % 100, at: 6)
        out[8] = 0x2D
        two(month, at: 9)
        out[11] = 0x2D
        two(day, at: 12)
        out[14] = 0x20
        two(secondOfDay / 3600, at: 15)
        out[17] = 0x3A
        two((secondOfDay % 3600) / 60, at: 18)
      }
      withUnsafeBytes(of: text) { bytes.append(contentsOf: $0) }
      return
    }
    bytes += weekday
    bytes.append(0x20)
    Self.digits(year, 4, &bytes)
    bytes.append(0x2D)
    Self.digits(month, 2, &bytes)
    bytes.append(0x2D)
    Self.digits(day, 2, &bytes)
    bytes.append(0x20)
    Self.digits(secondOfDay / 3600, 2, &bytes)
    bytes.append(0x3A)
    Self.digits((secondOfDay % 3600) / 60, 2, &bytes)
  }

  private static let weekdays = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"].map {
    Array($0.utf8)
  }

  /// Appends `value` in decimal, zero-padded to `width` digits.
  static func digits(_ value: Int, _ width: Int, _ bytes: inout [UInt8]) {
    guard value >= 0 else {
      bytes.append(0x2D)
      digits(-value, width - 1, &bytes)
      return
    }
    if value < 100 && width == 2 {  // months, days, hours, minutes: no division loop
      bytes.append(UInt8(0x30 + value / 10))
      bytes.append(UInt8(0x30 + value % 10))
      return
    }
    var count = 1
    var rest = value / 10
    while rest > 0 {
      count += 1
      rest /= 10
    }
    for _ in count..<max(count, width) { bytes.append(0x30) }
    var divisor = 1
    for _ in 1..<count { divisor *= 10 }
    while divisor > 0 {
      bytes.append(UInt8(0x30 + value / divisor % 10))
      divisor /= 10
    }
  }

  /// "2026-11-21T17:30:00.000Z": the stable form for JSON (ISO8601's one writer).
  public static func iso8601(_ date: Date) -> String {
    ISO8601.string(date)
  }

}
