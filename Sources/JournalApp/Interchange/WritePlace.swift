import Foundation
import JournalCore
import JournalDiagnostics
import JournalDrafts
import JournalStore

/// Where `new` and `reflect` write: the vault opened with its key, or, when sealed capture
/// is on and no key is at hand without asking, sealed additions that open with the key later.
enum WritePlace {
  case keyed(JournalVault)
  case sealed(SealedCapture)

  /// Sealed capture when it applies (see `Runtime.sealedCapture`), else the vault opened with
  /// its key (the passphrase asked as ever).
  static func open(_ runtime: Runtime) throws -> WritePlace {
    // The file is opened, and the agent asked, once for either way.
    let vault = try Vault.open(at: try runtime.vaultPath())
    let (capture, agent) = try runtime.sealedCapture(vault)
    if let capture { return .sealed(capture) }
    return .keyed(try runtime.openVault(check: .point, opened: vault, agent: agent))
  }

  /// The vault file, for the keyless use cases (reminders).
  var file: Vault {
    switch self {
    case .keyed(let journal): journal.file
    case .sealed(let capture): capture.vault
    }
  }

  var isSealed: Bool {
    switch self {
    case .keyed: false
    case .sealed: true
    }
  }

  /// Saves a complete draft as a new session, with any later fields given.
  func save(
    _ draft: SessionDraft, later: [Session.Change], tags: [String] = [], now: Date
  ) throws -> Session {
    // What the lifecycle refuses (a reflection for a planned session) is refused before
    // anything is saved.
    var trial = try Session.saving(draft, now: now)
    for change in later {
      // Said without an id: nothing was saved under it.
      try trial.revise(change, now: now)
    }
    switch self {
    case .keyed(let journal):
      let session = try journal.save(draft, tags: tags)
      return later.isEmpty ? session : try journal.apply(later, to: session.id)
    case .sealed(let capture):
      return try capture.save(draft, later: later, tags: tags)
    }
  }

  /// Applies changes to `session`, saved (or sealed) at once; the session as it now stands
  /// (sealed: as this process knows it).
  func apply(_ changes: [Session.Change], to session: Session, now: Date) throws -> Session {
    switch self {
    case .keyed(let journal):
      return try journal.apply(changes, to: session.id)
    case .sealed(let capture):
      // What the lifecycle refuses is refused before anything is sealed.
      var changed = session
      for change in changes {
        do {
          try changed.revise(change, now: now)
        } catch {
          throw AppError.lifecycle(error, id: session.id.short)
        }
      }
      try capture.add(changes, to: session.id)
      return changed
    }
  }

  func resolve(_ text: String) throws -> SessionID {
    switch self {
    case .keyed(let journal): try journal.resolve(text)
    case .sealed(let capture): try capture.resolve(text)
    }
  }

  func displayID(_ id: SessionID) throws -> String {
    switch self {
    case .keyed(let journal): try journal.displayID(id)
    case .sealed(let capture): try capture.displayID(id)
    }
  }

  /// The vault's draft files (sealed: written to the public key, none readable here).
  func drafts(_ runtime: Runtime) throws -> DraftStore {
    switch self {
    case .keyed(let journal): try runtime.drafts(journal)
    case .sealed(let capture):
      try capture.drafts(in: try DraftLocation.directory(environment: runtime.context.environment))
    }
  }
}
