/// Where a session is in its life.
public enum SessionStatus: String, Hashable, Sendable, CaseIterable {
  /// The core form is being filled; lives only in memory (and, later, the encrypted draft file).
  case draft
  /// Saved to the vault; the reflection is still to come.
  case needsReflection = "needs_reflection"
  /// Reflected on.
  case complete

  /// How the status reads in lists and details.
  public var label: String {
    switch self {
    case .draft: "draft"
    case .needsReflection: "needs reflection"
    case .complete: "complete"
    }
  }
}
