import Foundation
import GRDB
import JournalCore
import JournalStorage
import JournalTestSupport
import Testing

@testable import JournalStore

/// What sync has to send (format 13, SECURITY.md "Vault format"): the ids of sessions written
/// while the vault syncs, kept by triggers, read by a sync instead of every session, and
/// forgotten once agreed (issue 35).
struct SyncOutboxTests {
  static func outbox(_ f: StoreFixture) throws -> Set<SessionID> {
    try GRDBAccess.queue(f.path).read { db in
      Set(try String.fetchAll(db, sql: "SELECT id FROM sync_outbox").compactMap(SessionID.init))
    }
  }

  /// A vault of one session that syncs (set up, nothing agreed yet).
  static func syncing() throws -> (StoreFixture, Session) {
    let f = try StoreFixture()
    let a = try f.session(seed: 1)
    try f.store.upsert(a)
    try f.store.beginSync(
      SyncSettings(server: "postgres://h/db", device: Array(repeating: 7, count: 16)))
    return (f, a)
  }

  static func agree(_ f: StoreFixture, _ ids: [SessionID]) throws {
    let settings = try #require(try f.vault.syncSettings())
    var commit = SyncCommit(settings: settings, startedAt: settings.seq)
    for id in ids {
      let revision = try GRDBAccess.queue(f.path).read { db in
        try SessionStore.revision(of: id, db)
      }
      commit.agreed.append(
        .init(
          id: id, session: nil,
          base: SyncBaseRecord(stamps: [:], fingerprints: [:], conflicts: []), clean: true,
          readAt: revision))
    }
    #expect(try f.store.commitSync(commit))
  }

  /// Nothing is kept while the vault does not sync; setting it up puts every session in;
  /// what a sync agreed leaves it; every later write puts its session back; leaving empties it.
  @Test func theOutboxFollowsWritesAndAgreements() throws {
    let f = try StoreFixture()
    let a = try f.session(seed: 1), b = try f.session(seed: 2)
    try f.store.upsert(a)
    try f.store.upsert(b)
    #expect(try Self.outbox(f).isEmpty)
    try f.store.beginSync(
      SyncSettings(server: "postgres://h/db", device: Array(repeating: 7, count: 16)))
    #expect(try Self.outbox(f) == [a.id, b.id])
    #expect(Set(try f.store.syncOutbox().changed) == [a.id, b.id])

    try Self.agree(f, [a.id])
    #expect(try Self.outbox(f) == [b.id])
    #expect(try f.store.syncOutbox().changed == [b.id])

    var edited = a
    try edited.apply(.dose("ANOTHER-DOSE"), now: TestClock.reference + 60)
    try f.store.upsert(edited)
    // Written again while still in the outbox (an upsert over its row: once, not refused)
    var again = b
    try again.apply(.dose("B-AGAIN"), now: TestClock.reference + 70)
    try f.store.upsert(again)
    try again.apply(.dose("B-A-THIRD-TIME"), now: TestClock.reference + 80)
    try f.store.upsert(again)
    let c = try f.session(seed: 3)
    try f.store.upsert(c)
    #expect(try Self.outbox(f) == [a.id, b.id, c.id])
    #expect(Set(try f.store.syncOutbox().changed) == [a.id, b.id, c.id])

    try Self.agree(f, [a.id, b.id, c.id])
    #expect(try Self.outbox(f).isEmpty)
    #expect(try f.store.syncOutbox().changed.isEmpty)

    try edited.apply(.dose("A-THIRD-DOSE"), now: TestClock.reference + 90)
    try f.store.upsert(edited)
    #expect(try Self.outbox(f) == [a.id])
    try f.store.leaveSync()
    #expect(try Self.outbox(f).isEmpty)
  }

  /// A sync that sends nothing still forgets what was agreed meanwhile (or is no longer here),
  /// so the outbox does not grow with writes that need no sending.
  @Test func noteSyncForgetsWhatIsAgreed() throws {
    let (f, _) = try Self.syncing()
    try GRDBAccess.queue(f.path).write { db in
      try db.execute(
        sql:
          "INSERT INTO sync_row (id, revision, generation, base) SELECT id, revision, 1, x'00' FROM session"
      )
      try db.execute(
        sql: "INSERT INTO sync_outbox (id) VALUES (?)",
        arguments: [String(repeating: "ab", count: 16)])
    }
    #expect(try Self.outbox(f).count == 2)
    try f.vault.noteSync(at: TestClock.reference)
    #expect(try Self.outbox(f).isEmpty)
  }

  /// A session planted to look changed (its revision raised behind the ledger's back) is
  /// refused by a sync's point checks before anything is sent.
  @Test func aPlantedChangeIsRefused() throws {
    let (f, a) = try Self.syncing()
    try Self.agree(f, [a.id])
    try GRDBAccess.queue(f.path).write { db in
      try db.execute(sql: "UPDATE session SET revision = revision + 1")
    }
    let point = try Vault.open(at: f.path).sessions(keys: f.keys, random: f.random, check: .point)
    #expect(throws: StoreError.tampered(.rows)) { try point.syncOutbox() }
  }

  /// A sync reads the outbox and the tombstones, and looks each up: never a pass over every
  /// session or agreed row (which made a sync at 100,000 sessions cost 100 M instructions
  /// more when SQLite, without statistics, chose that order).
  @Test func theQueriesStartFromTheOutbox() throws {
    let f = try StoreFixture()
    let plans = try GRDBAccess.queue(f.path).read { db in
      try [
        Vault.dirtySQL, Vault.removedSQL, Vault.pruneOutboxSQL, Vault.pruneOneSQL,
        Vault.dirtySQL + " ORDER BY o.id LIMIT 1001",
      ].map { sql in
        let statement = try db.makeStatement(sql: "EXPLAIN QUERY PLAN " + sql)
        let arguments: StatementArguments = sql.contains("?1") ? ["00"] : []
        return try Row.fetchAll(statement, arguments: arguments).map { $0["detail"] as String }
      }
    }
    #expect(plans[0].first == "SCAN o", "\(plans[0])")
    #expect(plans[4].first == "SCAN o", "\(plans[4])")
    #expect(!plans[4].contains { $0.contains("TEMP B-TREE") }, "in the outbox's order: no sort")
    #expect(plans[1].first == "SCAN t", "\(plans[1])")
    for plan in plans {
      // "SCAN s USING …": a pass over every session (s) or agreed row (r).
      let scanned = plan.compactMap { line -> String? in
        let words = line.split(separator: " ")
        return words.count > 1 && words[0] == "SCAN" ? String(words[1]) : nil
      }
      #expect(Set(scanned).isDisjoint(with: ["s", "r", "session", "sync_row"]), "\(plan)")
    }
  }

  /// The outbox or one of its triggers dropped (so that writes would go unsent), or the
  /// format lowered to 12: the file's structure is damaged.
  @Test(arguments: [
    "DROP TABLE sync_outbox", "DROP TRIGGER sync_outbox_new", "DROP TRIGGER sync_outbox_changed",
    "DROP TRIGGER sync_outbox_reagreed", "DROP TRIGGER sync_outbox_forgotten",
    "UPDATE vault SET format_version = 12",
  ])
  func droppedOutboxIsDamage(sql: String) throws {
    let f = try StoreFixture()
    try GRDBAccess.queue(f.path).write { try $0.execute(sql: sql) }
    #expect(throws: StoreError.damagedStructure(path: f.path)) { try Vault.open(at: f.path) }
  }

  /// An agreed row with a value planted in it (a revision that is not a number, a
  /// generation that is not whole, one moved on) is found by the whole check, as it was
  /// before the agreed rows were read with SQLite's own calls.
  @Test(arguments: [
    "UPDATE sync_row SET revision = 'x'", "UPDATE sync_row SET generation = 1.5",
    "UPDATE sync_row SET generation = generation + 1",
  ])
  func plantedAgreedRowIsFound(sql: String) throws {
    let (f, a) = try Self.syncing()
    try Self.agree(f, [a.id])
    _ = try Vault.open(at: f.path).sessions(keys: f.keys, random: f.random)
    try GRDBAccess.queue(f.path).write { try $0.execute(sql: sql) }
    #expect(throws: StoreError.tampered(.rows)) {
      try Vault.open(at: f.path).sessions(keys: f.keys, random: f.random)
    }
    #expect(throws: StoreError.tampered(.rows)) {
      try Vault.open(at: f.path).sessions(keys: f.keys, random: f.random, check: .listing)
        .summaries()
    }
  }

  /// The table's own index of agreed ids pointed at one with an id planted in it: the ids a
  /// sync takes for agreed (and removes when the server no longer holds them after a key
  /// change) are read from the index the ledger checks, without the planted one.
  @Test func agreedIdsComeFromTheCheckedIndex() throws {
    let (f, a) = try Self.syncing()
    let b = try f.session(seed: 2)
    try f.store.upsert(b)
    try Self.agree(f, [a.id, b.id])
    let planted = try f.session(seed: 3).id.hex
    let queue = try GRDBAccess.queue(f.path)
    try queue.writeWithoutTransaction { db in
      try db.execute(
        sql: """
          CREATE TABLE decoy (id TEXT);
          INSERT INTO decoy (rowid, id) SELECT rowid, id FROM sync_row;
          INSERT INTO decoy (id) VALUES ('\(planted)');
          CREATE INDEX decoy_id ON decoy (id);
          PRAGMA writable_schema = ON;
          UPDATE sqlite_schema SET rootpage =
            (SELECT rootpage FROM sqlite_schema WHERE name = 'decoy_id')
            WHERE name = 'sqlite_autoindex_sync_row_1';
          PRAGMA writable_schema = OFF;
          """)
    }
    try queue.close()
    // What SQLite reads for the ids unless told which index.
    let reopened = try GRDBAccess.queue(f.path)
    #expect(
      try reopened.read { try String.fetchAll($0, sql: "SELECT id FROM sync_row") }
        .contains(planted))
    try reopened.close()
    let store = try Vault.open(at: f.path).sessions(keys: f.keys, random: f.random)
    #expect(Set(try store.syncAgreed()) == [a.id, b.id])
  }

  /// The migration from format 12 puts in exactly what the earlier formats would have sent:
  /// sessions never agreed, or agreed at another revision; nothing for a vault that does not
  /// sync.
  @Test(arguments: [true, false]) func migrationFillsTheOutbox(syncing: Bool) throws {
    let queue = try DatabaseQueue()
    try Vault.migrator.migrate(queue, upTo: "v12: the ledger's tree")
    let ids = (0..<6).map { String(repeating: String(format: "%02x", $0 * 40), count: 16) }
    try queue.write { db in
      for (index, id) in ids.enumerated() {
        try db.execute(
          sql: """
            INSERT INTO session (id, status, summary, body, revision)
            VALUES (?, ?, zeroblob(40), zeroblob(40), 3)
            """, arguments: [id, index % 2 == 0 ? "complete" : "needs_reflection"])
      }
      if syncing {
        try db.execute(
          sql: """
            INSERT INTO sync (singleton, server, device, seq, clock_time, clock_counter,
              background) VALUES (1, 'postgres://h/db', zeroblob(16), 0, 0, 0, 0)
            """)
      }
      // Agreed as it is: 0 and 1; at another revision: 2; to send (-1): 3; never: 4 and 5.
      for (index, revision) in [(0, 3), (1, 3), (2, 2), (3, -1)] {
        try db.execute(
          sql: "INSERT INTO sync_row (id, revision, generation, base) VALUES (?, ?, 1, x'00')",
          arguments: [ids[index], revision])
      }
    }
    try Vault.migrator.migrate(queue)
    let kept = try queue.read { db in
      try Set(String.fetchAll(db, sql: "SELECT id FROM sync_outbox"))
    }
    #expect(kept == (syncing ? Set(ids[2...]) : []))
  }
}
