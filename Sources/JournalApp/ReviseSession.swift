import JournalCore

/// `journal reflect` and `journal edit`: changes to a saved session, each saved as soon as
/// it is entered.
public enum ReviseSession {
  /// What a revision left: the session as saved, and its id as people should type it.
  public struct Revised {
    public let session: Session
    public let shownID: String
  }

  /// Adds the later fields: the given `changes` (reflection last, so a failure on an earlier
  /// field never completes the session), or, with none and a terminal, the guided form.
  public static func reflect(
    _ text: String, changes: [Session.Change], editor: Bool, _ runtime: Runtime
  ) throws -> Revised {
    if changes.isEmpty && runtime.terminal == nil {
      throw AppError.missingFlags(Field.later.map(\.flag))
    }
    let journal = try runtime.openVault()
    let id = try journal.resolve(text)
    var session = try journal.beginReflection(id)
    if changes.isEmpty, let terminal = runtime.terminal {
      let forms = Forms(
        terminal: try runtime.formTerminal(terminal, editor: editor), context: runtime.context)
      session = try forms.fillLater(session) { try journal.apply($0, to: id) }
    } else {
      let ordered =
        changes.filter { $0.field != .reflection } + changes.filter { $0.field == .reflection }
      for change in ordered { session = try journal.apply(change, to: id) }
    }
    return Revised(session: session, shownID: try journal.displayID(id))
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
