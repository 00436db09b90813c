import Foundation
import GRDB
import JournalCore
import JournalCrypto
import JournalStorage

extension SyncBaseRecord {
  /// version (1: 2 since format 14, with `tags`) ‖ for each field: field (1) ‖ stamp (28) ‖
  /// fingerprint (16) ‖ then each conflict's stamp (28).
  func encoded() -> [UInt8] {
    var out: [UInt8] = [2]
    for field in SyncField.allCases {
      out.append(field.rawValue)
      out += (stamps[field] ?? .none).encoded
      out += fingerprints[field] ?? [UInt8](repeating: 0, count: Self.fingerprintBytes)
    }
    for stamp in conflicts.sorted() { out += stamp.encoded }
    return out
  }

  /// The record of session `id` from its plaintext; anything else is damage of its row.
  init(decoding bytes: UnsafeRawBufferPointer, id: SessionID) throws {
    var stamps: SyncStamps = [:]
    var fingerprints: [SyncField: [UInt8]] = [:]
    var conflicts: Set<SyncStamp> = []
    var reader = ByteReader(bytes)
    do {
      let layout = try reader.byte()
      guard layout == 1 || layout == 2 else { throw StoreError.damagedRecord(id: id.short) }
      for field in layout == 1 ? SyncField.layoutOne : SyncField.allCases {
        guard try reader.byte() == field.rawValue else {
          throw StoreError.damagedRecord(id: id.short)
        }
        stamps[field] = try SyncStamp(reading: &reader)
        fingerprints[field] = Array(try reader.bytes(Self.fingerprintBytes))
      }
      while !reader.isAtEnd { conflicts.insert(try SyncStamp(reading: &reader)) }
      // Layout 1 was agreed before sessions had tags: none were agreed, by nobody.
      if layout == 1 { stamps[.tags] = SyncStamp.none }
    } catch is ByteReader.Short {
      throw StoreError.damagedRecord(id: id.short)
    }
    self.init(stamps: stamps, fingerprints: fingerprints, conflicts: conflicts)
  }
}

extension Vault {
  /// What this device knows of its sync server; nil when the vault does not sync. Needs no
  /// key.
  public func syncSettings() throws -> SyncSettings? {
    try read { db in try Self.syncSettings(db) }
  }

  static func syncSettings(_ db: Database) throws -> SyncSettings? {
    guard
      let row = try Row.fetchOne(
        db,
        sql: """
          SELECT server, device, seq, head, header_hash, clock_time, clock_counter, last_sync,
            background, server_tag FROM sync WHERE singleton = 1
          """)
    else { return nil }
    var settings = SyncSettings(
      server: try row.decode(String.self, atIndex: 0),
      device: Array(try row.decode(Data.self, atIndex: 1)))
    settings.seq = try row.decode(Int64.self, atIndex: 2)
    settings.head = try row.decode(Data?.self, atIndex: 3).map(Array.init)
    settings.headerHash = try row.decode(Data?.self, atIndex: 4).map(Array.init)
    settings.clockTime = UInt64(max(try row.decode(Int64.self, atIndex: 5), 0))
    settings.clockCounter = UInt32(clamping: try row.decode(Int64.self, atIndex: 6))
    // Out of range (planted): not known, rather than a time that traps when written back.
    settings.lastSync = try row.decode(Int64?.self, atIndex: 7).flatMap(StoredRange.date(millis:))
    settings.background = try row.decode(Int64.self, atIndex: 8) != 0
    settings.serverTag = try row.decode(Data?.self, atIndex: 9).map { [UInt8]($0) }
    return settings
  }

  static func writeSyncSettings(_ settings: SyncSettings, _ db: Database) throws {
    try db.execute(
      sql: """
        INSERT INTO sync (singleton, server, device, seq, head, header_hash, clock_time,
          clock_counter, last_sync, background, server_tag)
        VALUES (1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (singleton) DO UPDATE SET server = excluded.server,
          server_tag = excluded.server_tag,
          device = excluded.device, seq = excluded.seq, head = excluded.head,
          header_hash = excluded.header_hash, clock_time = excluded.clock_time,
          clock_counter = excluded.clock_counter, last_sync = excluded.last_sync,
          background = excluded.background
        """,
      arguments: [
        settings.server, Data(settings.device), settings.seq, settings.head.map { Data($0) },
        settings.headerHash.map { Data($0) }, Int64(settings.clockTime),
        Int64(settings.clockCounter),
        settings.lastSync.map(StoredRange.millis),
        settings.background ? 1 : 0, settings.serverTag.map { Data($0) },
      ])
  }

  /// Notes when this device last synced (`sync status`), and forgets the outbox's sessions
  /// agreed since, or no longer here.
  public func noteSync(at time: Date) throws {
    if let readOnly { throw StoreError.readOnly(path: path, reason: readOnly) }
    try write { db in
      try db.execute(
        sql: "UPDATE sync SET last_sync = ? WHERE singleton = 1",
        arguments: [StoredRange.millis(time)])
      try db.execute(sql: Self.pruneOutboxSQL)
    }
  }

  /// Whether a write should start a sync in the background.
  public func setSyncBackground(_ on: Bool) throws {
    if let readOnly { throw StoreError.readOnly(path: path, reason: readOnly) }
    try write { db in
      try db.execute(sql: "UPDATE sync SET background = ? WHERE singleton = 1", arguments: [on])
    }
  }

  /// How many sessions changed here since they were last agreed with the server, and how
  /// many deletions it has still to hear of. Needs no key.
  public func syncPending() throws -> (sessions: Int, removals: Int) {
    try read { db in
      (
        try Int.fetchOne(db, sql: "SELECT count(*) FROM (\(Self.dirtySQL))") ?? 0,
        try Int.fetchOne(db, sql: "SELECT count(*) FROM (\(Self.removedSQL))") ?? 0
      )
    }
  }

  /// Sessions changed here since last agreed (or never synced): of those the outbox names
  /// (every session written since the vault began to sync, less those found agreed since),
  /// the ones whose revision is not the agreed one. Read from the outbox, not from every
  /// session: a sync costs what it sends (a join over every session was most of a
  /// sync with nothing to do at 100,000 sessions). CROSS JOIN keeps the outbox the outer
  /// loop: without statistics SQLite would scan every session and look each up in it.
  static let dirtySQL = """
    SELECT o.id FROM sync_outbox o CROSS JOIN session s ON s.id = o.id
    LEFT JOIN sync_row r INDEXED BY sync_row_revision ON r.id = o.id
    WHERE r.id IS NULL OR r.revision != s.revision
    """
  /// Forgets the outbox's sessions that are agreed now (or no longer here), when a sync
  /// found nothing to send.
  static let pruneOutboxSQL = "DELETE FROM sync_outbox WHERE id NOT IN (\(dirtySQL))"
  /// Forgets one session of the outbox if it is agreed now (or no longer here): after a
  /// sync's write, for each session it wrote or agreed.
  static let pruneOneSQL = """
    DELETE FROM sync_outbox WHERE id = ?1 AND NOT EXISTS (
      SELECT 1 FROM session s LEFT JOIN sync_row r ON r.id = s.id
      WHERE s.id = ?1 AND (r.id IS NULL OR r.revision != s.revision))
    """
  /// Sessions deleted here (their undo window closed) that the server still holds. From the
  /// tombstones (CROSS JOIN: SQLite would otherwise scan every agreed row), each looked up
  /// among the agreed rows.
  static let removedSQL = "SELECT t.id FROM tombstone t CROSS JOIN sync_row r ON r.id = t.id"
}

extension SessionStore {
  /// How many sessions one sync reads by their leaves (point checks) before the whole check
  /// is cheaper: each leaf is a query, the whole check one pass over every row.
  static let syncLeavesAtMost = 512

  /// Whether `count` more sessions are checked by their leaves (else the whole vault is).
  private func byLeaves(_ count: Int) -> Bool {
    guard pointChecks, syncLeavesRead + count <= Self.syncLeavesAtMost else { return false }
    syncLeavesRead += count
    return true
  }

  /// The ids of sessions changed here since they were last agreed with the server (in id
  /// order; the first `limit` when given), and of deletions the server has still to hear of.
  /// With point checks the leaves of every one of them are checked in the same read (a row
  /// planted to look changed or deleted is refused before anything is sent); past
  /// `syncLeavesAtMost`, the whole vault is.
  public func syncOutbox(limit: Int? = nil) throws -> (changed: [SessionID], removed: [SessionID]) {
    let (outbox, checked) = try vault.read { db in
      let outbox = (
        changed: try String.fetchAll(
          db.cachedStatement(sql: Vault.dirtySQL + " ORDER BY o.id LIMIT ?"),
          arguments: [limit ?? -1]
        ).compactMap(SessionID.init),
        removed: try String.fetchAll(db.cachedStatement(sql: Vault.removedSQL))
          .compactMap(SessionID.init)
      )
      guard pointChecks else { return (outbox, true) }
      let ids = outbox.changed + outbox.removed
      guard byLeaves(ids.count) else { return (outbox, false) }
      try checkLeaves(of: ids, db)
      return (outbox, true)
    }
    if checked { return outbox }
    try checkIfListingDidNot()
    return try syncOutbox(limit: limit)
  }

  /// The ids of every session agreed with the server (a read of many rows: the whole check
  /// first, for a store of point checks), from the index the ledger checks: SQLite would
  /// read them from the table's own index of ids, where ids planted in the file would be
  /// taken for sessions the server no longer holds, and removed by a keyed write.
  public func syncAgreed() throws -> [SessionID] {
    try checkIfListingDidNot()
    return try vault.read { db in
      try String.fetchAll(db, sql: "SELECT id FROM sync_row INDEXED BY sync_row_revision")
        .compactMap(SessionID.init)
    }
  }

  /// The sessions with these ids as this device holds them (in the vault or its trash),
  /// with what was last agreed; ids this device has deleted for good are `tombstoned`. With
  /// point checks, their leaves are checked in the same read (past `syncLeavesAtMost`, the
  /// whole vault).
  public func syncLocal(
    _ ids: [SessionID]
  ) throws -> (local: [SessionID: SyncLocal], tombstoned: Set<SessionID>) {
    let byLeaf = byLeaves(ids.count)
    if !byLeaf { try checkIfListingDidNot() }
    return try vault.read { db in
      if byLeaf { try checkLeaves(of: ids, db) }
      var local: [SessionID: SyncLocal] = [:]
      var tombstoned: Set<SessionID> = []
      for id in ids {
        if try Bool.fetchOne(
          db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM tombstone WHERE id = ?)"),
          arguments: [id.hex])
          == true
        {
          tombstoned.insert(id)
          continue
        }
        let base = try self.syncBase(id, db)
        if let revision = try Self.revision(of: id, db) {
          local[id] = SyncLocal(
            session: try self.fetch(id, db), revision: revision, base: base, trashed: false)
        } else if let revision = try Int64.fetchOne(
          db.cachedStatement(sql: "SELECT revision FROM trash WHERE id = ? AND outcome IS NULL"),
          arguments: [id.hex])
        {
          local[id] = SyncLocal(
            session: try self.fetch(id, db, trashed: true), revision: revision, base: base,
            trashed: true)
        }
      }
      return (local, tombstoned)
    }
  }

  private func syncBase(_ id: SessionID, _ db: Database) throws -> SyncBaseRecord? {
    guard
      let row = try Row.fetchOne(
        db.cachedStatement(sql: "SELECT generation, base FROM sync_row WHERE id = ?"),
        arguments: [id.hex])
    else { return nil }
    do {
      let generation = UInt64(max(try row.decode(Int64.self, atIndex: 0), 1))
      let sealed = try row.decode(Data.self, atIndex: 1)
      return try cipher.open(
        Array(sealed), id: id.bytes, column: .syncBase, revision: generation
      ) { plain in
        try SyncBaseRecord(decoding: plain, id: id)
      }
    } catch {
      throw StoreError.damagedRecord(id: id.short)
    }
  }

  /// The tag of a server address: BLAKE2b-256 keyed with the fingerprint key over "server" ‖
  /// the address.
  public static func serverTag(_ server: String, key: SecureBytes) throws -> [UInt8] {
    let hash = try KeyedHash(key: key)
    hash.update(Array("server".utf8))
    hash.update(Array(server.utf8))
    return hash.finish()
  }

  /// A keyed fingerprint of a field's value (16 bytes): equal values, equal fingerprints;
  /// nothing of the value can be read from it without the key.
  public func fingerprint(_ session: Session, _ field: SyncField) throws -> [UInt8] {
    fingerprintLock.lock()
    defer { fingerprintLock.unlock() }
    let hash: KeyedHash
    if let made = fingerprintHash {
      try made.restart(key: fingerprintKey)
      hash = made
    } else {
      hash = try KeyedHash(key: fingerprintKey)
      fingerprintHash = hash
    }
    hash.update([field.rawValue])
    var value = session.syncValue(field)
    defer { wipe(&value) }
    hash.update(value)
    return Array(hash.finish().prefix(SyncBaseRecord.fingerprintBytes))
  }

  /// Writes what a sync agreed, in one keyed transaction; false (and nothing written) when
  /// another sync of this vault moved on meanwhile, or another journal changed a session it
  /// writes.
  @discardableResult
  public func commitSync(_ commit: SyncCommit) throws -> Bool {
    let written: Bool
    do {
      written = try commitSyncWrite(commit)
    } catch is SyncCommitRefused {
      return false
    }
    if written, let header = commit.header { vault.replaceHeaderInMemory(header.new) }
    // Sessions another device deleted leave no page images in the WAL (as a purge).
    if written, !commit.removed.isEmpty { try? vault.truncateWAL() }
    return written
  }

  private func commitSyncWrite(_ commit: SyncCommit) throws -> Bool {
    try write { db -> Bool in
      guard let current = try Vault.syncSettings(db), current.seq == commit.startedAt else {
        return false
      }
      for agreed in commit.agreed where agreed.session != nil {
        let here = try Self.revision(of: agreed.id, db)
        let trashed = try self.trashedRevision(agreed.id, db)
        let buried =
          try Bool.fetchOne(
            db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM tombstone WHERE id = ?)"),
            arguments: [agreed.id.hex]) ?? false
        let now = agreed.trashed ? trashed : here
        guard now == agreed.readAt, !buried, agreed.trashed || trashed == nil else {
          // Changed meanwhile: nothing is written; the sync merges again.
          throw SyncCommitRefused()
        }
      }
      for agreed in commit.agreed {
        var revision: Int64? = nil
        if let session = agreed.session {
          if agreed.trashed {
            revision = try self.putTrashed(session, db)
          } else {
            try self.put(session, db)
            revision = try Self.revision(of: agreed.id, db)
          }
        } else if let readAt = agreed.readAt {
          let now = try Self.revision(of: agreed.id, db)
          revision = now == readAt ? readAt : -1
        }
        // Each write of a row one generation on, bound into its sealing key (and covered by
        // the ledger): an older base put back no longer opens.
        let previous =
          try Int64.fetchOne(
            db.cachedStatement(sql: "SELECT generation FROM sync_row WHERE id = ?"),
            arguments: [agreed.id.hex])
          ?? 0
        // A generation out of range was planted: never counted on from.
        guard StoredRange.isCounter(previous) else { throw StoreError.tampered(.rows) }
        let generation = previous + 1
        let sealed = try cipher.seal(
          agreed.base.encoded(), id: agreed.id.bytes, column: .syncBase,
          revision: UInt64(generation))
        // Cached: a statement on a table with triggers compiles them at every preparing, and
        // a setup's commit writes a thousand of these.
        try db.cachedStatement(
          sql:
            "INSERT OR REPLACE INTO sync_row (id, revision, generation, base) VALUES (?, ?, ?, ?)"
        ).execute(
          arguments: [
            agreed.id.hex, agreed.clean ? (revision ?? -1) : -1, generation, Data(sealed),
          ])
      }
      for id in commit.removed {
        try db.cachedStatement(sql: "DELETE FROM session WHERE id = ?").execute(arguments: [id.hex])
        try db.cachedStatement(sql: "DELETE FROM reminder WHERE id = ?").execute(arguments: [id.hex]
        )
        try db.execute(
          sql: """
            UPDATE trash SET outcome = 'purged', summary = X'', body = X'',
              reminder_due = NULL, reminder_repeat = NULL, reminder_last_fired = NULL
            WHERE id = ? AND outcome IS NULL
            """, arguments: [id.hex])
        try db.cachedStatement(sql: "INSERT OR IGNORE INTO tombstone (id) VALUES (?)").execute(
          arguments: [id.hex])
        try db.cachedStatement(sql: "DELETE FROM sync_row WHERE id = ?").execute(arguments: [id.hex]
        )
      }
      for id in commit.forgotten {
        try db.cachedStatement(sql: "DELETE FROM sync_row WHERE id = ?").execute(arguments: [id.hex]
        )
      }
      if let header = commit.header { try Vault.swapHeader(header.new, over: header.over, db) }
      var settings = commit.settings
      settings.serverTag = try Self.serverTag(settings.server, key: fingerprintKey)
      try Vault.writeSyncSettings(settings, db)
      // What this commit agreed or removed leaves the outbox (each looked up: the outbox of
      // a setup holds every session until it is sent).
      let prune = try db.cachedStatement(sql: Vault.pruneOneSQL)
      for id in commit.agreed.map(\.id) + commit.removed + commit.forgotten {
        try prune.execute(arguments: [id.hex])
      }
      return true
    }
  }

  /// A key change on a vault that syncs, inside the transaction that begins it (`db`): every
  /// agreed base sealed again under `new`'s record key at the same generation, each field's
  /// fingerprint moved to `new`'s fingerprint key where the value here is still the agreed one
  /// (else a mark no value has, so that the field stays changed here), the server's address
  /// tagged under `new`'s key, and, when given, this device's place in the server's chain.
  /// The sessions are read under this store's (the old) key: none is re-sealed yet.
  func rekeySync(to new: SessionStore, position: SyncPosition?, _ db: Database) throws {
    guard var settings = try Vault.syncSettings(db) else { return }
    let rows = try Row.fetchAll(db, sql: "SELECT id, generation FROM sync_row ORDER BY id")
    let changed = [UInt8](repeating: 0, count: SyncBaseRecord.fingerprintBytes)
    for row in rows {
      let text: String = try row.decode(String.self, atIndex: 0)
      guard let id = SessionID(text), var base = try syncBase(id, db) else {
        throw StoreError.damagedRecord(id: String(text.prefix(8)))
      }
      let here: Session? =
        (try? fetch(id, db)) ?? (try? fetch(id, db, trashed: true))
      for field in SyncField.allCases {
        if let here, try fingerprint(here, field) == base.fingerprints[field] {
          base.fingerprints[field] = try new.fingerprint(here, field)
        } else {
          base.fingerprints[field] = changed
        }
      }
      let generation = UInt64(max(try row.decode(Int64.self, atIndex: 1), 1))
      let sealed = try new.cipher.seal(
        base.encoded(), id: id.bytes, column: .syncBase, revision: generation)
      try db.execute(
        sql: "UPDATE sync_row SET base = ? WHERE id = ?", arguments: [Data(sealed), text])
    }
    if let position {
      settings.seq = position.seq
      settings.head = position.head
      settings.headerHash = position.headerHash
    }
    settings.serverTag = try Self.serverTag(settings.server, key: new.fingerprintKey)
    try Vault.writeSyncSettings(settings, db)
  }

  private func trashedRevision(_ id: SessionID, _ db: Database) throws -> Int64? {
    try Int64.fetchOne(
      db.cachedStatement(sql: "SELECT revision FROM trash WHERE id = ? AND outcome IS NULL"),
      arguments: [id.hex])
  }

  /// Stops syncing: the server's address and everything agreed with it are forgotten, in a
  /// keyed write (the ledger covers them).
  public func leaveSync() throws {
    try write(bulk: true) { db in
      try db.execute(sql: "DELETE FROM sync_row")
      try db.execute(sql: "DELETE FROM sync")
      try db.execute(sql: "DELETE FROM sync_outbox")
    }
  }

  /// Starts sync for this vault: the server and this device's id, nothing read yet.
  public func beginSync(_ settings: SyncSettings) throws {
    try write { db in
      guard try Vault.syncSettings(db) == nil else { throw StoreError.syncAlreadySetUp }
      var settings = settings
      settings.serverTag = try Self.serverTag(settings.server, key: fingerprintKey)
      try Vault.writeSyncSettings(settings, db)
      // Every session here is still to be sent; from now on the triggers add what is written.
      try db.execute(sql: "INSERT OR IGNORE INTO sync_outbox (id) SELECT id FROM session")
    }
  }

}

/// A sync's commit refused because another journal changed a session meanwhile.
struct SyncCommitRefused: Error {}
