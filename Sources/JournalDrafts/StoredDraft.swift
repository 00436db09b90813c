import Foundation
import JournalCore

/// A draft as kept in its file: the form's fields and when it was started and last changed.
public struct StoredDraft: Hashable, Sendable {
  public var draft: SessionDraft
  public let started: Date
  public var updated: Date

  public init(draft: SessionDraft, started: Date, updated: Date) {
    self.draft = draft
    self.started = started
    self.updated = updated
  }

  /// How many of the five "Now" fields are answered (a count, never their content).
  public var filledCount: Int { draft.answered.count }
}
