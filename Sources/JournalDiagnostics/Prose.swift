/// How lists read in sentences.
public enum Prose {
  /// "a", "a and b", "a, b and c".
  public static func list(_ parts: [String]) -> String {
    guard let last = parts.last else { return "" }
    return parts.count == 1 ? last : parts.dropLast().joined(separator: ", ") + " and " + last
  }
}
