import Foundation
import JournalCore
import JournalCrypto

// The values sync and the vault hand each other across the seam (SyncStorage): what a
// device knows of its server, what it last agreed for a session, a session as held here,
// and what one sync writes.

/// What this device knows of its sync server (format 10, the `sync` row; SECURITY.md,
/// "Sync"). Nothing in it is secret: the server's address (never a password), this device's
/// random id, how far it has read the server's chain and the tag it ended on.
public struct SyncSettings: Sendable, Equatable {
  /// The connection string or URL, as the person gave it (no password: refused before).
  public var server: String
  /// The server's address keyed-hashed under the fingerprint key (`SessionStore.serverTag`):
  /// with the key from the unlock agent, the address can be trusted before the whole vault
  /// is checked, and the connection made meanwhile.
  public var serverTag: [UInt8]?
  public var device: [UInt8]
  /// The server's change number this device has read up to, and the chain's tag there.
  public var seq: Int64
  public var head: [UInt8]?
  /// The fingerprint of the key header as last agreed with the server.
  public var headerHash: [UInt8]?
  /// This device's hybrid logical clock.
  public var clockTime: UInt64
  public var clockCounter: UInt32
  public var lastSync: Date?
  /// Whether a write starts a sync in the background.
  public var background: Bool

  public init(server: String, device: [UInt8]) {
    self.server = server
    self.device = device
    self.seq = 0
    self.clockTime = 0
    self.clockCounter = 0
    self.background = false
  }

  public var clock: HybridClock {
    get { HybridClock(time: clockTime, counter: clockCounter, device: device) }
    set {
      clockTime = newValue.time
      clockCounter = newValue.counter
    }
  }
}

/// Where a device's place in the server's chain moves to when the journal's data key changes
/// (`passwd --new-key` on a journal that syncs; SECURITY.md, "Sync", "A new key"): written
/// in the transaction that begins the key change here, so that the vault never holds the new
/// key with the old key's place, or the other way round.
public struct SyncPosition: Sendable, Equatable {
  /// The change number read up to, and the tag of the chain there.
  public var seq: Int64
  public var head: [UInt8]
  /// The hash of the key header agreed with the server (the new key's).
  public var headerHash: [UInt8]

  public init(seq: Int64, head: [UInt8], headerHash: [UInt8]) {
    self.seq = seq
    self.head = head
    self.headerHash = headerHash
  }
}

/// What this device last agreed with the server for one session: each field's stamp and a
/// keyed fingerprint of its value, and the conflicts it held. Sealed under the record key
/// (column `syncBase`) in `sync_row.base`.
public struct SyncBaseRecord: Sendable, Equatable {
  public var stamps: SyncStamps
  public var fingerprints: [SyncField: [UInt8]]
  public var conflicts: Set<SyncStamp>

  public static let fingerprintBytes = 16

  public init(stamps: SyncStamps, fingerprints: [SyncField: [UInt8]], conflicts: Set<SyncStamp>) {
    self.stamps = stamps
    self.fingerprints = fingerprints
    self.conflicts = conflicts
  }

  public var base: SyncMerge.Base { SyncMerge.Base(stamps: stamps, conflicts: conflicts) }
}

/// A session as this device holds it, for a merge: where it is and what was last agreed.
public struct SyncLocal: Sendable {
  public let session: Session
  public let revision: Int64
  public let base: SyncBaseRecord?
  /// In the trash, its undo window still open: a change from another device goes into the
  /// trashed copy, and an undo brings it back with the change.
  public let trashed: Bool

  public init(session: Session, revision: Int64, base: SyncBaseRecord?, trashed: Bool) {
    self.session = session
    self.revision = revision
    self.base = base
    self.trashed = trashed
  }
}

/// What one sync writes here, all in one keyed transaction.
public struct SyncCommit: Sendable {
  /// A session as agreed with the server.
  public struct Agreed: Sendable {
    public let id: SessionID
    /// The session to write (nil: this device's copy stays as it is).
    public let session: Session?
    public let base: SyncBaseRecord
    /// Whether this device's copy is then the server's (else it is pushed next).
    public let clean: Bool
    /// The revision the session was read at (nil: it was not here). A session written
    /// over one that changed meanwhile (another journal edited, deleted or purged it during
    /// the sync) is not written: the whole commit is refused, to be merged again. One not
    /// written that changed meanwhile stays to be pushed.
    public let readAt: Int64?
    /// Whether it was read from the trash.
    public let trashed: Bool

    public init(
      id: SessionID, session: Session?, base: SyncBaseRecord, clean: Bool, readAt: Int64?,
      trashed: Bool = false
    ) {
      self.id = id
      self.session = session
      self.base = base
      self.clean = clean
      self.readAt = readAt
      self.trashed = trashed
    }
  }

  public var agreed: [Agreed] = []
  /// Sessions another device deleted: removed here for good.
  public var removed: [SessionID] = []
  /// Deletions of this device the server has taken: nothing more to tell it.
  public var forgotten: [SessionID] = []
  public var settings: SyncSettings
  /// The change number this sync started from: if another sync moved it meanwhile,
  /// nothing is written.
  public var startedAt: Int64
  /// A key header taken from the server (another device's new passphrase), written in the
  /// same transaction over the one this device had.
  public var header: (new: KeyHeader, over: KeyHeader)?

  public init(settings: SyncSettings, startedAt: Int64) {
    self.settings = settings
    self.startedAt = startedAt
  }
}
