import Foundation

/// Durations as people write them in settings: a whole number and one unit (s, m, h, d).
public enum DurationText {
  /// Ten years: longer makes no sense for any setting, and keeps every later conversion to
  /// integers far from overflow.
  public static let maximum: TimeInterval = 10 * 366 * 86400

  public static func parse(_ text: String) -> TimeInterval? {
    guard let value = read(text), value <= maximum else { return nil }
    return value
  }

  private static func read(_ text: String) -> TimeInterval? {
    let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
    guard let unit = trimmed.last, let number = Int(trimmed.dropLast()), number >= 0,
      number < 1_000_000_000
    else {
      return nil
    }
    switch unit {
    case "s": return TimeInterval(number)
    case "m": return TimeInterval(number) * 60
    case "h": return TimeInterval(number) * 3600
    case "d": return TimeInterval(number) * 86400
    default: return nil
    }
  }
}
