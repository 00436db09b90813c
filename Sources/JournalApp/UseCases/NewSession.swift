import Foundation
import JournalCore
import JournalDiagnostics
import JournalSystem
import JournalTerminal

/// `journal new`: a session from flags and, in a terminal, the guided form with its draft
/// file; saved, then the reminder question and the later fields.
public enum NewSession {
  /// What was saved, and its id as people should type it.
  public struct Saved {
    public let session: Session
    public let shownID: String
    /// Written without the passphrase: it opens, and can be read, only with it.
    public let sealed: Bool
  }

  /// Runs the whole flow. `given` are the fields the flags answered (the form skips them);
  /// `reminder` is the --remind choice, if any.
  public static func run(
    _ runtime: Runtime, changes: [Session.Change], given: Set<Field>,
    reminder: ReminderChoice?, editor: Bool, tags: [String] = []
  ) throws -> Saved {
    // Checked before anything is asked or saved.
    let tags = try Tag.set(try tags.map(Tag.normalise))
    var draft = SessionDraft(id: runtime.context.newSessionID())
    var later: [Session.Change] = []
    for change in changes {
      if Field.later.contains(change.field) {
        later.append(change)
      } else {
        try draft.apply(change)
      }
    }
    let now = runtime.context.now
    // A session dated ahead is planned: no reminder until it has happened. Said before
    // anything is asked or saved when the date is given.
    if let reminder, reminder != .none, let date = draft.date,
      Lifecycle.isPlanned(.needsReflection, date: date, now: now())
    {
      throw AppError.plannedReminder
    }
    let terminal = runtime.terminal
    if terminal == nil {
      if draft.date == nil { draft.date = runtime.context.now() }
      if draft.treatment == nil { draft.treatment = .psilocybin }
      let missing = draft.missingFields
      guard missing.isEmpty else {
        // The editor asked for is what would have filled them: it is what is missing.
        throw editor ? AppError.editorNeedsTerminal : AppError.missingFlags(missing.map(\.flag))
      }
    }
    let place = try WritePlace.open(runtime)
    // Settings are read before anything is saved, so a bad one never interrupts a save.
    let reminders = try runtime.reminders(place.file)
    let forms = try terminal.map {
      Forms(terminal: try runtime.formTerminal($0, editor: editor), context: runtime.context)
    }
    var draftFile: DraftFile?
    if let terminal, let forms {
      if place.isSealed {
        terminal.writeLine(
          "Writing without your passphrase: what you write is sealed, and opens with it.")
      }
      let file = try DraftFile.begin(
        draft: &draft, runtime: runtime, place: place, terminal: terminal, forms: forms)
      var skipping = given.union(file.answered)
      var intentionSoFar = ""
      // A draft stopped in the intention (or at the mood after it) goes on with the
      // intention, shown as kept, as reflect goes on with a kept reflection.
      if file.answered.contains(.intention), !given.contains(.intention),
        draft.moodBefore == nil, let kept = draft.intention
      {
        skipping.remove(.intention)
        // On a line of its own below it: Enter and "." end it, without a "." added to it.
        intentionSoFar = kept + "\n"
      }
      try forms.fillNow(&draft, skipping: skipping, intentionSoFar: intentionSoFar) {
        file.keep($0)
      }
      draftFile = file
    }
    // A stop while the session is saved is met once the note says it is saved.
    func saving<R>(_ body: () throws -> R) throws -> R {
      guard let terminal else { return try body() }
      return try terminal.holdingSignals(body)
    }
    let saved = try saving {
      let session: Session
      do {
        session = try place.save(draft, later: later, tags: tags, now: now())
      } catch {
        throw draftFile?.unsaved(error) ?? error
      }
      // Only once the session is in the vault: a crash before this leaves the draft, which
      // the next run sees is saved already and removes.
      draftFile?.finish()
      CrashPoint.reached("new-saved", environment: runtime.context.environment)
      let shown = try place.displayID(session.id)
      let stopped = "\njournal: stopped; session \(shown) is saved"
      terminal?.setInterruptNote(stopped + "\n")
      // The reminder asked for with --remind too: a stop then names it.
      let planned = session.isPlanned(at: now())
      var due: Date?
      if let reminder, session.status == .needsReflection, !planned {
        due = try reminders.set(session.id, reminder)
      }
      if let due {
        let when = DisplayFormat(timeZone: runtime.context.timeZone).dateTime(due)
        terminal?.setInterruptNote(stopped + "; a reminder comes \(when)\n")
      }
      return (session: session, shown: shown, planned: planned, due: due)
    }
    var session = saved.session
    let shown = saved.shown
    let planned = saved.planned
    if let terminal, let forms {
      // Read aloud (plain mode asked for), the id is spelled and the date said in words.
      let spoken = terminal.presentation.spoken
      let heard = spoken ? DisplayFormat.spokenID(shown) : shown
      let format = DisplayFormat(timeZone: runtime.context.timeZone)
      let when = spoken ? format.spokenDateTime(session.date) : format.dateTime(session.date)
      let state =
        planned
        ? "is planned for \(when)"
        : session.status == .complete ? "is complete" : "needs reflection"
      terminal.writeLine(
        place.isSealed
          ? "Saved, sealed until the journal is next opened. Session \(heard) \(state)."
          : "Saved. Session \(heard) \(state).")
      if planned {
        if let reminder, reminder != .none {
          terminal.writeLine("No reminder is set for a planned session; one can come after it.")
        }
        terminal.writeLine(
          spoken
            ? #"Once its date has passed it waits for your reflection, with "journal reflect"."#
            : #"Once its date has passed it waits for your reflection: "journal reflect \#(shown)"."#
        )
        return Saved(session: session, shownID: shown, sealed: place.isSealed)
      }
      // A stop at the questions after the save says the session is saved.
      func stopNote(reminder due: Date?) {
        let reminded = due.map { "; a reminder comes \(format.dateTime($0))" } ?? ""
        let next =
          session.status == .needsReflection
          ? #"; "journal reflect \#(shown)" adds the later fields"# : ""
        terminal.setInterruptNote(
          "\njournal: stopped; session \(shown) is saved\(reminded)\(next)\n")
      }
      stopNote(reminder: saved.due)
      defer { terminal.setInterruptNote(nil) }
      if reminder == nil, session.status == .needsReflection,
        let choice = try askReminder(terminal), choice != ReminderChoice.none,
        let due = try reminders.set(session.id, choice)
      {
        let when = spoken ? format.spokenDateTime(due) : format.dateTime(due)
        terminal.writeLine("A gentle reminder will come \(when).")
        stopNote(reminder: due)
      }
      if session.status == .needsReflection,
        try forms.confirm("The later fields are open now. Add them now?", default: false)
      {
        session = try ReviseSession.fillLater(
          session, fields: Field.later, forms: forms, terminal: terminal, id: shown,
          justSaved: true, drafts: try? place.drafts(runtime), context: runtime.context
        ) { change in
          session = try place.apply([change], to: session, now: now())
          return session
        }
      } else if session.status == .needsReflection {
        terminal.writeLine(
          spoken
            ? #"Add them any time with "journal reflect" and the session's id."#
            : #"Add them any time with "journal reflect \#(shown)"."#)
      }
    }
    return Saved(session: session, shownID: shown, sealed: place.isSealed)
  }

  /// "Would you like a reminder to add reflections later?" — one key each, the digits shown
  /// (a typed word must not pick a reminder by its letters); No thanks is the default (Enter,
  /// or Esc).
  static func askReminder(_ terminal: TTY) throws -> ReminderChoice? {
    terminal.writeLine("Would you like a reminder to add reflections later?")
    // Read aloud, the bracketed default is a bare "three": plain mode asked for says it.
    let choices =
      terminal.presentation.spoken
      ? ["  1 in 3 hours,", "  2 tomorrow,", "  3 no thanks (Enter for no thanks) "]
      : ["  1 In 3 hours", "  2 Tomorrow", "  3 No thanks [3] "]
    // Side by side where they fit; one under another on a narrow terminal.
    let fits = (terminal.presentation.width ?? 80) > choices.joined(separator: " ").count
    terminal.write(choices.joined(separator: fits ? " " : "\n"))
    while true {
      guard let key = try terminal.waitForKey(timeout: 3600) else { return ReminderChoice.none }
      switch key {
      case [0x31]:  // 1
        terminal.writeLine("In 3 hours")
        return .inThreeHours
      case [0x32]:  // 2
        terminal.writeLine("Tomorrow")
        return .tomorrow
      case [0x33], [0x0D], [0x0A], [0x1B]:  // 3, Enter, Esc
        terminal.writeLine("No thanks")
        return ReminderChoice.none
      default:
        continue
      }
    }
  }
}
