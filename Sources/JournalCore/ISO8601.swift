import Foundation

/// The one reader of ISO 8601 instants (RFC 3339: `2026-11-21T18:30:00Z`,
/// `2026-11-21T18:30:00.123456+01:00`), for typed dates, filters, reminders and imports.
///
/// Written by hand rather than handed to Foundation's ISO8601DateFormatter: ICU's parser
/// ends the process with SIGFPE on a long fraction of a second (`.<70 digits>`), and a date
/// is attacker-controlled input in an import file. Every shape check comes first, lengths
/// are capped, and the arithmetic cannot overflow: years 0001–9999 only.
public enum ISO8601 {
  /// The longest text read: a full instant with nanoseconds and an offset is 35 bytes;
  /// anything far longer is not a date.
  static let maximumLength = 64

  /// The instant `text` names, or nil when it is not exactly an RFC 3339 date-time
  /// (case-insensitive `T` and `Z`; the offset `±HH:MM` or `±HHMM`; a fraction of any
  /// length up to the cap, of which milliseconds are kept: the precision journal stores).
  public static func parse(_ text: String) -> Date? {
    let bytes = Array(text.utf8)
    guard bytes.count >= 20, bytes.count <= maximumLength else { return nil }
    var index = 0
    func number(_ digits: Int) -> Int? {
      guard index + digits <= bytes.count else { return nil }
      var value = 0
      for byte in bytes[index..<(index + digits)] {
        guard (0x30...0x39).contains(byte) else { return nil }
        value = value * 10 + Int(byte - 0x30)
      }
      index += digits
      return value
    }
    func expect(_ characters: UInt8...) -> Bool {
      guard index < bytes.count, characters.contains(bytes[index]) else { return false }
      index += 1
      return true
    }
    guard let year = number(4), expect(0x2D), let month = number(2), expect(0x2D),
      let day = number(2), expect(0x54, 0x74), let hour = number(2), expect(0x3A),
      let minute = number(2), expect(0x3A), let second = number(2)
    else { return nil }
    var milliseconds = 0
    if expect(0x2E) {
      var digits = 0
      while index < bytes.count, (0x30...0x39).contains(bytes[index]) {
        if digits < 3 { milliseconds = milliseconds * 10 + Int(bytes[index] - 0x30) }
        digits += 1
        index += 1
      }
      guard digits > 0 else { return nil }
      for _ in digits..<max(digits, 3) { milliseconds *= 10 }
    }
    var offset = 0
    if expect(0x5A, 0x7A) {
      offset = 0
    } else if index < bytes.count, bytes[index] == 0x2B || bytes[index] == 0x2D {
      let sign = bytes[index] == 0x2D ? -1 : 1
      index += 1
      guard let hours = number(2) else { return nil }
      _ = expect(0x3A)
      guard let minutes = number(2), hours <= 23, minutes <= 59 else { return nil }
      offset = sign * (hours * 3600 + minutes * 60)
    } else {
      return nil
    }
    guard index == bytes.count, year >= 1, (1...12).contains(month),
      (1...daysIn(month: month, year: year)).contains(day), hour <= 23, minute <= 59,
      second <= 60
    else { return nil }
    let days = daysFromCivil(year: year, month: month, day: day)
    let seconds = days * 86400 + hour * 3600 + minute * 60 + min(second, 59) - offset
    return Date(timeIntervalSince1970: Double(seconds * 1000 + milliseconds) / 1000)
  }

  /// "2026-11-21T17:30:00.000Z": the one written form, UTC to the millisecond (the precision
  /// journal stores), for JSON and exports. Written by hand: a formatter per date, or one
  /// behind a lock, was most of `list --json`'s time.
  public static func string(_ date: Date) -> String {
    let millis = Int((date.timeIntervalSince1970 * 1000).rounded())
    let (seconds, fraction) = floorDivide(millis, 1000)
    let (days, second) = floorDivide(seconds, 86400)
    let (year, month, day) = civil(fromDays: days)
    var bytes: [UInt8] = []
    bytes.reserveCapacity(24)
    func digits(_ value: Int, _ count: Int) {
      var divisor = 1
      for _ in 1..<count { divisor *= 10 }
      while divisor > 0 {
        bytes.append(UInt8(0x30 + (value / divisor) % 10))
        divisor /= 10
      }
    }
    digits(year, 4)
    bytes.append(0x2D)
    digits(month, 2)
    bytes.append(0x2D)
    digits(day, 2)
    bytes.append(0x54)
    digits(second / 3600, 2)
    bytes.append(0x3A)
    digits(second % 3600 / 60, 2)
    bytes.append(0x3A)
    digits(second % 60, 2)
    bytes.append(0x2E)
    digits(fraction, 3)
    bytes.append(0x5A)
    return String(decoding: bytes, as: UTF8.self)
  }

  private static func floorDivide(_ value: Int, _ divisor: Int) -> (Int, Int) {
    let quotient = value >= 0 ? value / divisor : -((-value + divisor - 1) / divisor)
    return (quotient, value - quotient * divisor)
  }

  /// The civil date of a day count since 1970-01-01 (Howard Hinnant's algorithm): the one
  /// copy, for the ISO writer and the display formats.
  public static func civil(fromDays days: Int) -> (year: Int, month: Int, day: Int) {
    let z = days + 719468
    let era = (z >= 0 ? z : z - 146096) / 146097
    let dayOfEra = z - era * 146097
    let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146096) / 365
    let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
    let mp = (5 * dayOfYear + 2) / 153
    let day = dayOfYear - (153 * mp + 2) / 5 + 1
    let month = mp < 10 ? mp + 3 : mp - 9
    return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
  }

  private static func daysIn(month: Int, year: Int) -> Int {
    switch month {
    case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
    case 4, 6, 9, 11: return 30
    default: return 31
    }
  }

  /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
  private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
    let y = month <= 2 ? year - 1 : year
    let era = (y >= 0 ? y : y - 399) / 400
    let yearOfEra = y - era * 400
    let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
    let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
    return era * 146097 + dayOfEra - 719468
  }
}
