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
  public var filledCount: Int {
    let d = draft
    return [
      d.date != nil, d.treatment != nil, d.dose != nil, d.intention != nil, d.moodBefore != nil,
    ]
    .filter { $0 }.count
  }

  /// The "Now" fields answered so far.
  public var answered: Set<Field> {
    let d = draft
    var fields: Set<Field> = []
    if d.date != nil { fields.insert(.date) }
    if d.treatment != nil { fields.insert(.treatment) }
    if d.dose != nil { fields.insert(.dose) }
    if d.intention != nil { fields.insert(.intention) }
    if d.moodBefore != nil { fields.insert(.moodBefore) }
    return fields
  }
}
