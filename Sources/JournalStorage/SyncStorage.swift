import Foundation
import JournalCore
import JournalCrypto

/// What sync needs of the place sessions are kept: the storage seam's second side. The sync
/// engine (JournalSync) talks to this protocol only, never to SQLite; the local vault
/// (JournalStore's `VaultStorage`) implements it beside `SessionStorage`, as restic's backends
/// implement one interface beside each other.
///
/// Reads need no more than the vault's file; the writes are keyed, each one transaction that
/// the ledger stamps (SECURITY.md, "Sync").
public protocol SyncStorage: AnyObject {
  /// The key header as this device holds it (sent to the server, compared with its copy).
  var keyHeader: KeyHeader { get }

  /// What this device knows of its server; nil when the vault does not sync.
  func syncSettings() throws -> SyncSettings?

  /// Makes the vault one that syncs, with `settings` (setup, join).
  func beginSync(_ settings: SyncSettings) throws

  /// Makes the vault one that does not sync (every agreement forgotten).
  func leaveSync() throws

  /// Notes when this device last synced.
  func noteSync(at time: Date) throws

  /// Whether a write starts a sync in the background.
  func setSyncBackground(_ on: Bool) throws

  /// How many sessions changed here since last agreed, and deletions still to be sent.
  func syncPending() throws -> (sessions: Int, removals: Int)

  /// The ids of sessions changed here since last agreed (in id order, the first `limit` of
  /// them when given), and of deletions still to be sent.
  func syncOutbox(limit: Int?) throws -> (changed: [SessionID], removed: [SessionID])

  /// The ids of every session this device has agreed with the server (sent or received).
  func syncAgreed() throws -> [SessionID]

  /// The sessions with these ids as this device holds them, with what was last agreed;
  /// those it deleted for good are `tombstoned`.
  func syncLocal(_ ids: [SessionID]) throws -> (
    local: [SessionID: SyncLocal], tombstoned: Set<SessionID>
  )

  /// A keyed fingerprint of a field's value: equal values, equal fingerprints.
  func fingerprint(_ session: Session, _ field: SyncField) throws -> [UInt8]

  /// Writes what a sync agreed, in one keyed transaction; false (nothing written) when
  /// another sync or another journal moved on meanwhile.
  func commitSync(_ commit: SyncCommit) throws -> Bool
}
