import Glibc
import JournalCore

/// A draft being edited: its lock is held until `remove()` or `release()`, or until the
/// process ends (the kernel releases a flock when its holder dies, so a crash never leaves
/// a draft locked).
public final class DraftHandle {
  private let store: DraftStore
  public let id: SessionID
  private var lockFD: Int32

  init(store: DraftStore, id: SessionID, lockFD: Int32) {
    self.store = store
    self.id = id
    self.lockFD = lockFD
  }

  deinit { release() }

  /// Writes the draft's current state, atomically.
  public func save(_ stored: StoredDraft) throws {
    precondition(stored.draft.id == id, "a handle saves its own draft")
    try store.write(stored)
  }

  /// Removes the draft file and its lock (after the session is safely in the vault).
  public func remove() throws {
    let draftPath = store.path(id, ".draft")
    if unlink(draftPath) != 0 && errno != ENOENT {
      throw DraftError.io(path: draftPath, errno: errno)
    }
    store.syncDirectory()
    unlink(store.path(id, ".lock"))
    release()
  }

  /// Lets go of the lock, leaving the draft for later.
  public func release() {
    guard lockFD >= 0 else { return }
    close(lockFD)
    lockFD = -1
  }
}
