/// A mood rating from 1 (lowest) to 10 (highest).
public struct Mood: Hashable, Sendable, Comparable {
  /// The rating, always within `Mood.range`.
  public let value: Int

  /// The ratings a person may give.
  public static let range = 1...10

  /// A rating, or nil when outside 1–10.
  public init?(_ value: Int) {
    guard Mood.range.contains(value) else { return nil }
    self.value = value
  }

  /// 5, the middle of the scale: where the slider starts. Never a stand-in for a mood that
  /// was not recorded (that is nil).
  public static let middle = Mood(unchecked: 5)

  private init(unchecked value: Int) { self.value = value }

  /// Reads what a person typed.
  public static func parse(_ text: String, field: Field) throws(FieldError) -> Mood {
    let trimmed = text.trimmingWhitespace()
    guard let number = Int(trimmed) else { throw .moodNotANumber(field: field) }
    guard let mood = Mood(number) else { throw .moodOutOfRange(field: field, value: number) }
    return mood
  }

  /// A calm word for each rating, for plain output and screen readers.
  public var word: String {
    switch value {
    case 1: "very low"
    case 2: "low"
    case 3: "heavy"
    case 4: "unsettled"
    case 5: "neutral"
    case 6: "steady"
    case 7: "good"
    case 8: "bright"
    case 9: "very good"
    default: "wonderful"
    }
  }

  /// A face for each rating, shown beside the word outside plain mode.
  public var emoji: String {
    ["😣", "😞", "😔", "😕", "😐", "🙂", "😊", "😄", "😁", "🤩"][value - 1]
  }

  public static func < (lhs: Mood, rhs: Mood) -> Bool { lhs.value < rhs.value }
}
