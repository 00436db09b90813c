import Foundation

/// The ranges every number read from the vault must fall in, whether from a clear column or
/// from inside a sealed record. Anyone who can write the vault file can plant any 64-bit
/// value in a clear column, and anyone can seal an addition to the vault's public key; a
/// value outside these ranges is damage of the row that holds it, reported as such, and
/// never reaches date arithmetic or a counter that could overflow (SECURITY.md, "Values
/// read from the vault").
public enum StoredRange {
  /// Instants, as milliseconds since 1970-01-01T00:00:00Z: years 0001 to 9999, as ISO 8601
  /// writes them. Wide enough for any date a person or an import can give; narrow enough
  /// that any sum of two such instants, or one and a repeat interval, stays far inside Int64.
  public static let millis: ClosedRange<Int64> = -62_135_596_800_000...253_402_300_799_999

  /// Revisions, generations, deletion batches and change numbers: counted up by one per
  /// write, so a vault written a million times a day for a thousand years stays far below
  /// the bound (2^53), and `value + 1` can never overflow.
  public static let counter: ClosedRange<Int64> = 0...(1 << 53)

  /// A reminder's repeat interval, in seconds: a minute to ten years.
  public static let repeatSeconds: ClosedRange<Int64> = 60...315_360_000

  /// The instant `millis` names, or nil when it is out of range.
  public static func date(millis: Int64) -> Date? {
    guard Self.millis.contains(millis) else { return nil }
    return Date(timeIntervalSince1970: Double(millis) / 1000)
  }

  /// `date` as milliseconds since 1970, held to the range: every date journal writes comes
  /// from a checked read, a validated input or the clock, so holding it is never seen; it
  /// keeps a clock set absurdly far from trapping.
  public static func millis(_ date: Date) -> Int64 {
    let value = (date.timeIntervalSince1970 * 1000).rounded()
    guard value.isFinite else { return value < 0 ? Self.millis.lowerBound : Self.millis.upperBound }
    if value <= Double(Self.millis.lowerBound) { return Self.millis.lowerBound }
    if value >= Double(Self.millis.upperBound) { return Self.millis.upperBound }
    return Int64(value)
  }

  /// Whether `value` is a counter journal could have written.
  public static func isCounter(_ value: Int64) -> Bool { counter.contains(value) }
}
