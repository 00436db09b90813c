import Foundation
import GRDB
import JournalCore
import JournalCrypto
import JournalStorage
import JournalTestSupport
import Testing

@testable import JournalStore

/// Format 11 (issue 31): the ledger also covers whether sealed capture is on and the recovery
/// slot, and the marks of what was written without the passphrase are kept in the summary.
struct FormatElevenTests {
  /// Stamps the vault as format 10's code did: construction 1, no settings entry.
  static func stampAsFormatTen(_ f: StoreFixture) throws {
    let queue = try DatabaseQueue(path: f.path)
    defer { try? queue.close() }
    try queue.write { db in
      let generation = try #require(try Ledger.stamp(db)).generation
      let (_, tag) = try Ledger(vaultID: f.keys.vaultID, key: f.keys.ledgerKey).tagged(
        db, generation: generation, settings: false)
      try db.execute(sql: "UPDATE ledger SET tag = ?, construction = 1", arguments: [Data(tag)])
    }
  }

  /// A session marked as added without the passphrase in its body, as format 7 to 10 wrote
  /// it, is written again at the first keyed opening: the mark in its summary, where `list`
  /// reads it, and the ledger stamped in today's construction.
  @Test func marksMoveIntoTheSummary() throws {
    // Given a session whose body holds the mark (tag 21), stamped as format 10 did
    let f = try StoreFixture()
    let session = try f.session(seed: 1)
    try f.store.upsert(session)
    var body = RecordCodec.encodeBody(session)
    FieldCodec.put(.addedSealed, time: TestClock.reference - 60, into: &body)
    let cipher = try RecordCipher(keys: f.keys, random: f.random)
    let sealed = try cipher.seal(body, id: session.id.bytes, column: .body, revision: 1)
    let queue = try DatabaseQueue(path: f.path)
    try queue.write { db in
      try db.execute(sql: "UPDATE session SET body = ?", arguments: [Data(sealed)])
    }
    try queue.close()
    try Self.stampAsFormatTen(f)
    // When the vault is next opened with the key
    let store = try Vault.open(at: f.path).sessions(keys: f.keys, random: f.random)
    // Then the summary carries the mark, the session reads the same, and the ledger is new
    let (summaries, damaged) = try store.summaries()
    #expect(damaged.isEmpty)
    #expect(summaries.first?.addedSealed == TestClock.reference - 60)
    #expect(try store.session(session.id).addedSealed == TestClock.reference - 60)
    let construction = try DatabaseQueue(path: f.path).read { db in
      try Int.fetchOne(db, sql: "SELECT construction FROM ledger")
    }
    #expect(construction == Int(Ledger.construction))
  }

  /// Turning sealed capture off, or putting a recovery slot in, with plain SQL is refused as
  /// a changed setting; a format-10 stamp set back in place of today's does not check out.
  @Test func settingsAreCovered() throws {
    let f = try StoreFixture()
    try f.store.upsert(try f.session(seed: 2))
    try f.store.setSealing(publicKey: f.keys.sealingPublicKey)
    func reopen() throws {
      _ = try Vault.open(at: f.path).sessions(keys: f.keys, random: f.random)
    }
    func edit(_ sql: String) throws {
      let queue = try DatabaseQueue(path: f.path)
      try queue.write { try $0.execute(sql: sql) }
      try queue.close()
    }
    try reopen()
    let key = try #require(try f.vault.sealing().publicKey)
    try edit("UPDATE vault SET sealing_key = NULL")
    #expect(throws: StoreError.tampered(.settings)) { try reopen() }
    try edit("UPDATE vault SET sealing_key = x'\(key.map { String(format: "%02x", $0) }.joined())'")
    try reopen()
    try edit("UPDATE vault SET recovery_slot = randomblob(88)")
    #expect(throws: StoreError.tampered(.settings)) { try reopen() }
    try edit("UPDATE vault SET recovery_slot = NULL")
    try reopen()
    // A keyed change of a setting is stamped: it checks out.
    try f.store.setRecoverySlot([UInt8](repeating: 7, count: 88))
    try reopen()
    try edit("UPDATE vault SET recovery_slot = randomblob(88)")
    #expect(throws: StoreError.self) { try reopen() }
    try f.store.setRecoverySlot(nil)
    // The construction set back to format 10's: the stamp no longer checks out.
    try edit("UPDATE ledger SET construction = 1")
    #expect(throws: StoreError.self) { try reopen() }
  }

  /// The format number lowered, a table or index dropped, a migration's record removed: the
  /// file's structure is damaged (exit 5), not a disk failure.
  @Test(arguments: [
    "UPDATE vault SET format_version = 10", "DROP INDEX session_ledger", "DROP TABLE sync_row",
    "DELETE FROM grdb_migrations WHERE identifier = 'v3: reminders'",
  ])
  func structureChanged(sql: String) throws {
    let f = try StoreFixture()
    let queue = try DatabaseQueue(path: f.path)
    try queue.write { try $0.execute(sql: sql) }
    try queue.close()
    #expect(throws: StoreError.damagedStructure(path: f.path)) { try Vault.open(at: f.path) }
  }

  /// The v10 migration was edited three times before it was frozen (issue 34): a vault
  /// migrated by the third edit (no `server_tag`) opens and keeps its sync state; one by the
  /// first two (no generation per agreed row, not covered by the ledger) opens with its sync
  /// state forgotten, ready for `journal sync setup` again.
  @Test(arguments: [false, true]) func earlierShapesOfFormatTen(withoutGeneration: Bool) throws {
    let f = try StoreFixture()
    try f.store.upsert(try f.session(seed: 3))
    let queue = try DatabaseQueue(path: f.path)
    try queue.writeWithoutTransaction { db in
      try db.execute(
        sql: """
          DELETE FROM grdb_migrations
            WHERE identifier LIKE 'v11:%' OR identifier LIKE 'v12:%' OR identifier LIKE 'v13:%'
              OR identifier LIKE 'v14:%';
          DROP TRIGGER sync_outbox_new;
          DROP TRIGGER sync_outbox_changed;
          DROP TRIGGER sync_outbox_reagreed;
          DROP TRIGGER sync_outbox_forgotten;
          DROP TABLE sync_outbox;
          DROP TABLE ledger_leaf;
          DROP TABLE ledger_node;
          ALTER TABLE ledger DROP COLUMN construction;
          UPDATE vault SET format_version = 10;
          DROP TABLE sync;
          CREATE TABLE sync (
            singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
            server TEXT NOT NULL,
            device BLOB NOT NULL CHECK (length(device) = 16),
            seq INTEGER NOT NULL CHECK (seq >= 0),
            head BLOB CHECK (head IS NULL OR length(head) = 32),
            header_hash BLOB CHECK (header_hash IS NULL OR length(header_hash) = 32),
            clock_time INTEGER NOT NULL CHECK (clock_time >= 0),
            clock_counter INTEGER NOT NULL CHECK (clock_counter >= 0),
            last_sync INTEGER,
            background INTEGER NOT NULL CHECK (background IN (0, 1))
          );
          """)
      let ledger = Ledger(vaultID: f.keys.vaultID, key: f.keys.ledgerKey)
      let generation = try #require(try Int64.fetchOne(db, sql: "SELECT generation FROM ledger"))
      if withoutGeneration {
        // The first two edits: their ledger covered no sync state at all.
        let (_, tag) = try ledger.tagged(db, generation: UInt64(generation), settings: false)
        try db.execute(sql: "UPDATE ledger SET tag = ?", arguments: [Data(tag)])
        try db.execute(
          sql: """
            DROP TABLE sync_row;
            CREATE TABLE sync_row (id TEXT NOT NULL PRIMARY KEY, revision INTEGER NOT NULL,
              base BLOB NOT NULL);
            INSERT INTO sync_row VALUES ('\(String(repeating: "3", count: 32))', 1, x'00');
            """)
      }
      try db.execute(
        sql: """
          INSERT INTO sync (singleton, server, device, seq, clock_time, clock_counter, background)
          VALUES (1, 'host=sync.example.net', zeroblob(16), 4, 0, 0, 0)
          """)
      if !withoutGeneration {
        let (_, tag) = try ledger.tagged(db, generation: UInt64(generation), settings: false)
        try db.execute(sql: "UPDATE ledger SET tag = ?", arguments: [Data(tag)])
      }
    }
    try queue.close()
    let vault = try Vault.open(at: f.path)
    let store = try vault.sessions(keys: f.keys, random: f.random)
    #expect(try store.summaries().sessions.count == 1)
    let settings = try vault.syncSettings()
    if withoutGeneration {
      #expect(settings == nil)
    } else {
      #expect(settings?.server == "host=sync.example.net")
      #expect(settings?.seq == 4)
    }
  }
}
