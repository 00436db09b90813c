import Foundation
import GRDB
import JournalCore
import JournalCrypto
import JournalTestSupport
import Testing

@testable import JournalStore

/// A command about one session checks its own part of the ledger's tree (SECURITY.md, "The
/// ledger"): what it reads and writes is checked as strictly as before, what it does not
/// read is left to the commands that read every row, and nothing it writes ever stamps a
/// change made behind the ledger's back.
struct PointCheckTests {
  let t0 = TestClock.reference

  /// A session whose id starts with `first`, `second`, then `rest`: two sessions with the
  /// same first two bytes share a leaf, with the same first byte a node.
  func session(_ f: StoreFixture, _ first: UInt8, _ second: UInt8, _ rest: UInt8) throws
    -> Session
  {
    try f.session(
      seed: rest, id: SessionID(randomBytes: [first, second] + Array(repeating: rest, count: 14)))
  }

  func pointStore(_ f: StoreFixture) throws -> SessionStore {
    try Vault.open(at: f.path).sessions(keys: f.keys, random: f.random, check: .point)
  }

  func wholeStore(_ f: StoreFixture) throws -> SessionStore {
    try Vault.open(at: f.path).sessions(keys: f.keys, random: f.random)
  }

  func tamper(_ f: StoreFixture, _ sql: String, _ arguments: StatementArguments = []) throws {
    try GRDBAccess.queue(f.path).write { try $0.execute(sql: sql, arguments: arguments) }
  }

  /// A leaf's ids: its four hex digits, then every id after them.
  @Test func idRangeOfALeaf() {
    #expect(
      LedgerTree.idRange(ofLeaf: 0) == (
        "0000" + String(repeating: "0", count: 28), "0000" + String(repeating: "f", count: 28)
      ))
    #expect(LedgerTree.idRange(ofLeaf: 0x0abc).0 == "0abc" + String(repeating: "0", count: 28))
    #expect(LedgerTree.idRange(ofLeaf: 0xffff).1 == String(repeating: "f", count: 32))
    for leaf in [1, 0x10, 0x100, 0x1000, 0x7f3e] {
      #expect(LedgerTree.idRange(ofLeaf: leaf).0.prefix(4) == String(format: "%04x", leaf))
    }
  }

  /// A row deleted in another leaf: a point read of an untouched session still works, the
  /// whole check refuses the vault, and so does a point read of the deleted session itself
  /// (never "no such session").
  @Test func deletionIsFoundByWhatReadsIt() throws {
    let f = try StoreFixture()
    let a = try session(f, 1, 1, 1), b = try session(f, 2, 2, 2)
    try f.store.upsert(a)
    try f.store.upsert(b)
    try tamper(f, "DELETE FROM session WHERE id = ?", [b.id.hex])
    #expect(try pointStore(f).session(a.id) == a)
    #expect(throws: StoreError.tampered(.rows)) { try pointStore(f).session(b.id) }
    #expect(throws: StoreError.tampered(.rows)) { try pointStore(f).resolve(b.id.short) }
    #expect(throws: StoreError.tampered(.rows)) { try wholeStore(f) }
    // A point store asked for many rows checks the whole vault first.
    #expect(throws: StoreError.tampered(.rows)) { try pointStore(f).summaries() }
  }

  /// A point write counts the leaves it stamped as checked at its new stamp (it made them
  /// from its own rows): reading its session again reads no leaf. A leaf it did not touch,
  /// though checked before the write, is checked again when read, and found tampered.
  @Test func aWriteCountsOnlyTheLeavesItStampedAsChecked() throws {
    let f = try StoreFixture()
    let a = try session(f, 1, 1, 1), b = try session(f, 2, 2, 2)
    try f.store.upsert(a)
    try f.store.upsert(b)
    let store = try pointStore(f)
    #expect(try store.session(b.id) == b)
    #expect(store.checkedLeaves == [LedgerTree.leaf(of: b.id)])
    try store.update(a.id) { try $0.apply(.music("OTHER"), now: t0 + 5) }
    #expect(store.checkedLeaves == [LedgerTree.leaf(of: a.id)])
    #expect(try store.resolve(a.id.short) == a.id)
    #expect(store.checkedLeaves == [LedgerTree.leaf(of: a.id)])
    try tamper(f, "DELETE FROM session WHERE id = ?", [b.id.hex])
    #expect(throws: StoreError.tampered(.rows)) { try store.session(b.id) }
  }

  /// A point write elsewhere never stamps a change made behind the ledger's back: the
  /// deleted row is still found missing by the whole check after it.
  @Test func aWriteElsewhereDoesNotBlessTampering() throws {
    let f = try StoreFixture()
    let a = try session(f, 1, 1, 1), b = try session(f, 2, 2, 2), c = try session(f, 1, 1, 3)
    try f.store.upsert(a)
    try f.store.upsert(b)
    try f.store.upsert(c)
    try tamper(f, "DELETE FROM session WHERE id = ?", [b.id.hex])
    let store = try pointStore(f)
    try store.update(a.id) { try $0.apply(.music("OTHER"), now: t0 + 5) }
    try store.upsert(try session(f, 3, 3, 4))
    #expect(throws: StoreError.tampered(.rows)) { try wholeStore(f) }
  }

  /// A write into a leaf that was changed behind the ledger's back is refused, and changes
  /// nothing: a sibling deleted, a sibling's revision set back, a tombstone removed.
  @Test(arguments: [
    "DELETE FROM session WHERE id = ?", "UPDATE session SET revision = revision - 1 WHERE id = ?",
    "INSERT INTO tombstone (id) VALUES (?)",
  ])
  func aWriteIntoATamperedLeafIsRefused(sql: String) throws {
    let f = try StoreFixture()
    let a = try session(f, 1, 1, 1), sibling = try session(f, 1, 1, 2)
    try f.store.upsert(a)
    try f.store.upsert(sibling)
    try f.store.update(sibling.id) { try $0.apply(.music("SECOND"), now: t0 + 3) }
    let planted = SessionID(randomBytes: [1, 1] + Array(repeating: 9, count: 14))
    try tamper(f, sql, [sql.hasPrefix("INSERT") ? planted.hex : sibling.id.hex])
    let store = try pointStore(f)
    #expect(throws: StoreError.tampered(.rows)) {
      try store.update(a.id) { try $0.apply(.music("OTHER"), now: t0 + 5) }
    }
    #expect(throws: StoreError.tampered(.rows)) {
      try store.upsert(try session(f, 1, 1, 7))
    }
    #expect(
      try GRDBAccess.queue(f.path).read { db in
        try Int.fetchOne(
          db, sql: "SELECT count(*) FROM session WHERE id = ?",
          arguments: [
            SessionID(randomBytes: [1, 1] + Array(repeating: 7, count: 14)).hex
          ])
      } == 0)
  }

  /// The tree's own digests edited: a leaf's is found by a point read of that leaf and by the
  /// whole check; a node's by every opening (the root no longer makes the tag).
  @Test func editedDigestsAreFound() throws {
    let f = try StoreFixture()
    let a = try session(f, 1, 1, 1), b = try session(f, 2, 2, 2)
    try f.store.upsert(a)
    try f.store.upsert(b)
    let leaf = LedgerTree.leaf(of: a.id)
    try tamper(f, "UPDATE ledger_leaf SET digest = randomblob(32) WHERE leaf = ?", [leaf])
    #expect(throws: StoreError.self) { try pointStore(f).session(a.id) }
    #expect(try pointStore(f).session(b.id) == b)
    #expect(throws: StoreError.tampered(.ledger)) { try wholeStore(f) }
    try tamper(f, "UPDATE ledger_node SET digest = randomblob(32) WHERE node = 2")
    #expect(throws: StoreError.tampered(.rows)) { try pointStore(f) }
  }

  /// Undo and purge run without the key; point writes after them settle them, and the tree
  /// they leave is the one the whole check makes from the rows.
  @Test func undoAndPurgeThenPointWrites() throws {
    let f = try StoreFixture()
    let a = try session(f, 1, 1, 1), b = try session(f, 1, 1, 2), c = try session(f, 4, 4, 3)
    for s in [a, b, c] { try f.store.upsert(s) }
    try f.store.trash([b.id], now: t0, purgeAfter: t0 + 10)
    _ = try f.vault.undoLatest(now: t0 + 1)
    try f.store.trash([c.id], now: t0 + 2, purgeAfter: t0 + 12)
    #expect(try f.vault.purgeExpired(now: t0 + 12) == 1)
    let store = try pointStore(f)
    #expect(try store.session(b.id) == b)
    try store.upsert(try session(f, 5, 5, 5))
    try store.update(a.id) { try $0.apply(.music("OTHER"), now: t0 + 5) }
    let checked = try wholeStore(f)
    #expect(try checked.count() == 3)
    #expect(try f.vault.tombstones() == [c.id])
  }

  /// Many point writes, deletions among them, leave exactly the tree a whole write makes.
  @Test func pointWritesMakeTheWholeTree() throws {
    let f = try StoreFixture()
    let store = try pointStore(f)
    var ids: [SessionID] = []
    for seed in UInt8(1)...24 {
      let s = try session(f, seed % 3, seed % 2, seed)
      try store.upsert(s)
      ids.append(s.id)
    }
    try store.trash([ids[3], ids[7]], now: t0, purgeAfter: t0 + 10)
    try store.update(ids[5]) { try $0.apply(.music("OTHER"), now: t0 + 5) }
    let stored = try GRDBAccess.queue(f.path).read { db in try LedgerTree.stored(db) }
    // The whole check compares the stored digests with those made from the rows.
    let whole = try wholeStore(f)
    #expect(try whole.count() == 22)
    let ledger = Ledger(vaultID: f.keys.vaultID, key: f.keys.ledgerKey)
    let again = try GRDBAccess.queue(f.path).write { db in
      try ledger.commit(db, after: try Ledger.stamp(db))
      return try LedgerTree.stored(db)
    }
    #expect(again.leaves == stored.leaves && again.nodes == stored.nodes)
  }

  /// The tree made from entries held in memory (how `list` and this computer's record check
  /// it) is the tree stored, entries of many leaves and of one leaf alike.
  @Test func theTreeFromEntriesIsTheStoredTree() throws {
    let f = try StoreFixture()
    for seed in UInt8(1)...40 {
      try f.store.upsert(try session(f, seed % 4, seed % 3, seed))
    }
    let gone = try session(f, 9, 9, 90)
    try f.store.upsert(gone)
    try f.store.trash([gone.id], now: t0, purgeAfter: t0 + 1)
    #expect(try f.vault.purgeExpired(now: t0 + 2) == 1)
    try f.store.upsert(try session(f, 9, 9, 91))
    let rows = try f.vault.ledgerRows()
    let parts = try #require(rows.syncParts)
    let made = LedgerTree.make(
      sessions: rows.sessions, tombstones: rows.tombstones, syncRows: parts.rows)
    let stored = try GRDBAccess.queue(f.path).read { db in try LedgerTree.stored(db) }
    #expect(made == stored.leaves)
    #expect(made.nodes() == stored.nodes)
    #expect(rows.tombstones.count == LedgerRows.tombstoneBytes)
  }

  /// What a keyed write's rows held before it, as SQLite's pre-update hook keeps it: the row
  /// an update changed, one deleted, one a `REPLACE` removed and one an id was moved from, as
  /// they were; a row that was not there, as none; a second change of a row leaves the first
  /// kept. Other tables and the temporary database are not kept.
  @Test func theHookKeepsEachRowAsItWas() throws {
    let f = try StoreFixture()
    let a = try session(f, 1, 1, 1), b = try session(f, 2, 2, 2), c = try session(f, 3, 3, 3)
    for s in [a, b, c] { try f.store.upsert(s) }
    let moved = SessionID(randomBytes: [4, 4] + Array(repeating: 4, count: 14))
    let fresh = SessionID(randomBytes: [5, 5] + Array(repeating: 5, count: 14))
    let synced = SessionID(randomBytes: [6, 6] + Array(repeating: 6, count: 14))
    try tamper(
      f, "INSERT INTO sync_row (id, revision, generation, base) VALUES (?, 7, 3, x'00')",
      [synced.hex])
    try tamper(f, "INSERT INTO tombstone (id) VALUES (?)", [fresh.hex])
    let before = try GRDBAccess.queue(f.path).write { db -> LedgerTree.Before in
      let tracking = try LedgerTree.Before.start(db)
      defer { tracking.stop() }
      try db.execute(sql: "UPDATE session SET revision = 9 WHERE id = ?", arguments: [a.id.hex])
      try db.execute(sql: "UPDATE session SET revision = 10 WHERE id = ?", arguments: [a.id.hex])
      try db.execute(sql: "DELETE FROM session WHERE id = ?", arguments: [b.id.hex])
      try db.execute(
        sql: "UPDATE session SET id = ? WHERE id = ?", arguments: [moved.hex, c.id.hex])
      try db.execute(sql: "DELETE FROM tombstone WHERE id = ?", arguments: [fresh.hex])
      try db.execute(sql: "INSERT INTO tombstone (id) VALUES (?)", arguments: [b.id.hex])
      try db.execute(
        sql:
          "INSERT OR REPLACE INTO sync_row (id, revision, generation, base) VALUES (?, 8, 4, x'01')",
        arguments: [synced.hex])
      try db.execute(sql: "CREATE TEMP TABLE session (id TEXT)")
      try db.execute(sql: "INSERT INTO temp.session VALUES (?)", arguments: [fresh.hex])
      try db.execute(
        sql: "INSERT INTO reminder (id, due, repeat_seconds) VALUES (?, 1, 60)",
        arguments: [a.id.hex])
      return try tracking.finish()
    }
    // Each row kept: its entry before, in hex, or "none".
    var kept: [String: String] = [:]
    for rows in before.rows.values {
      for row in rows { kept["\(row.kind)-\(row.id.hex)"] = row.entry.map(Hex.lowercase) ?? "none" }
    }
    func entry(_ s: Session) -> String {
      Hex.lowercase(LedgerTree.sessionEntry(id: s.id, status: s.status.stored, revision: 1))
    }
    #expect(
      kept == [
        "session-\(a.id.hex)": entry(a), "session-\(b.id.hex)": entry(b),
        "session-\(c.id.hex)": entry(c), "session-\(moved.hex)": "none",
        "tombstone-\(fresh.hex)": Hex.lowercase(LedgerTree.tombstoneEntry(id: fresh)),
        "tombstone-\(b.id.hex)": "none",
        "syncRow-\(synced.hex)": Hex.lowercase(
          LedgerTree.syncEntry(id: synced, revision: 7, generation: 3)),
      ])
  }

  /// The hook reads a table as SQLite names it, whatever case its schema spells (an edit
  /// that leaves every row and check as it was); a table with a generated column, whose
  /// places the hook would count otherwise, is refused rather than read at the wrong place.
  @Test func theHookReadsTheTablesAsSQLiteNamesThem() throws {
    let f = try StoreFixture()
    let a = try session(f, 1, 1, 1)
    try f.store.upsert(a)
    try GRDBAccess.queue(f.path).writeWithoutTransaction { db in
      try db.execute(sql: "PRAGMA writable_schema = ON")
      try db.execute(
        sql: """
          UPDATE sqlite_schema SET sql = replace(sql, 'CREATE TABLE session', 'CREATE TABLE "SESSION"')
          WHERE name = 'session'
          """)
    }
    let spelt = try GRDBAccess.queue(f.path).read { db in
      try String.fetchOne(
        db, sql: "SELECT name FROM pragma_table_list WHERE name = 'session' COLLATE NOCASE")
    }
    #expect(spelt == "SESSION")
    let before = try GRDBAccess.queue(f.path).write { db -> LedgerTree.Before in
      let tracking = try LedgerTree.Before.start(db)
      defer { tracking.stop() }
      try db.execute(sql: "UPDATE session SET revision = 9 WHERE id = ?", arguments: [a.id.hex])
      return try tracking.finish()
    }
    #expect(before.rows[LedgerTree.leaf(of: a.id)]?.first?.entry != nil)
    try tamper(f, "ALTER TABLE tombstone ADD COLUMN shadow TEXT GENERATED ALWAYS AS (id) VIRTUAL")
    #expect(throws: StoreError.tampered(.rows)) {
      try GRDBAccess.queue(f.path).write { db in _ = try LedgerTree.Before.start(db) }
    }
  }

  /// Only ids the tree counts are kept, and ids journal never stores are damage: a blob id
  /// beside the text id of the same digits (a blob is in no leaf) leaves the text row kept as
  /// it was, though the blob was changed first; an id in capitals refuses the write.
  @Test func theHookKeepsOnlyIdsTheTreeCounts() throws {
    let f = try StoreFixture()
    // Digits with letters, which capitals change.
    let a = try session(f, 0xab, 0xcd, 0xef)
    try f.store.upsert(a)
    try tamper(
      f,
      """
      INSERT INTO session (id, status, summary, body, revision)
      SELECT CAST(id AS BLOB), status, summary, body, 7 FROM session WHERE id = ?
      """, [a.id.hex])
    let before = try GRDBAccess.queue(f.path).write { db -> LedgerTree.Before in
      let tracking = try LedgerTree.Before.start(db)
      defer { tracking.stop() }
      try db.execute(
        sql: "UPDATE session SET revision = 8 WHERE id = CAST(? AS BLOB)", arguments: [a.id.hex])
      try db.execute(sql: "UPDATE session SET revision = 9 WHERE id = ?", arguments: [a.id.hex])
      return try tracking.finish()
    }
    let kept = before.rows[LedgerTree.leaf(of: a.id)] ?? []
    #expect(kept.count == 1)
    #expect(
      kept.first?.entry
        == LedgerTree.sessionEntry(id: a.id, status: a.status.stored, revision: 1))
    let capitals = a.id.hex.uppercased()
    try GRDBAccess.queue(f.path).writeWithoutTransaction { db in
      try db.execute(sql: "PRAGMA ignore_check_constraints = ON")
      try db.execute(
        sql: "UPDATE session SET id = ? WHERE id = CAST(? AS BLOB)",
        arguments: [capitals, a.id.hex])
    }
    #expect(throws: StoreError.tampered(.rows)) {
      try GRDBAccess.queue(f.path).write { db in
        let tracking = try LedgerTree.Before.start(db)
        defer { tracking.stop() }
        try db.execute(sql: "UPDATE session SET revision = 3 WHERE id = ?", arguments: [capitals])
        _ = try tracking.finish()
      }
    }
  }

  /// The hook is on from the moment the vault's connection is set up, so a `DELETE` with no
  /// `WHERE` prepared before a write's tracking still goes a row at a time, each kept (with
  /// no hook, SQLite would have emptied the table at once, unseen).
  @Test func aDeleteOfEveryRowIsSeenRowByRow() throws {
    let f = try StoreFixture()
    let gone = SessionID(randomBytes: [7, 7] + Array(repeating: 7, count: 14))
    try tamper(f, "INSERT INTO tombstone (id) VALUES (?)", [gone.hex])
    let vault = try Vault.open(at: f.path)
    try vault.write { db in _ = try db.cachedStatement(sql: "DELETE FROM tombstone") }
    let before = try vault.write { db -> LedgerTree.Before in
      let tracking = try LedgerTree.Before.start(db)
      defer { tracking.stop() }
      try db.cachedStatement(sql: "DELETE FROM tombstone").execute()
      return try tracking.finish()
    }
    #expect(
      before.rows[LedgerTree.leaf(of: gone)]?.first?.entry == LedgerTree.tombstoneEntry(id: gone))
  }

  /// A session table rebuilt without its unique index can hold an id twice: a leaf that
  /// reads it twice is damage, never counted as its last row (the whole check counts both).
  @Test func anIdTwiceInALeafIsDamage() throws {
    let f = try StoreFixture()
    let a = try session(f, 1, 1, 1)
    try f.store.upsert(a)
    try GRDBAccess.queue(f.path).writeWithoutTransaction { db in
      try db.execute(
        sql: """
          CREATE TABLE loose AS SELECT * FROM session;
          DROP TABLE session;
          ALTER TABLE loose RENAME TO session;
          CREATE INDEX session_ledger ON session (status, id, revision);
          INSERT INTO session (id, status, summary, body, revision)
            SELECT id, 'needs_reflection', summary, body, 1 FROM session WHERE id = '\(a.id.hex)';
          """)
    }
    let leaf = LedgerTree.leaf(of: a.id)
    #expect(throws: StoreError.tampered(.rows)) {
      try GRDBAccess.queue(f.path).read { db in
        try LedgerTree.entries(ofLeaf: leaf, db, skippingSessions: [], skippingTombstones: [])
      }
    }
  }

  /// A write that fails leaves no hook behind: the next write on the same connection keeps
  /// only its own rows (a tracking still running would refuse it), and the tree both leave
  /// is the one the whole check makes.
  @Test func aFailedWriteLeavesNoHook() throws {
    let f = try StoreFixture()
    let a = try session(f, 1, 1, 1), b = try session(f, 2, 2, 2)
    try f.store.upsert(a)
    try f.store.upsert(b)
    let store = try pointStore(f)
    struct Stop: Error {}
    #expect(throws: Stop.self) {
      try store.update(a.id) { _ in throw Stop() }
    }
    #expect(throws: Stop.self) {
      try store.write { db in
        try db.execute(sql: "UPDATE session SET revision = 5 WHERE id = ?", arguments: [b.id.hex])
        throw Stop()
      }
    }
    try store.update(b.id) { try $0.apply(.music("OTHER"), now: t0 + 5) }
    #expect(try wholeStore(f).count() == 2)
    #expect(try pointStore(f).session(b.id).music == "OTHER")
  }
}
