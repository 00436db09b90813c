/// A value a person gave that the session cannot take. Messages never repeat what was typed:
/// a date, a substance or a sentence is private even when it is wrong.
public enum FieldError: Error, Equatable, Sendable {
  /// Required fields are not given; listed in form order.
  case missingFields([Field])
  /// A mood that is not a whole number.
  case moodNotANumber(field: Field)
  /// A mood outside 1–10.
  case moodOutOfRange(field: Field, value: Int)
  /// A date that cannot be read in any accepted form.
  case unreadableDate
  /// A date more than 60 days ahead of now.
  case dateTooFarAhead
  /// A date before 1900, almost surely a typing slip.
  case dateTooFarBack
  /// The intention is empty; it is required.
  case emptyIntention
  /// A treatment name that is not known and not written as "other:<name>"; with the nearest
  /// known treatment's key when one is near (never what was typed).
  case unknownTreatment(suggestion: String?)
  /// "other" with no name after it.
  case emptyCustomTreatment
  /// A custom treatment name longer than allowed.
  case customTreatmentTooLong(maximum: Int)
  /// A text longer than its field allows.
  case textTooLong(field: Field, maximumBytes: Int)
  /// A text holding control characters (other than newlines and tabs in long texts).
  case controlCharacters(field: Field)
  /// A tag that is empty once trimmed.
  case emptyTag
  /// A tag longer than allowed.
  case tagTooLong(maximumBytes: Int)
  /// A tag holding a comma or control characters.
  case tagCharacters
  /// More tags on one session than allowed.
  case tooManyTags(maximum: Int)
  /// A note with no text.
  case emptyNote
  /// A note longer than allowed.
  case noteTooLong(maximumBytes: Int)
  /// A note holding control characters (other than newlines and tabs).
  case noteControlCharacters
  /// A note's mood that is not a whole number from 1 to 10.
  case noteMood
}
