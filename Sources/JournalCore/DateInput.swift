import Foundation

/// Reads the dates people type and checks them against the rules of a session's date.
///
/// Accepted, in the given time zone: `now`, `today`, `yesterday`, `HH:MM` (today),
/// `today HH:MM`, `yesterday HH:MM`, `YYYY-MM-DD` (midnight), `YYYY-MM-DD HH:MM[:SS]`,
/// `YYYY-MM-DDTHH:MM[:SS]`, and full ISO 8601 with `Z` or an offset.
public struct DateInput: Sendable {
  /// How far ahead of now a session's date may be: 60 days, for a session prepared ahead
  /// (it is planned until its date: `Lifecycle.isPlanned`).
  public static let maximumAhead: TimeInterval = 60 * 24 * 60 * 60

  private let calendar: Calendar

  public init(timeZone: TimeZone) {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = timeZone
    self.calendar = calendar
  }

  /// Parses `text` relative to `now` and checks it is a plausible session date.
  public func parse(_ text: String, now: Date) throws(FieldError) -> Date {
    let date = try read(text.trimmingWhitespace().lowercased(), now: now)
    try check(date, now: now)
    return date
  }

  /// Parses `text` relative to `now` without the session-date limits (for filters).
  public func parseInstant(_ text: String, now: Date) throws(FieldError) -> Date {
    try read(text.trimmingWhitespace().lowercased(), now: now)
  }

  /// The start of the day `text` names when it names a whole day — `today`, `yesterday` or a
  /// bare date — for a filter, where such a day means all of it; nil for an instant.
  public func dayStart(_ text: String, now: Date) throws(FieldError) -> Date? {
    let text = text.trimmingWhitespace().lowercased()
    let day: Date
    switch text {
    case "today": day = now
    case "yesterday": day = try shift(now, days: -1)
    default:
      guard text.count == 10, text.filter({ $0 == "-" }).count == 2 else { return nil }
      day = try read(text, now: now)
    }
    return calendar.startOfDay(for: day)
  }

  /// Checks a date from any source (a flag, an import) against the session-date rules.
  public func check(_ date: Date, now: Date) throws(FieldError) {
    if date > now.addingTimeInterval(DateInput.maximumAhead) { throw .dateTooFarAhead }
    let earliest = calendar.date(from: DateComponents(year: 1900, month: 1, day: 1)) ?? .distantPast
    if date < earliest { throw .dateTooFarBack }
  }

  private func read(_ text: String, now: Date) throws(FieldError) -> Date {
    switch text {
    case "now", "today": return now
    case "yesterday": return try shift(now, days: -1)
    default: break
    }
    let words = text.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
    if words.count == 2, words[0] == "today" || words[0] == "yesterday" {
      let day = words[0] == "today" ? now : try shift(now, days: -1)
      return try at(time: words[1], on: day)
    }
    if words.count == 1, text.contains(":"), !text.contains("-") {
      return try at(time: text, on: now)
    }
    if let iso = ISO8601.parse(text) { return iso }
    let parts = text.split(whereSeparator: { $0 == " " || $0 == "t" }).map(String.init)
    guard parts.count == 1 || parts.count == 2 else { throw .unreadableDate }
    let ymd = parts[0].split(separator: "-", omittingEmptySubsequences: false)
    guard ymd.count == 3, ymd[0].count == 4, ymd[1].count == 2, ymd[2].count == 2,
      let year = Int(ymd[0]), let month = Int(ymd[1]), let day = Int(ymd[2])
    else { throw .unreadableDate }
    var components = DateComponents(year: year, month: month, day: day, hour: 0, minute: 0)
    if parts.count == 2 {
      let time = try clock(parts[1])
      components.hour = time.hour
      components.minute = time.minute
      components.second = time.second
    }
    return try resolve(components)
  }

  private func shift(_ date: Date, days: Int) throws(FieldError) -> Date {
    guard let shifted = calendar.date(byAdding: .day, value: days, to: date) else {
      throw .unreadableDate
    }
    return shifted
  }

  private func at(time text: String, on day: Date) throws(FieldError) -> Date {
    let time = try clock(text)
    var components = calendar.dateComponents([.year, .month, .day], from: day)
    components.hour = time.hour
    components.minute = time.minute
    components.second = time.second
    return try resolve(components)
  }

  private func clock(_ text: String) throws(FieldError) -> (
    hour: Int, minute: Int, second: Int
  ) {
    let parts = text.split(separator: ":", omittingEmptySubsequences: false)
    guard parts.count == 2 || parts.count == 3, parts.allSatisfy({ $0.count == 2 }),
      let hour = Int(parts[0]), let minute = Int(parts[1]),
      (0...23).contains(hour), (0...59).contains(minute)
    else { throw .unreadableDate }
    var second = 0
    if parts.count == 3 {
      guard let s = Int(parts[2]), (0...59).contains(s) else { throw .unreadableDate }
      second = s
    }
    return (hour, minute, second)
  }

  /// Builds a date from components, refusing ones the calendar would silently roll over
  /// (February 30th) or that do not exist in the time zone.
  private func resolve(_ components: DateComponents) throws(FieldError) -> Date {
    guard let month = components.month, (1...12).contains(month),
      let day = components.day, (1...31).contains(day),
      let date = calendar.date(from: components)
    else { throw .unreadableDate }
    let back = calendar.dateComponents([.year, .month, .day], from: date)
    guard back.year == components.year, back.month == month, back.day == day else {
      throw .unreadableDate
    }
    return date
  }
}
