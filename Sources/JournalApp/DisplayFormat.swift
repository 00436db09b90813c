import Foundation

/// How dates read for people: local time, 24-hour, with the weekday.
public struct DisplayFormat: Sendable {
  private let timeZone: TimeZone

  public init(timeZone: TimeZone) { self.timeZone = timeZone }

  /// "Sat 2026-11-21 18:30"
  public func dateTime(_ date: Date) -> String {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = timeZone
    let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .weekday], from: date)
    let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    let weekday = weekdays[((c.weekday ?? 1) - 1) % 7]
    return
      "\(weekday) \(pad(c.year, 4))-\(pad(c.month))-\(pad(c.day)) \(pad(c.hour)):\(pad(c.minute))"
  }

  /// "2026-11-21T17:30:00.000Z": the stable form for JSON.
  public static func iso8601(_ date: Date) -> String {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    return formatter.string(from: date)
  }

  private func pad(_ value: Int?, _ width: Int = 2) -> String {
    let text = String(value ?? 0)
    return String(repeating: "0", count: max(0, width - text.count)) + text
  }
}
