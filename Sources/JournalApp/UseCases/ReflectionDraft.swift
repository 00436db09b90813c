import Foundation
import JournalCore
import JournalDiagnostics
import JournalDrafts
import JournalTerminal

/// The reflection being typed in the later fields (`journal reflect`, and `journal new`
/// when it asks for them), kept in its session's encrypted draft file as it is entered: each
/// line ended with Enter, and, when Ctrl-C, a closed terminal or SIGTERM ends the process, the
/// unfinished line too. Removed once the reflection is saved or skipped; until then the next
/// `journal reflect` of the session offers it. The draft's lock is held from `open` on, so a
/// second window reflecting on the same session is refused rather than racing this one.
final class ReflectionDraft {
  private let store: DraftStore
  private let id: SessionID
  private let now: Now
  private let terminal: any Terminal
  private var handle: DraftHandle
  private var started: Date?
  private var warned = false
  /// The text kept in the file now, if any.
  private(set) var kept: String?

  /// Takes the session's draft (its lock), with the reflection an earlier, interrupted run
  /// kept, if any. `DraftError.inUse` when another journal is writing it now.
  init(store: DraftStore, id: SessionID, now: Now, terminal: any Terminal) throws {
    self.store = store
    self.id = id
    self.now = now
    self.terminal = terminal
    do {
      let (handle, stored) = try store.open(id)
      self.handle = handle
      // A leftover of `new` (saved, then interrupted before its draft was removed) holds no
      // reflection: nothing to offer.
      if let text = stored.draft.reflection {
        kept = text
        started = stored.started
      }
    } catch DraftError.noMatch {
      handle = try store.take(id)
    }
  }

  /// When the kept reflection was started.
  var keptSince: Date? { kept == nil ? nil : started }

  /// Keeps `text`, the reflection so far. A failure is said once, and typing goes on: the
  /// text is still in memory.
  func keep(_ text: String) {
    guard !text.isEmpty else { return }
    let time = now()
    let since = started ?? time
    do {
      try handle.save(
        StoredDraft(draft: SessionDraft(id: id, reflection: text), started: since, updated: time))
      started = since
      kept = text
    } catch {
      guard !warned else { return }
      warned = true
      terminal.writeLine(
        "  the reflection could not be kept safe (\(Diagnosis(error).message)); "
          + "it is still here")
    }
  }

  /// Removes the kept text (the reflection was saved, skipped or discarded); the lock stays
  /// held until `release`.
  func discard() throws {
    guard kept != nil else { return }
    try handle.remove()
    handle = try store.take(id)
    kept = nil
    started = nil
  }

  /// Lets go of the lock, and of the lock file when nothing is kept. The kept text, if any,
  /// stays for the next `journal reflect`.
  func release() {
    if kept == nil { try? handle.remove() } else { handle.release() }
  }
}
