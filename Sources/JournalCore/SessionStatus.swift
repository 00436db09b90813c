/// Where a session is in its life.
public enum SessionStatus: String, Hashable, Sendable, CaseIterable {
  /// The core form is being filled; lives only in memory (and, later, the encrypted draft file).
  case draft
  /// Saved to the vault; the reflection is still to come.
  case needsReflection = "needs_reflection"
  /// Reflected on.
  case complete
  /// Complete without a reflection: the person chose to leave it there ("journal close").
  /// A reflection can still be added; "journal reopen" makes it wait again.
  case closed

  /// The status in the vault's clear `status` column (SECURITY.md): a closed session is
  /// `complete` there, so that the clear column tells no more than it did before closing
  /// existed (whether a session still waits). Only the sealed summary says "closed".
  public var stored: SessionStatus { self == .closed ? .complete : self }

  /// How the status reads in lists and details.
  public var label: String {
    switch self {
    case .draft: "draft"
    case .needsReflection: "needs reflection"
    case .complete: "complete"
    case .closed: "closed, no reflection"
    }
  }
}
