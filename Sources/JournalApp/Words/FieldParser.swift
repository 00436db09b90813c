import Foundation
import JournalCore

/// Turns what a person typed for a field into a validated change. An empty text clears an
/// optional field; for a required one it is an error.
public struct FieldParser: Sendable {
  public let dates: DateInput
  public let now: Date

  public init(dates: DateInput, now: Date) {
    self.dates = dates
    self.now = now
  }

  public func change(_ field: Field, _ text: String) throws(FieldError) -> Session.Change {
    switch field {
    case .date:
      return .date(try dates.parse(text, now: now))
    case .treatment:
      return .treatment(try Treatment.parse(text))
    case .dose:
      return .dose(try Text.normalise(text, field: .dose, multiline: false))
    case .intention:
      guard let text = try Text.normalise(text, field: .intention, multiline: true) else {
        throw .emptyIntention
      }
      return .intention(text)
    case .moodBefore:
      return .moodBefore(try Mood.parse(text, field: .moodBefore))
    case .environment:
      return .environment(try Text.normalise(text, field: .environment, multiline: true))
    case .music:
      return .music(try Text.normalise(text, field: .music, multiline: true))
    case .moodAfter:
      if text.trimmingWhitespace().isEmpty { return .moodAfter(nil) }
      return .moodAfter(try Mood.parse(text, field: .moodAfter))
    case .reflection:
      return .reflection(try Text.normalise(text, field: .reflection, multiline: true))
    case .notes:
      preconditionFailure("notes are added with journal note, never as a field's change")
    }
  }
}
