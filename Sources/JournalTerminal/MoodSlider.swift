import JournalCore

/// The state of the mood slider, apart from the terminal: which value is chosen, what each
/// key does, and the line that shows it.
public struct MoodSlider: Sendable {
  public let question: MoodQuestion
  /// The value shown; nil when none is chosen (an optional mood not given, or cleared).
  public private(set) var value: Int?

  public init(question: MoodQuestion) {
    self.question = question
    self.value = question.current?.value ?? (question.optional ? nil : Mood.middle.value)
  }

  /// The line shown above the slider once.
  public var help: String {
    var text = "← → or a number (0 is 10) to move, Enter to choose"
    if question.clearable {
      text += #"; "-" clears it"#
    } else if question.optional && question.current == nil {
      text += "; Enter with nothing chosen skips it"
    }
    return text
  }

  /// Moves one step; from nothing chosen, to the middle.
  public mutating func step(_ delta: Int) {
    guard let value else {
      self.value = Mood.middle.value
      return
    }
    self.value = min(Mood.range.upperBound, max(Mood.range.lowerBound, value + delta))
  }

  /// Handles one key; true when it chose (Enter, Tab).
  public mutating func press(_ key: UInt8) -> Bool {
    switch key {
    case 0x31...0x39: value = Int(key - 0x30)
    case 0x30: value = 10
    case 0x6C, 0x2B: step(1)  // l, +
    case 0x68: step(-1)  // h
    case 0x0D, 0x0A, 0x09: return true
    case 0x7F, 0x08, 0x2D:  // Backspace, "-"
      if question.clearable || (question.optional && question.current == nil) { value = nil }
    default: break
    }
    return false
  }

  /// What a typed answer would have been: the number, "" to keep what is there (or leave an
  /// optional mood empty), "-" to clear it.
  public var answer: String {
    guard let value else { return question.clearable && question.current != nil ? "-" : "" }
    return value == question.current?.value ? "" : String(value)
  }

  /// The slider's line: label, ten dots, the value with its face and word. The dots are
  /// left out when the terminal is too narrow for them.
  public func line(width: Int, colour: Bool) -> String {
    let label =
      question.label
      ?? question.field.label.prefix(1).uppercased() + question.field.label.dropFirst()
    let reading =
      value.flatMap(Mood.init).map { "\($0.value) \($0.emoji) \($0.word)" }
      ?? "not chosen"
    let filled = value ?? 0
    let dots =
      (colour ? "\u{1B}[36m" : "") + String(repeating: "●", count: filled)
      + (colour ? "\u{1B}[0m" : "") + String(repeating: "○", count: 10 - filled)
    // The line must fit one row: \r and "erase line" redraw only the row the cursor is on.
    let full = "  \(label)  \(dots)  \(reading)"
    let short = "  \(label)  \(reading)"
    if Wrap.columns(full) < width { return full }
    if Wrap.columns(short) < width { return short }
    return "  " + (value.flatMap(Mood.init).map { "\($0.value) \($0.word)" } ?? "not chosen")
  }
}
