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
    for scalar in trimmed.unicodeScalars where scalar.isControl {
      guard multiline, scalar == "\n" || scalar == "\t" else {
        throw .controlCharacters(field: field)
      }
    }
    return trimmed
  }
}

extension String {
  /// The string without leading and trailing spaces, tabs and newlines.
  public func trimmingWhitespace() -> String {
    let scalars = unicodeScalars
    guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
      let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })
    else { return "" }
    return String(scalars[first...last])
  }

  var containsControlCharacters: Bool {
    unicodeScalars.contains { $0.isControl }
  }

  func replacingCRLF() -> String {
    guard utf8.contains(13) else { return self }
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
