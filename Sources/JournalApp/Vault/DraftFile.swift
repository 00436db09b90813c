import Foundation
import JournalCore
import JournalDiagnostics
import JournalDrafts
import JournalTerminal

/// The draft file behind a guided `journal new`: offered back after an interruption,
/// written after every answer, removed once the session is saved.
public final class DraftFile {
  private let store: DraftStore
  private let terminal: TTY
  private let now: () -> Date
  /// Written without the passphrase: the draft opens only with it.
  private let sealed: Bool
  private var handle: DraftHandle?
  private var stored: StoredDraft?
  /// The fields a resumed draft already holds.
  public private(set) var answered: Set<Field> = []
  private var warned = false

  private init(store: DraftStore, terminal: TTY, sealed: Bool, now: @escaping () -> Date) {
    self.store = store
    self.terminal = terminal
    self.sealed = sealed
    self.now = now
  }

  /// Recovers earlier drafts (offering each), and returns the file for this form. If one is
  /// resumed, `draft` becomes it (fields given as flags still win).
  static func begin(
    draft: inout SessionDraft, runtime: Runtime, place: WritePlace, terminal: TTY,
    forms: Forms
  ) throws -> DraftFile {
    guard case .keyed(let journal) = place else {
      // Without the key no draft can be read, so none is offered, dropped or judged: each
      // waits, sealed, for the next `journal new` that has the key.
      let store = try place.drafts(runtime)
      let waiting = try store.ids().count
      if waiting > 0 {
        terminal.writeLine(
          "\(counted(waiting, "unfinished draft")) \(waiting == 1 ? "waits" : "wait"); "
            + #"it opens with your passphrase ("journal unlock", then "journal new")."#)
      }
      let file = DraftFile(
        store: store, terminal: terminal, sealed: true, now: { runtime.context.now() })
      if !draft.answered.isEmpty { file.keep(draft) }
      return file
    }
    let (store, recovery) = try runtime.recoverDrafts(journal)
    let file = DraftFile(
      store: store, terminal: terminal, sealed: false, now: { runtime.context.now() })
    for notice in recovery.notices { terminal.writeLine(notice) }
    for offer in recovery.offers {
      switch try forms.offer(offer) {
      case .resume:
        let (handle, stored) = try store.open(offer.draft.id)
        var resumed = stored.draft
        for field in Field.now { resumed.overwrite(field, from: draft) }
        draft = resumed
        file.handle = handle
        file.stored = StoredDraft(draft: resumed, started: stored.started, updated: stored.updated)
        file.answered = stored.draft.answered
        terminal.writeLine("Resuming; the answered fields are kept.")
        file.armInterruptNote()
        return file
      case .discard:
        try store.discard(offer.draft.id)
        terminal.writeLine("Discarded.")
      case .keep:
        terminal.writeLine(#"Kept for later; "journal drafts" lists it."#)
      }
    }
    if !draft.answered.isEmpty { file.keep(draft) }
    return file
  }

  /// Writes the draft after an answer. A failure is said once, in one line, and the form
  /// goes on: the answers are still in memory.
  public func keep(_ draft: SessionDraft) {
    let time = now()
    do {
      if let handle, var stored {
        stored.draft = draft
        stored.updated = time
        try handle.save(stored)
        self.stored = stored
      } else {
        let stored = StoredDraft(draft: draft, started: time, updated: time)
        handle = try store.create(stored)
        self.stored = stored
      }
      armInterruptNote()
    } catch {
      guard !warned else { return }
      warned = true
      let diagnosis = Diagnosis(error)
      terminal.writeLine(
        "  the draft could not be kept safe (\(diagnosis.message)); your answers are still here")
    }
  }

  /// `error`, from saving the session, said with what the draft keeps safe; unchanged when
  /// the draft could not be kept.
  public func unsaved(_ error: any Error) -> any Error {
    guard let draft = stored?.draft else { return error }
    return AppError.notSavedDraftKept(
      cause: Diagnosis(error), kept: Self.describe(draft), sealed: sealed)
  }

  /// Removes the draft once its session is saved.
  public func finish() {
    terminal.setInterruptNote(nil)
    try? handle?.remove()
    handle = nil
  }

  /// What an interruption leaves, said exactly: the fields in the draft file now, and the
  /// command that offers it again.
  private func armInterruptNote() {
    guard let draft = stored?.draft else { return }
    terminal.setInterruptNote(
      "\njournal: your draft is kept\(sealed ? ", sealed," : "") with \(Self.describe(draft)); "
        + (sealed ? DraftWords.resume(sealed: true) : #""journal new" will offer it again"#)
        + "\n")
  }

  /// "the date, the treatment and 3 lines of the intention".
  static func describe(_ draft: SessionDraft) -> String {
    let parts = Field.now.filter { draft.answered.contains($0) }.map { field -> String in
      guard field == .intention, let intention = draft.intention else {
        return "the \(field.label)"
      }
      let lines = intention.split(separator: "\n", omittingEmptySubsequences: false).count
      return lines == 1 ? "the intention" : "\(lines) lines of the intention"
    }
    return parts.isEmpty ? "nothing answered yet" : Prose.list(parts)
  }

}

extension SessionDraft {
  /// Takes `field` from `other` when it holds a value there.
  mutating func overwrite(_ field: Field, from other: SessionDraft) {
    switch field {
    case .date: date = other.date ?? date
    case .treatment: treatment = other.treatment ?? treatment
    case .dose: dose = other.dose ?? dose
    case .intention: intention = other.intention ?? intention
    case .moodBefore: moodBefore = other.moodBefore ?? moodBefore
    case .environment, .music, .moodAfter, .reflection, .notes: break
    }
  }
}
