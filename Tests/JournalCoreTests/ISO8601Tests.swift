import Foundation
import JournalCore
import Testing

/// The one ISO 8601 reader: the instants RFC 3339 names, nothing else, and never a crash.
struct ISO8601Tests {
  /// Known instants, in every accepted spelling, agree with Foundation's own reading.
  @Test(arguments: [
    "2026-11-21T18:30:00Z", "2026-11-21t18:30:00z", "2026-11-21T18:30:00+01:00",
    "2026-11-21T18:30:00-0530", "2024-02-29T23:59:59Z", "1900-01-01T00:00:00Z",
    "2026-11-21T18:30:00.250Z", "9999-12-31T23:59:59+14:00",
  ])
  func agreesWithFoundation(_ text: String) throws {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    let plain = ISO8601DateFormatter()
    let expected = try #require(
      formatter.date(from: text.uppercased()) ?? plain.date(from: text.uppercased()))
    let parsed = try #require(ISO8601.parse(text))
    #expect(abs(parsed.timeIntervalSince(expected)) < 0.001, "\(text)")
  }

  /// A fraction of any length (up to the length cap) is read to the millisecond, the
  /// precision journal keeps; the SIGFPE that ICU has on 70 digits cannot happen here.
  @Test func longFractionIsReadNotCrashed() throws {
    let text = "2026-01-01T00:00:00." + String(repeating: "9", count: 40) + "Z"
    let parsed = try #require(ISO8601.parse(text))
    #expect(parsed.timeIntervalSince1970 == 1_767_225_600.999)
    let tooLong = "2026-01-01T00:00:00." + String(repeating: "9", count: 70) + "Z"
    #expect(ISO8601.parse(tooLong) == nil)
  }

  /// Everything that is not exactly an RFC 3339 date-time is refused.
  @Test(arguments: [
    "", "2026-11-21", "2026-11-21T18:30Z", "2026-11-21T18:30:00", "2026-13-01T00:00:00Z",
    "2026-02-30T00:00:00Z", "2025-02-29T00:00:00Z", "2026-11-21T24:00:00Z",
    "2026-11-21T18:60:00Z", "2026-11-21T18:30:00.Z", "2026-11-21T18:30:00+24:00",
    "0000-01-01T00:00:00Z", "2026-11-21T18:30:00Z trailing", "２０２６-11-21T18:30:00Z",
    "+2026-11-21T18:30:00Z", "2026-11-21T18:30:00+01:0",
  ])
  func refused(_ text: String) {
    #expect(ISO8601.parse(text) == nil, "\(text)")
  }

  /// The one writer agrees with Foundation's formatter to the millisecond, and reads back.
  @Test(arguments: [
    0.0, 1_795_285_800.123, -86_400.5, 951_782_400.999, 253_402_300_799.0, -2_208_988_800.0,
    1_709_164_800.001,
  ])
  func writesWhatFoundationWrites(_ seconds: Double) throws {
    let date = Date(timeIntervalSince1970: seconds)
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    #expect(ISO8601.string(date) == formatter.string(from: date))
    let back = try #require(ISO8601.parse(ISO8601.string(date)))
    #expect(abs(back.timeIntervalSince(date)) < 0.001)
  }
}
