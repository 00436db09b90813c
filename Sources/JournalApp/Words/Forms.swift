import Foundation
import JournalCore
import JournalDiagnostics
import JournalDrafts
import JournalTerminal

/// The guided forms: which field is asked, in which words, and what happens to a bad answer
/// (its message, then the same question again). They talk only through a `Terminal`.
public struct Forms {
  private let terminal: any Terminal
  private let context: AppContext

  public init(terminal: any Terminal, context: AppContext) {
    self.terminal = terminal
    self.context = context
  }

  // MARK: - Now

  /// Asks for the "Now" fields the draft does not have yet, in form order.
  /// `onAnswer` gets the draft after every answer, to keep it safe (the draft file). The
  /// intention starts from `intentionSoFar` (a kept, unfinished one taken up again).
  public func fillNow(
    _ draft: inout SessionDraft, skipping given: Set<Field>, intentionSoFar: String = "",
    onAnswer: (SessionDraft) -> Void = { _ in }
  ) throws {
    terminal.writeLine("Now — before the session")
    for field in Field.now where !given.contains(field) {
      // A long text is kept in the draft line by line as it is typed, so an interruption
      // (Ctrl-C, a closed terminal, a kill) loses at most the line being typed, and with
      // Ctrl-C or a closed terminal not even that.
      let started = draft
      let initial = field == .intention ? intentionSoFar : ""
      let change = try ask(field, current: nil, initial: initial) { partial in
        guard let change = try? context.fields.change(field, partial) else { return }
        var kept = started
        guard (try? kept.apply(change)) != nil else { return }
        onAnswer(kept)
      }
      if let change {
        try draft.apply(change)
        onAnswer(draft)
      }
    }
  }

  /// Offers an unfinished draft: resume it, discard it, or keep it for later.
  public func offer(_ stored: StoredDraft) throws -> DraftChoice {
    let format = DisplayFormat(timeZone: context.timeZone)
    terminal.writeLine(
      "An unfinished draft from \(format.dateTime(stored.started)) is here "
        + "(\(stored.filledCount) of 5 fields answered).")
    // "d" discards it: only a key pressed after the question is drawn answers that.
    terminal.discardTypedAhead()
    while true {
      let text = try terminal.readLine(
        prompt: terminal.presentation.spoken
          ? "Resume it, discard it, or keep it for later? (r, d or k, Enter resumes) "
          : "Resume it, discard it, or keep it for later? [R/d/k] "
      )
      .trimmingWhitespace().lowercased()
      switch text {
      case "", "r", "resume": return .resume
      case "d", "discard": return .discard
      case "k", "keep", "later": return .keep
      default: terminal.writeLine(#"  type r, d or k (Enter resumes)"#)
      }
    }
  }

  // MARK: - Later

  /// Asks for the "Later" `fields` one by one and hands each answer to `save` at once, so an
  /// interruption keeps every answer already given. Enter keeps what is there. The
  /// reflection starts from `reflectionSoFar` (a kept, unfinished one taken up again) and is
  /// handed to `keepReflection` line by line as it is typed.
  public func fillLater(
    _ session: Session, fields: [Field] = Field.later, reflectionSoFar: String = "",
    keepReflection: (String) -> Void = { _ in },
    save: (Session.Change) throws -> Session
  ) throws -> Session {
    var session = session
    terminal.writeLine("Later — after the session; press Enter to skip any of them")
    for field in fields {
      let resumed = field == .reflection ? reflectionSoFar : ""
      let keep = field == .reflection ? keepReflection : { _ in }
      guard let change = try ask(field, current: session, initial: resumed, keep: keep) else {
        continue
      }
      session = try save(change)
      terminal.writeLine("  saved")
    }
    return session
  }

  // MARK: - Edit

  /// Walks every field showing what is there; Enter keeps it, "-" clears an optional one.
  /// Each change is saved as soon as it is entered.
  public func edit(
    _ session: Session, save: (Session.Change) throws -> Session
  ) throws -> Session {
    var session = session
    terminal.writeLine(#"Press Enter to keep a value, or type "-" to clear an optional one"#)
    for field in Field.now + Field.later {
      guard let change = try ask(field, current: session, editing: true) else { continue }
      session = try save(change)
      terminal.writeLine("  saved")
    }
    return session
  }

  /// Asks yes or no; the default answers an empty line. A `destructive` question (its yes,
  /// or its no, loses something) first drops whatever was typed or pasted ahead of it, so
  /// only a key pressed after it is drawn answers it.
  public func confirm(_ question: String, default answer: Bool, destructive: Bool = false)
    throws -> Bool
  {
    if destructive { terminal.discardTypedAhead() }
    // Read aloud, "[y/N]" is "y slash n": plain mode asked for says it in words.
    let options =
      terminal.presentation.spoken
      ? "(yes or no, Enter for \(answer ? "yes" : "no"))" : answer ? "[Y/n]" : "[y/N]"
    while true {
      let text = try terminal.readLine(prompt: "\(question) \(options) ").trimmingWhitespace()
        .lowercased()
      if text.isEmpty { return answer }
      if ["y", "yes"].contains(text) { return true }
      if ["n", "no"].contains(text) { return false }
    }
  }

  // MARK: - One field

  /// Asks for one field until the answer is valid. Returns nil when the answer keeps the
  /// current value (or, for optional fields, leaves them empty).
  private func ask(
    _ field: Field, current: Session?, editing: Bool = false, initial: String = "",
    keep: (String) -> Void = { _ in }
  ) throws -> Session.Change? {
    var initial = initial
    while true {
      let answer = try read(
        field, current: current, editing: editing, initial: initial, keep: keep)
      initial = ""
      let trimmed = answer.trimmingWhitespace()
      if trimmed.isEmpty {
        if let fallback = defaultAnswer(field, current: current) { return fallback }
        if isRequired(field), current == nil {
          terminal.writeLine("  the \(field.label) is needed to save the session")
          continue
        }
        return nil
      }
      if editing && trimmed == "-" && isRequired(field) {
        terminal.writeLine("  the \(field.label) is required and cannot be cleared")
        continue
      }
      let text = editing && trimmed == "-" ? "" : answer
      do {
        return try context.fields.change(field, text)
      } catch {
        let diagnosis = Diagnosis.validation(error)
        terminal.writeLine("  " + diagnosis.message + (diagnosis.hint.map { " — " + $0 } ?? ""))
      }
    }
  }

  private func isRequired(_ field: Field) -> Bool {
    [.date, .treatment, .intention, .moodBefore].contains(field)
  }

  /// What an empty answer means for a new draft: date now, treatment psilocybin.
  private func defaultAnswer(_ field: Field, current: Session?) -> Session.Change? {
    guard current == nil else { return nil }
    switch field {
    case .date: return .date(context.now())
    case .treatment: return .treatment(.psilocybin)
    default: return nil
    }
  }

  private func read(
    _ field: Field, current: Session?, editing: Bool, initial: String,
    keep keepText: (String) -> Void
  ) throws -> String {
    let keep = current.flatMap { shown(field, of: $0) }.map { " [\($0)]" } ?? ""
    switch field {
    case .date:
      return try terminal.readLine(prompt: "  When was it?\(keep.isEmpty ? " [now]" : keep) ")
    case .treatment:
      terminal.writeWrapped(
        "  Treatments: " + Treatment.known.map(\.key).joined(separator: ", ") + ", other:<name>",
        indent: "    ")
      return try terminal.readLine(
        prompt: "  Treatment\(keep.isEmpty ? " [psilocybin]" : keep) ")
    case .dose:
      return try terminal.readLine(prompt: "  Dose (optional)\(keep) ")
    case .intention:
      if editing, let existing = current?.intention { showCurrent(existing) }
      return try terminal.readText(
        prompt: wrapped(
          "  Intention — what you bring to this session\(longHint(current?.intention))")
          + "\n", initial: initial, keep: keepText)
    case .moodBefore:
      return try terminal.readMood(
        MoodQuestion(
          field: field, prompt: "  Mood before, 1 (low) to 10 (high)\(keep) ",
          // A saved session without one (imported, not recorded) keeps none on Enter: the
          // slider must not start at 5 and save a number nobody chose.
          current: current?.moodBefore, optional: current != nil && current?.moodBefore == nil,
          clearable: false))
    case .moodAfter:
      return try terminal.readMood(
        MoodQuestion(
          field: field, prompt: "  Mood after, 1 to 10\(keep) ", current: current?.moodAfter,
          optional: true, clearable: editing && current?.moodAfter != nil))
    case .reflection:
      if editing, let existing = current?.reflection { showCurrent(existing) }
      return try terminal.readText(
        prompt: wrapped("  Reflection — what stays with you\(longHint(current?.reflection))")
          + "\n",
        initial: initial, keep: keepText)
    case .environment:
      return try terminal.readLine(prompt: "  Environment — where, and with whom\(keep) ")
    case .music:
      return try terminal.readLine(prompt: "  Music notes\(keep) ")
    case .notes:
      preconditionFailure("notes are added with journal note, never by a form")
    }
  }

  /// A long text's current value, shown before it is asked for again (interactive `edit`):
  /// each of its lines wrapped, indented under "Now:".
  private func showCurrent(_ text: String) {
    terminal.writeLine("  Now:")
    for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
      terminal.writeWrapped("    " + line, indent: "    ")
    }
  }

  private func wrapped(_ text: String) -> String {
    Wrap.lines(text, width: terminal.presentation.width ?? 80, indent: "    ")
      .joined(separator: "\n")
  }

  private func longHint(_ existing: String?) -> String {
    // Read aloud, a quoted "." is not heard: plain mode asked for names it.
    let ending =
      terminal.presentation.spoken
      ? "end with Ctrl-D, or a line holding only a full stop"
      : #"end with Ctrl-D or a line holding only ".""#
    guard let existing else { return " (\(ending))" }
    let words = existing.split(whereSeparator: \.isWhitespace).count
    return " (\(words) words written; leave empty to keep them; \(ending))"
  }

  /// A short field's current value, for the prompt's [brackets]; long texts are not repeated.
  private func shown(_ field: Field, of session: Session) -> String? {
    switch field {
    case .date: DisplayFormat(timeZone: context.timeZone).dateTime(session.date)
    case .treatment, .dose, .moodBefore, .moodAfter, .environment, .music:
      session.text(of: field).map { $0.count > 40 ? String($0.prefix(39)) + "…" : $0 }
    case .intention, .reflection, .notes: nil
    }
  }
}

/// What to do with an unfinished draft.
public enum DraftChoice: Sendable {
  case resume, discard, keep
}
