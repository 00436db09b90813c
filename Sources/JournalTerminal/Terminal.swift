import JournalCore
import JournalCrypto

/// The person at the keyboard: where prompts go and answers come from. The real one is
/// `TTY`; tests script one. Only interactive code uses it.
public protocol Terminal: AnyObject {
  /// Writes text as is (prompts, progress, the "Later" group heading).
  func write(_ text: String)
  /// Asks for one line; returns it without its newline. Throws `TerminalError.stopped` on
  /// Ctrl-D (end of input) or Ctrl-C.
  func readLine(prompt: String) throws -> String
  /// Asks for a secret without echoing it; the answer goes straight into guarded memory.
  func readSecret(prompt: String) throws -> SecureBytes
  /// Asks for text of any length over several lines, ended by Ctrl-D or a line holding
  /// only "." (or by Enter before any text: an empty answer). Returns the text without the
  /// ending. It starts from `initial` (a kept, unfinished answer being taken up again), shown
  /// and ready to go on. `keep` is handed the text so far as it grows (after each line, and
  /// what was typed when a signal ends the process), for a caller that saves it where an
  /// interruption cannot take it.
  func readText(prompt: String, initial: String, keep: (String) -> Void) throws -> String
  /// Asks for a mood. Returns what a typed answer would be: the number, "" to keep the
  /// current value (or leave an optional one empty), "-" to clear it. The plain version,
  /// a numbered prompt with a word for each value, is the default.
  func readMood(_ question: MoodQuestion) throws -> String
  /// Drops whatever was typed or pasted and not read yet, before a question whose answer
  /// destroys something: a "y" typed ahead or pasted behind the passphrase must not answer
  /// it.
  func discardTypedAhead()
  /// Plain or not, colour or not, and the width to wrap to.
  var presentation: Presentation { get }
}

extension Terminal {
  /// Writes a line of prose, wrapped to the terminal's width when it is known.
  public func writeLine(_ text: String = "") {
    write((presentation.width.map { Wrap.prose(text, width: $0) } ?? text) + "\n")
  }

  /// Asks for text over several lines, keeping nothing of it on the way.
  public func readText(prompt: String) throws -> String {
    try readText(prompt: prompt, initial: "") { _ in }
  }

  /// Asks for text over several lines from nothing, handing `keep` the text as it grows.
  public func readText(prompt: String, keep: (String) -> Void) throws -> String {
    try readText(prompt: prompt, initial: "", keep: keep)
  }

  /// Writes `text` wrapped to the terminal's width, each line after the first indented.
  public func writeWrapped(_ text: String, indent: String = "  ") {
    for line in Wrap.lines(text, width: presentation.width ?? 80, indent: indent) {
      writeLine(line)
    }
  }

  public func readMood(_ question: MoodQuestion) throws -> String {
    try readMoodPlainly(question)
  }

  /// The plain mood question: every value with its word, then a numbered prompt.
  public func readMoodPlainly(_ question: MoodQuestion) throws -> String {
    writeWrapped("  " + MoodQuestion.scale, indent: "    ")
    return try readLine(prompt: question.prompt)
  }
}

/// One mood to ask for.
public struct MoodQuestion: Sendable {
  /// Which mood.
  public let field: Field
  /// The line prompt of the plain version, with the current value in [brackets].
  public let prompt: String
  /// The value there now (editing), if any.
  public let current: Mood?
  /// Whether Enter with nothing chosen may leave it empty (an optional mood).
  public let optional: Bool
  /// Whether "-" may clear the current value (editing an optional mood).
  public let clearable: Bool
  /// The slider's label, when it is not the field's ("How it feels now", for a note).
  public let label: String?

  public init(
    field: Field, prompt: String, current: Mood?, optional: Bool, clearable: Bool,
    label: String? = nil
  ) {
    self.field = field
    self.prompt = prompt
    self.current = current
    self.optional = optional
    self.clearable = clearable
    self.label = label
  }

  /// Every value with its word: "1 very low, 2 low, … 10 wonderful". No-break spaces keep
  /// each number with its word when the line wraps.
  public static let scale = Mood.range.compactMap(Mood.init)
    .map { "\($0.value)\u{A0}\(String($0.word.map { $0 == " " ? "\u{A0}" : $0 }))" }
    .joined(separator: ", ")
}

/// Wrapping text to a width at spaces, counting wide characters (emoji, CJK) as two columns.
public enum Wrap {
  /// `text`'s lines, each at most `width` columns where a space allows; lines after a break
  /// start with `indent` (less of it for a word that would not fit after it). Existing line
  /// breaks are kept. A quoted span ("journal reflect
  /// 3f2a") is never broken where it fits on a line, so that a command can be copied whole.
  public static func lines(_ text: String, width: Int, indent: String = "") -> [String] {
    var result: [String] = []
    for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
      let leading = paragraph.prefix { $0 == " " }
      var line = String(leading)
      var used = columns(leading)
      var empty = true
      let words = keepingQuotesWhole(
        paragraph.dropFirst(leading.count).split(separator: " ", omittingEmptySubsequences: false),
        width: width - columns(indent))
      for word in words {
        let size = columns(word)
        if !empty && used + 1 + size > width {
          result.append(line)
          // A word that fits a line but not after the indent (a 38-letter word at 40
          // columns) gets less of it, rather than be cut by the terminal.
          let room = max(0, min(columns(indent), width - size))
          let shift = indent.allSatisfy { $0 == " " } ? String(repeating: " ", count: room) : indent
          line = shift + word
          used = columns(shift) + size
        } else if empty && used + size > width {
          // The same for the first word after the paragraph's own indent.
          let room = max(0, min(used, width - size))
          line = String(repeating: " ", count: room) + word
          used = room + size
        } else {
          line += (empty ? "" : " ") + word
          used += (empty ? 0 : 1) + size
        }
        empty = false
      }
      result.append(line)
    }
    return result
  }

  /// `words` with each quoted span that fits in `width` joined into one word.
  private static func keepingQuotesWhole(_ words: [Substring], width: Int) -> [Substring] {
    var result: [Substring] = []
    var index = 0
    while index < words.count {
      var end = index
      var quotes = words[index].count { $0 == "\"" }
      while quotes % 2 == 1, end + 1 < words.count {
        end += 1
        quotes += words[end].count { $0 == "\"" }
      }
      let span = Substring(words[index...end].joined(separator: " "))
      if end > index, quotes % 2 == 0, columns(span) <= width {
        result.append(span)
      } else {
        result += words[index...end]
      }
      index = end + 1
    }
    return result
  }

  /// Prose fitted to `width`: each paragraph (line of `text`) broken where a space allows,
  /// its continuation lines indented two columns past its own indent. Words longer than the
  /// width (an id, a path) are never cut.
  public static func prose(_ text: String, width: Int) -> String {
    text.split(separator: "\n", omittingEmptySubsequences: false).map { paragraph in
      let indent = String(paragraph.prefix { $0 == " " }) + "  "
      return lines(String(paragraph), width: width, indent: indent).joined(separator: "\n")
    }.joined(separator: "\n")
  }

  /// Columns `text` takes on a terminal; colour sequences (ESC [ … m) take none.
  public static func columns<S: StringProtocol>(_ text: S) -> Int {
    var total = 0
    var inEscape = false
    for scalar in text.unicodeScalars {
      if inEscape {
        if (0x40...0x7E).contains(scalar.value) && scalar.value != 0x5B { inEscape = false }
        continue
      }
      if scalar.value == 0x1B {
        inEscape = true
        continue
      }
      let properties = scalar.properties
      switch properties.generalCategory {
      case .nonspacingMark, .enclosingMark, .format, .control: continue
      default: break
      }
      if scalar.value == 0xFE0F { continue }
      let wide =
        properties.isEmojiPresentation || (0x1100...0x115F).contains(scalar.value)
        || (0x2E80...0xA4CF).contains(scalar.value) || (0xAC00...0xD7A3).contains(scalar.value)
        || (0xF900...0xFAFF).contains(scalar.value) || (0xFF00...0xFF60).contains(scalar.value)
        || (0x20000...0x3FFFD).contains(scalar.value)
      total += wide ? 2 : 1
    }
    return total
  }
}
