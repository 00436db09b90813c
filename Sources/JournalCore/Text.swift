import Foundation

/// Rules for the free texts people type.
public enum Text {
  /// Trims surrounding whitespace, turns CRLF into LF, and checks size and characters.
  /// Returns nil for a text that is empty once trimmed.
  ///
  /// - Parameter multiline: long texts keep newlines and tabs; short ones allow neither.
  public static func normalise(
    _ text: String, field: Field, multiline: Bool
  ) throws(FieldError) -> String? {
    let unified = text.replacingCRLF()
    let trimmed = unified.trimmingWhitespace()
    guard !trimmed.isEmpty else { return nil }
    guard trimmed.utf8.count <= field.maximumBytes else {
      throw .textTooLong(field: field, maximumBytes: field.maximumBytes)
    }
    if let allowed = trimmed.utf8.withContiguousStorageIfAvailable({
      Self.onlyAllowedControls($0, multiline: multiline)
    }) {
      guard allowed else { throw .controlCharacters(field: field) }
      return trimmed
    }
    for scalar in trimmed.unicodeScalars where scalar.isControl {
      guard multiline, scalar == "\n" || scalar == "\t" else {
        throw .controlCharacters(field: field)
      }
    }
    return trimmed
  }

  /// Whether UTF-8 `bytes` hold no control character (U+0000–U+001F, U+007F–U+009F) but a
  /// newline or a tab in a `multiline` text: as `Unicode.Scalar.isControl`, read from the
  /// bytes (U+0080–U+009F are 0xC2 0x80–0x9F), without decoding every scalar.
  static func onlyAllowedControls(_ bytes: UnsafeBufferPointer<UInt8>, multiline: Bool) -> Bool {
    var index = 0
    // Eight bytes at a time while none is below 0x20, 0x7F or 0xC2 (a word with one is read
    // byte by byte below).
    let ones: UInt64 = 0x0101_0101_0101_0101
    let highs: UInt64 = 0x8080_8080_8080_8080
    func hasZero(_ word: UInt64) -> Bool { (word &- ones) & ~word & highs != 0 }
    while index + 8 <= bytes.count, let base = bytes.baseAddress {
      let word = UInt64(
        littleEndian: UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self))
      let below20 = (word &- ones &* 0x20) & ~word & highs != 0
      if below20 || hasZero(word ^ (ones &* 0x7F)) || hasZero(word ^ (ones &* 0xC2)) { break }
      index += 8
    }
    while index < bytes.count {
      let byte = bytes[index]
      index += 1
      if byte >= 0x20 && byte < 0x7F { continue }
      if byte < 0x20 {
        guard multiline, byte == 0x0A || byte == 0x09 else { return false }
      } else if byte == 0x7F {
        return false
      } else if byte == 0xC2, index < bytes.count, bytes[index] < 0xA0 {
        return false
      }
    }
    return true
  }
}

extension String {
  /// The string without leading and trailing spaces, tabs and newlines.
  public func trimmingWhitespace() -> String {
    // Most texts start and end with a letter or a full stop: nothing to trim, nothing copied.
    if let first = utf8.first, let last = utf8.last, Self.isPlainASCII(first),
      Self.isPlainASCII(last)
    {
      return self
    }
    let scalars = unicodeScalars
    guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
      let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })
    else { return "" }
    return String(scalars[first...last])
  }

  public var containsControlCharacters: Bool {
    unicodeScalars.contains { $0.isControl }
  }

  /// An ASCII byte that is neither whitespace (U+0009–U+000D, U+0020) nor a control.
  private static func isPlainASCII(_ byte: UInt8) -> Bool { byte > 0x20 && byte < 0x7F }

  func replacingCRLF() -> String {
    // A loop over the bytes: the generic `utf8.contains` was a tenth of an import.
    let hasCR =
      utf8.withContiguousStorageIfAvailable { bytes in
        bytes.baseAddress.map { memchr($0, 13, bytes.count) != nil } ?? false
      } ?? utf8.contains(13)
    guard hasCR else { return self }
    var out = String.UnicodeScalarView()
    var previousCR = false
    for scalar in unicodeScalars {
      if previousCR && scalar != "\n" { out.append("\n") }
      previousCR = scalar == "\r"
      if !previousCR { out.append(scalar) }
    }
    if previousCR { out.append("\n") }
    return String(out)
  }
}

extension Unicode.Scalar {
  /// Whether this is a control character (general category Cc): exactly U+0000–U+001F and
  /// U+007F–U+009F, so no lookup in Unicode's tables is needed (which was a sixth of an
  /// import: every character of every text is checked).
  var isControl: Bool { value < 0x20 || (0x7F...0x9F).contains(value) }
}
