import JournalCore
import JournalDiagnostics
import JournalDrafts
import JournalTerminal

/// `journal reflect` and `journal edit`: changes to a saved session, each saved as soon as
/// it is entered.
public enum ReviseSession {
  /// What a revision left: the session as saved, and its id as people should type it.
  public struct Revised {
    public let session: Session
    public let shownID: String
    /// Written without the passphrase: applied when the journal is next opened with it.
    public var sealed = false
  }

  /// Adds the later fields: the given `changes` (reflection last, so a failure on an earlier
  /// field never completes the session), or, with none and a terminal, the guided form. A
  /// complete session is open only for its later fields still empty (a reflect that was
  /// interrupted goes on), and flags never overwrite one of its fields.
  public static func reflect(
    _ text: String, changes: [Session.Change], editor: Bool, _ runtime: Runtime
  ) throws -> Revised {
    let place = try WritePlace.open(runtime)
    guard case .keyed(let journal) = place else {
      return try reflectSealed(text, changes: changes, editor: editor, place, runtime)
    }
    let id = try journal.resolve(text)
    var session = try journal.beginReflection(id)
    let open = session.laterFieldsOpen
    let shown = try journal.displayID(id)
    if session.status != .needsReflection,
      let filled = changes.first(where: { !open.contains($0.field) })
    {
      throw AppError.laterFieldFilled(filled.field, id: shown)
    }
    if changes.isEmpty {
      guard let terminal = runtime.terminal else {
        throw editor ? AppError.editorNeedsTerminal : AppError.missingFlags(open.map(\.flag))
      }
      let forms = Forms(
        terminal: try runtime.formTerminal(terminal, editor: editor), context: runtime.context)
      session = try fillLater(
        session, fields: open, forms: forms, terminal: terminal, id: shown, justSaved: false,
        drafts: try? runtime.drafts(journal), context: runtime.context
      ) { try journal.apply($0, to: id) }
      // The last step, when the reflection was skipped: a gentle way to stop being asked.
      if session.status == .needsReflection {
        terminal.setInterruptNote(
          "\njournal: stopped; what you answered is saved; session \(shown) still needs "
            + "reflection\n")
        defer { terminal.setInterruptNote(nil) }
        terminal.writeLine(
          "No reflection for now. You can leave this session here: it counts as complete, "
            + "without a reflection, and no reminder comes for it.")
        if try forms.confirm("Leave it here for now?", default: false) {
          session = try terminal.holdingSignals {
            let closed = try journal.apply(.close, to: id)
            terminal.setInterruptNote(
              "\njournal: stopped; what you answered is saved; session \(shown) is left here, "
                + "complete without a reflection\n")
            return closed
          }
        }
      }
    } else {
      let ordered =
        changes.filter { $0.field != .reflection } + changes.filter { $0.field == .reflection }
      for change in ordered { session = try journal.apply(change, to: id) }
    }
    return Revised(session: session, shownID: shown)
  }

  /// Later fields written without the passphrase: sealed, and applied to the session when
  /// the journal is next opened with it. Its words cannot be read here, so every later field
  /// is asked, and a text given is added after any the session holds (nothing is replaced).
  private static func reflectSealed(
    _ text: String, changes: [Session.Change], editor: Bool, _ place: WritePlace,
    _ runtime: Runtime
  ) throws -> Revised {
    let id = try place.resolve(text)
    let shown = try place.displayID(id)
    let now = runtime.context.now
    var session = SealedCapture.blank(id, now: now())
    if changes.isEmpty {
      guard let terminal = runtime.terminal else {
        throw editor
          ? AppError.editorNeedsTerminal : AppError.missingFlags(Field.later.map(\.flag))
      }
      let drafts = try place.drafts(runtime)
      // A reflection kept by an earlier run opens only with the key: never written over.
      if drafts.exists(id) { throw DraftError.needsKey(id: id.short) }
      terminal.writeLine(
        "Writing without your passphrase: what you add is sealed, and joins the session "
          + "when the journal is next opened with it.")
      let forms = Forms(
        terminal: try runtime.formTerminal(terminal, editor: editor), context: runtime.context)
      session = try fillLater(
        session, fields: Field.later, forms: forms, terminal: terminal, id: shown,
        justSaved: false, drafts: drafts, context: runtime.context
      ) { change in
        session = try place.apply([change], to: session, now: now())
        return session
      }
    } else {
      session = try place.apply(changes, to: session, now: now())
    }
    return Revised(session: session, shownID: shown, sealed: true)
  }

  /// The guided later fields of the session shown as `id`, each saved as it is answered, the
  /// reflection kept in its draft file as it is typed (when there is a `drafts` store); an
  /// interruption says exactly what was saved or kept and how to go on. `justSaved`: the
  /// session was saved by this run (`new`), so even with no later field it is not "nothing".
  static func fillLater(
    _ session: Session, fields: [Field], forms: Forms, terminal: TTY, id: String,
    justSaved: Bool, drafts: DraftStore?, context: AppContext,
    save: (Session.Change) throws -> Session
  ) throws -> Session {
    var saved: [Field] = []
    let draft =
      fields.contains(.reflection)
      ? try drafts.map {
        try ReflectionDraft(store: $0, id: session.id, now: context.now, terminal: terminal)
      } : nil
    defer { draft?.release() }
    func note() {
      terminal.setInterruptNote(
        stoppedNote(saved: saved, kept: draft?.kept != nil, id: id, justSaved: justSaved))
    }
    var soFar = ""
    // Set before "Go on with it?" too: a stop there keeps the reflection as it was.
    note()
    if let draft, let kept = draft.kept, let since = draft.keptSince {
      let lines =
        kept.split(separator: "\n", omittingEmptySubsequences: false).count
        - (kept.hasSuffix("\n") ? 1 : 0)
      let format = DisplayFormat(timeZone: context.timeZone)
      terminal.writeLine(
        "An unfinished reflection from \(format.dateTime(since)) is kept "
          + "(\(counted(lines, "line"))).")
      // No discards the kept reflection.
      if try forms.confirm("Go on with it?", default: true, destructive: true) {
        soFar = kept
      } else {
        try draft.discard()
        terminal.writeLine("Discarded.")
      }
    }
    note()
    defer { terminal.setInterruptNote(nil) }
    let session = try forms.fillLater(
      session, fields: fields, reflectionSoFar: soFar,
      keepReflection: { text in
        draft?.keep(text)
        note()
      }
    ) { change in
      // A stop while the answer is saved is met once the note says it is.
      try terminal.holdingSignals {
        let session = try save(change)
        if change.field == .reflection { try? draft?.discard() }
        if !saved.contains(change.field) { saved.append(change.field) }
        note()
        return session
      }
    }
    // Done: a reflection skipped leaves nothing kept.
    try? draft?.discard()
    return session
  }

  /// `journal: stopped; the mood after and the reflection are saved; "journal reflect 3f2a"
  /// asks for the rest`, or, with the reflection being typed, `…; the reflection so far is
  /// kept; "journal reflect 3f2a" takes it up again`.
  static func stoppedNote(saved: [Field], kept: Bool, id: String, justSaved: Bool) -> String {
    let command = #""journal reflect \#(id)""#
    var parts: [String] = []
    if !saved.isEmpty {
      parts.append(
        Prose.list(saved.map { "the " + $0.label }) + (saved.count == 1 ? " is" : " are")
          + " saved")
    } else if justSaved {
      parts.append("the session is saved")
    }
    if kept { parts.append("the reflection so far is kept") }
    guard !parts.isEmpty else { return "\njournal: stopped; nothing was changed\n" }
    let next = kept ? "\(command) takes it up again" : "\(command) asks for the rest"
    return "\njournal: stopped; \(parts.joined(separator: "; ")); \(next)\n"
  }

  /// Changes any field: the given `changes` in one save, or, with `editor` (or
  /// JOURNAL_EDITOR=1) at a terminal, the long texts in the person's editor, or, with none
  /// and a terminal, every field in turn.
  public static func edit(
    _ text: String, changes: [Session.Change],
    tags: (adding: [String], removing: [String]) = ([], []), editor: Bool = false,
    _ runtime: Runtime
  ) throws -> Revised {
    // Tags are checked before the vault is opened; given alone, they are the whole edit.
    let adding = try tags.adding.map(Tag.normalise)
    let removing = try tags.removing.map(Tag.normalise)
    // The editor asked for, with no field given, needs a terminal: said before anything (the
    // tags too) is saved, not dropped after them.
    if editor, changes.isEmpty, runtime.terminal == nil { throw AppError.editorNeedsTerminal }
    if !adding.isEmpty || !removing.isEmpty {
      // `--editor` asked for as well, with no field: the editor is found before anything is
      // saved, then the long texts are edited after the tags.
      let editing = changes.isEmpty && editor ? runtime.terminal : nil
      let external = try editing.map { _ in
        try ExternalEditor.prepare(environment: runtime.context.environment)
      }
      let journal = try runtime.openVault(check: .point)
      let id = try journal.resolve(text)
      var session = try journal.apply(changes, to: id, retagging: (adding, removing))
      if let terminal = editing, let external {
        terminal.writeLine("Saved: the tags.")
        terminal.setInterruptNote(
          "\njournal: stopped; the tags are saved; the texts are as they were\n")
        defer { terminal.setInterruptNote(nil) }
        session = try editLongTexts(
          session, editor: external, terminal: terminal, context: runtime.context
        ) { try journal.apply($0, to: id) }
      }
      return Revised(session: session, shownID: try journal.displayID(id))
    }
    if changes.isEmpty && runtime.terminal == nil { throw AppError.nothingToChange }
    let journal = try runtime.openVault(check: .point)
    let id = try journal.resolve(text)
    let session: Session
    let useEditor =
      try editor
      || (Setting.flag("JOURNAL_EDITOR", environment: runtime.context.environment) ?? false)
    if changes.isEmpty, useEditor, let terminal = runtime.terminal {
      session = try editLongTexts(
        try journal.session(id),
        editor: try ExternalEditor.prepare(environment: runtime.context.environment),
        terminal: terminal, context: runtime.context
      ) { try journal.apply($0, to: id) }
    } else if changes.isEmpty, let terminal = runtime.terminal {
      // Each change is saved as it is entered: a stop says which are.
      var saved: [Field] = []
      defer { terminal.setInterruptNote(nil) }
      session = try Forms(terminal: terminal, context: runtime.context).edit(
        try journal.session(id)
      ) { change in
        try terminal.holdingSignals {
          let session = try journal.apply(change, to: id)
          if !saved.contains(change.field) { saved.append(change.field) }
          terminal.setInterruptNote(
            "\njournal: stopped; " + Prose.list(saved.map { "the " + $0.label })
              + (saved.count == 1 ? " is" : " are")
              + " saved; the other fields are as they were\n")
          return session
        }
      }
    } else {
      session = try journal.apply(changes, to: id)
    }
    return Revised(session: session, shownID: try journal.displayID(id))
  }

  /// The long texts (intention, reflection, environment, music), each opened in the editor
  /// with its current text, in the private runtime buffer `--editor` uses (wiped after);
  /// only the texts that changed are saved, together, once the last is closed. A text whose
  /// buffer comes back empty (an accidental `:%d`) is cleared only when the person says so,
  /// and the intention, which a session needs, is never cleared: the walk goes on.
  static func editLongTexts(
    _ session: Session, editor: ExternalEditor, terminal: TTY, context: AppContext,
    save: ([Session.Change]) throws -> Session
  ) throws -> Session {
    var changes: [Session.Change] = []
    var cleared: [Field] = []
    let forms = Forms(terminal: terminal, context: context)
    for field in [Field.intention, .reflection, .environment, .music] {
      let current = session.text(of: field) ?? ""
      terminal.writeLine("The \(field.label), in your editor…")
      let edited = try editor.edit(
        current.isEmpty ? "" : current + "\n", terminalFD: terminal.descriptor)
      if edited.trimmingWhitespace().isEmpty {
        guard !current.isEmpty else { continue }
        if field == .intention {
          terminal.writeLine(
            "  the intention is needed and cannot be cleared; it is kept as it was")
          continue
        }
        guard
          try forms.confirm(
            "The \(field.label) came back empty. Clear it?", default: false, destructive: true)
        else {
          terminal.writeLine("  kept as it was")
          continue
        }
        changes.append(try context.fields.change(field, ""))
        cleared.append(field)
        continue
      }
      let parsed = try context.fields.change(field, edited)
      guard parsed != (try? context.fields.change(field, current)) else { continue }
      changes.append(parsed)
    }
    guard !changes.isEmpty else {
      terminal.writeLine("Nothing changed.")
      return session
    }
    // A stop while they are saved is met once the note says they are.
    let saved = try terminal.holdingSignals {
      let saved = try save(changes)
      terminal.setInterruptNote("\njournal: stopped; what you changed is saved\n")
      return saved
    }
    let written = changes.map(\.field).filter { !cleared.contains($0) }
    var done: [String] = []
    if !written.isEmpty { done.append("Saved: " + Prose.list(written.map { "the " + $0.label })) }
    if !cleared.isEmpty { done.append("Cleared: " + Prose.list(cleared.map { "the " + $0.label })) }
    terminal.writeLine(done.joined(separator: ". ") + ".")
    return saved
  }
}
