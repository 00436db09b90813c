import Foundation
import JournalCore
import JournalDiagnostics
import JournalTerminal

/// `journal note`: integration notes on a saved session, added, corrected, deleted with the
/// same undo window as a session, and restored within it. A note never changes the
/// session's status.
public enum SessionNotes {
  /// What a note command did, for the command line to say.
  public enum Outcome: Equatable, Sendable {
    /// Added as note `number` of the session shown as `id`; `sealed` when written without
    /// the passphrase (it joins the session when the journal is next opened with it).
    case added(id: String, number: Int, sealed: Bool)
    case edited(id: String, number: Int)
    /// Deleted; restorable with `journal note ID --undo` for `window` seconds.
    case deleted(id: String, number: Int, window: TimeInterval)
    /// Deleted; the countdown ran on the terminal and said everything.
    case countedDown
    case restored(id: String, number: Int)
  }

  /// What the person gave for a note's text: the argument, standard input ("-"), or
  /// nothing (asked at a terminal, else read from standard input).
  public enum Given: Equatable, Sendable {
    case text(String)
    case standardInput
    case nothing
  }

  /// Adds a note to the session whose id starts with `idText`. Without the key (sealed
  /// capture), it is sealed and joins the session at the next opening with the passphrase.
  public static func add(
    _ idText: String, given: Given, mood: Mood?, editor: Bool, _ runtime: Runtime
  ) throws -> Outcome {
    let place = try WritePlace.open(runtime)
    let id = try place.resolve(idText)
    let shown = try place.displayID(id)
    guard let (text, asked) = try text(given, current: nil, editor: editor, runtime) else {
      throw AppError.declined(what: "no note was added")
    }
    let chosen = try mood ?? asked.map { _ in try askMood(runtime) } ?? nil
    switch place {
    case .keyed(let journal):
      let added = try journal.addNote(text, mood: chosen, to: id)
      return .added(id: shown, number: added.number, sealed: false)
    case .sealed(let capture):
      try capture.addNote(text, mood: chosen, to: id)
      return .added(id: shown, number: 0, sealed: true)
    }
  }

  /// Corrects note `number`: its text (given, or at a terminal edited from the current one)
  /// and its mood (`mood`; `.some(nil)` removes it). With only a mood, the text stays.
  public static func edit(
    _ idText: String, number: Int, given: Given, mood: Mood??, editor: Bool, _ runtime: Runtime
  ) throws -> Outcome {
    let journal = try runtime.openVault(check: .point)
    let id = try journal.resolve(idText)
    let shown = try journal.displayID(id)
    let current: Note
    do {
      current = try journal.session(id).note(numbered: number)
    } catch let error as NoteError {
      throw AppError.note(error, id: shown)
    }
    var text: String?
    if given != .nothing || mood == nil {
      guard let (typed, _) = try Self.text(given, current: current.text, editor: editor, runtime)
      else { throw AppError.declined(what: "the note was not changed") }
      text = typed == current.text ? nil : typed
    }
    if text == nil && (mood == nil || mood == .some(current.mood)) {
      return .edited(id: shown, number: number)
    }
    _ = try journal.editNote(number, text: text, mood: mood, of: id, expecting: current)
    return .edited(id: shown, number: number)
  }

  /// Deletes note `number`, after asking at a terminal unless `confirmed`; then, at a
  /// terminal, the countdown a session's deletion has (u undoes).
  public static func delete(
    _ idText: String, number: Int, confirmed: Bool, _ runtime: Runtime
  ) throws -> Outcome {
    let window = try UndoWindow.duration(environment: runtime.context.environment)
    if !confirmed && runtime.terminal == nil {
      throw AppError.confirmationNeeded(what: "deleting a note")
    }
    let journal = try runtime.openVault(check: .point)
    let id = try journal.resolve(idText)
    let shown = try journal.displayID(id)
    let note: Note
    do {
      note = try journal.session(id).note(numbered: number)
    } catch let error as NoteError {
      throw AppError.note(error, id: shown)
    }
    if !confirmed, let terminal = runtime.terminal {
      let format = DisplayFormat(timeZone: runtime.context.timeZone)
      let words = note.text.split(whereSeparator: \.isWhitespace).count
      terminal.writeLine(
        "  note \(number) of \(shown), written \(format.dateTime(note.written)), "
          + counted(words, "word"))
      guard
        try Forms(terminal: terminal, context: runtime.context).confirm(
          "Delete this note?", default: false, destructive: true)
      else { throw AppError.declined(what: "nothing was deleted") }
    }
    let deletion = try journal.deleteNote(number, of: id, window: window, expecting: note)
    guard let terminal = runtime.terminal, window > 0 else {
      return .deleted(id: shown, number: number, window: window)
    }
    try DeletionCountdown(
      terminal: terminal, what: "note \(number) of session \(shown)",
      undoCommand: #""journal note \#(shown) --undo""#, deadline: deletion.purgeAfter,
      now: runtime.context.now, isPending: { try journal.isPending(deletion) },
      undo: { try journal.undo(deletion) }, purge: { try journal.purgeNotes(of: id) }
    ).run()
    return .countedDown
  }

  /// Restores the session's note deleted last, while its window is open.
  public static func restore(_ idText: String, _ runtime: Runtime) throws -> Outcome {
    let journal = try runtime.openVault(check: .point)
    let id = try journal.resolve(idText)
    let shown = try journal.displayID(id)
    do {
      return .restored(id: shown, number: try journal.restoreNote(of: id).number)
    } catch AppError.note(.nothingToRestore, _) {
      throw AppError.nothingToUndo
    }
  }

  // MARK: - The text

  /// The note's text, checked, and whether it was asked at a terminal (then its mood is
  /// asked too); nil when the person left it empty at the terminal.
  static func text(
    _ given: Given, current: String?, editor: Bool, _ runtime: Runtime
  ) throws -> (String, Bool?)? {
    switch given {
    case .text(let text):
      return (try Note.normalise(text), nil)
    case .standardInput:
      return (try Note.normalise(try Runtime.readStandardInput(for: .reflection)), nil)
    case .nothing:
      guard let tty = runtime.terminal else {
        // The editor asked for is not replaced by standard input without a word.
        if editor { throw AppError.editorNeedsTerminal }
        return (try Note.normalise(try Runtime.readStandardInput(for: .reflection)), nil)
      }
      let terminal = try runtime.formTerminal(tty, editor: editor)
      let ending = #"end with Ctrl-D or a line holding only ".""#
      let prompt =
        current == nil
        ? "  Note — what has come up since (\(ending))\n"
        : "  Note, as it should read (\(ending); leave empty to keep it)\n"
      while true {
        let typed = try terminal.readText(prompt: prompt, initial: current ?? "") { _ in }
        if typed.trimmingWhitespace().isEmpty {
          guard let current else { return nil }
          return (current, true)
        }
        do {
          return (try Note.normalise(typed), true)
        } catch {
          let diagnosis = Diagnosis.validation(error)
          tty.writeLine("  " + diagnosis.message + (diagnosis.hint.map { " — " + $0 } ?? ""))
        }
      }
    }
  }

  /// How it feels now, asked after a note typed at the terminal; nil when skipped.
  static func askMood(_ runtime: Runtime) throws -> Mood? {
    guard let tty = runtime.terminal else { return nil }
    // Asked again after an answer that is not a mood: the note typed before it stays.
    while true {
      let answer = try tty.readMood(
        MoodQuestion(
          field: .moodAfter, prompt: "  How it feels now, 1 to 10 (Enter skips) ",
          current: nil, optional: true, clearable: false, label: "How it feels now"))
      guard !answer.trimmingWhitespace().isEmpty, answer != "-" else { return nil }
      do {
        return try Note.mood(answer)
      } catch {
        tty.writeLine("  " + Diagnosis.validation(error).message)
      }
    }
  }
}
