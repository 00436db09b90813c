import JournalCore
import JournalTerminal

/// `journal reflect` and `journal edit`: changes to a saved session, each saved as soon as
/// it is entered.
public enum ReviseSession {
  /// What a revision left: the session as saved, and its id as people should type it.
  public struct Revised {
    public let session: Session
    public let shownID: String
  }

  /// Adds the later fields: the given `changes` (reflection last, so a failure on an earlier
  /// field never completes the session), or, with none and a terminal, the guided form. A
  /// complete session is open only for its later fields still empty (a reflect that was
  /// interrupted goes on), and flags never overwrite one of its fields.
  public static func reflect(
    _ text: String, changes: [Session.Change], editor: Bool, _ runtime: Runtime
  ) throws -> Revised {
    let journal = try runtime.openVault()
    let id = try journal.resolve(text)
    var session = try journal.beginReflection(id)
    let open = session.laterFieldsOpen
    let shown = try journal.displayID(id)
    if session.status == .complete,
      let filled = changes.first(where: { !open.contains($0.field) })
    {
      throw AppError.laterFieldFilled(filled.field, id: shown)
    }
    if changes.isEmpty {
      guard let terminal = runtime.terminal else {
        throw AppError.missingFlags(open.map(\.flag))
      }
      let forms = Forms(
        terminal: try runtime.formTerminal(terminal, editor: editor), context: runtime.context)
      session = try fillLater(
        session, fields: open, forms: forms, terminal: terminal, id: shown, justSaved: false
      ) { try journal.apply($0, to: id) }
    } else {
      let ordered =
        changes.filter { $0.field != .reflection } + changes.filter { $0.field == .reflection }
      for change in ordered { session = try journal.apply(change, to: id) }
    }
    return Revised(session: session, shownID: shown)
  }

  /// The guided later fields of the session shown as `id`, each saved as it is answered; an
  /// interruption says exactly what was saved and how to go on. `justSaved`: the session was
  /// saved by this run (`new`), so even with no later field it is not "nothing".
  static func fillLater(
    _ session: Session, fields: [Field], forms: Forms, terminal: TTY, id: String,
    justSaved: Bool, save: (Session.Change) throws -> Session
  ) throws -> Session {
    var saved: [Field] = []
    terminal.setInterruptNote(stoppedNote(saved: saved, id: id, justSaved: justSaved))
    defer { terminal.setInterruptNote(nil) }
    return try forms.fillLater(session, fields: fields) { change in
      let session = try save(change)
      if !saved.contains(change.field) { saved.append(change.field) }
      terminal.setInterruptNote(stoppedNote(saved: saved, id: id, justSaved: justSaved))
      return session
    }
  }

  /// `journal: stopped; the mood after and the reflection are saved; "journal reflect 3f2a"
  /// asks for the rest`.
  static func stoppedNote(saved: [Field], id: String, justSaved: Bool) -> String {
    let next = #""journal reflect \#(id)" asks for the rest"#
    guard !saved.isEmpty else {
      return justSaved
        ? "\njournal: stopped; the session is saved; \(next)\n"
        : "\njournal: stopped; nothing was changed\n"
    }
    let verb = saved.count == 1 ? "is" : "are"
    return "\njournal: stopped; \(Prose.list(saved.map { "the " + $0.label })) \(verb) saved; "
      + "\(next)\n"
  }

  /// Changes any field: the given `changes` in one save, or, with none and a terminal, every
  /// field in turn.
  public static func edit(_ text: String, changes: [Session.Change], _ runtime: Runtime) throws
    -> Revised
  {
    if changes.isEmpty && runtime.terminal == nil { throw AppError.nothingToChange }
    let journal = try runtime.openVault()
    let id = try journal.resolve(text)
    let session: Session
    if changes.isEmpty, let terminal = runtime.terminal {
      session = try Forms(terminal: terminal, context: runtime.context).edit(
        try journal.session(id)
      ) { try journal.apply($0, to: id) }
    } else {
      session = try journal.apply(changes, to: id)
    }
    return Revised(session: session, shownID: try journal.displayID(id))
  }
}
