import Foundation

/// A tag on a session (`--tag grief`): a short name, sealed like every other field.
///
/// Stored as normalised here, so that `--tag Grief` and `--tag grief` are one tag: trimmed,
/// lowercased, in Unicode's composed form (NFC, so that "é" typed two ways is one tag), at
/// most `maximumBytes` of UTF-8, without control characters or commas (a comma separates
/// tags in CSV and in what people type). A session holds at most `maximumCount`, sorted by
/// their UTF-8 bytes (as any reader can sort them), each once.
public enum Tag {
  public static let maximumBytes = 64
  public static let maximumCount = 32

  /// The tag as stored, or an error saying what is wrong (never repeating the name).
  public static func normalise(_ name: String) throws(FieldError) -> String {
    let trimmed = name.replacingCRLF().trimmingWhitespace().lowercased()
      .precomposedStringWithCanonicalMapping
    guard !trimmed.isEmpty else { throw .emptyTag }
    guard trimmed.utf8.count <= maximumBytes else { throw .tagTooLong(maximumBytes: maximumBytes) }
    guard
      !trimmed.unicodeScalars.contains(where: {
        $0.properties.generalCategory == .control || $0 == ","
      })
    else { throw .tagCharacters }
    return trimmed
  }

  /// A session's tags as stored: sorted, each once; an error past `maximumCount`.
  public static func set(_ tags: some Sequence<String>) throws(FieldError) -> [String] {
    var seen = Set<[UInt8]>()
    let sorted = tags.filter { seen.insert(Array($0.utf8)).inserted }.sorted(by: precedes)
    guard sorted.count <= maximumCount else { throw .tooManyTags(maximum: maximumCount) }
    return sorted
  }

  /// Whether stored `tags` are as `set` leaves them and each as `normalise` leaves it: what a
  /// reader checks.
  public static func isStored(_ tags: [String]) -> Bool {
    tags.count <= maximumCount && zip(tags, tags.dropFirst()).allSatisfy(precedes)
      && tags.allSatisfy { tag in (try? normalise(tag)).map { Array($0.utf8) } == Array(tag.utf8) }
  }

  /// Whether `a` sorts before `b`: by their UTF-8 bytes.
  public static func precedes(_ a: String, _ b: String) -> Bool {
    a.utf8.lexicographicallyPrecedes(b.utf8)
  }
}
