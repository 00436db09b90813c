import Foundation
import GRDB
import JournalCore
import JournalCrypto
import JournalTestSupport
import Testing

@testable import JournalStore

/// The ledger notices a vault file changed outside journal (SECURITY.md, "The ledger"): each
/// test tampers with a real vault file through SQLite, as someone holding the file could, and
/// opens it again with the key.
struct TamperTests {
  let t0 = TestClock.reference

  /// Opens the vault at the fixture's path again with its key, as the next command would.
  func reopen(_ f: StoreFixture) throws -> SessionStore {
    try Vault.open(at: f.path).sessions(keys: f.keys, random: f.random)
  }

  func tamper(_ f: StoreFixture, _ sql: String, _ arguments: StatementArguments = []) throws {
    try GRDBAccess.queue(f.path).write { try $0.execute(sql: sql, arguments: arguments) }
  }

  /// An untouched vault opens, after saves, edits, a deletion, an undo and a purge.
  @Test func untouchedVaultOpens() throws {
    let f = try StoreFixture()
    let a = try f.session(seed: 1), b = try f.session(seed: 2), c = try f.session(seed: 3)
    try f.store.upsert(a)
    try f.store.upsert(b)
    try f.store.upsert(c)
    try f.store.update(a.id) { try $0.apply(.music("OTHER"), now: t0 + 5) }
    try f.store.trash([b.id], now: t0, purgeAfter: t0 + 10)
    _ = try f.vault.undoLatest(now: t0 + 1)
    try f.store.trash([c.id], now: t0 + 2, purgeAfter: t0 + 12)
    #expect(try f.vault.purgeExpired(now: t0 + 12) == 1)
    // Undo and purge ran without the key: the ledger accounts for them ...
    let store = try reopen(f)
    #expect(try store.count() == 2)
    // ... and the next keyed write settles them.
    try store.upsert(try f.session(seed: 4))
    #expect(try reopen(f).count() == 3)
    #expect(try f.vault.tombstones() == [c.id])
  }

  /// 1. A session row deleted from the file.
  @Test func deletedRow() throws {
    let f = try StoreFixture()
    let a = try f.session(seed: 1), b = try f.session(seed: 2)
    try f.store.upsert(a)
    try f.store.upsert(b)
    try tamper(f, "DELETE FROM session WHERE id = ?", [b.id.hex])
    #expect(throws: StoreError.tampered(.rows)) { try reopen(f) }
  }

  /// 2. One column put back from an earlier version of the same session: the read names it;
  /// with its revision put back too, the ledger no longer adds up.
  @Test(arguments: ["summary", "body"]) func olderColumnPutBack(column: String) throws {
    let f = try StoreFixture()
    let a = try f.session(seed: 1, reflection: nil)
    try f.store.upsert(a)
    let (old, revision) = try GRDBAccess.queue(f.path).read { db in
      let row = try #require(
        try Row.fetchOne(
          db, sql: "SELECT \(column), revision FROM session WHERE id = ?", arguments: [a.id.hex]))
      return (row[0] as Data, row[1] as Int64)
    }
    try f.store.update(a.id) { try $0.apply(.reflection("REWRITTEN"), now: t0 + 5) }
    try tamper(f, "UPDATE session SET \(column) = ? WHERE id = ?", [old, a.id.hex])
    #expect(throws: StoreError.tampered(.olderVersion(id: a.id.short))) {
      try reopen(f).session(a.id)
    }
    try tamper(f, "UPDATE session SET revision = ? WHERE id = ?", [revision, a.id.hex])
    #expect(throws: StoreError.tampered(.rows)) { try reopen(f) }
  }

  /// 3. A purged session's row put back from an old backup of the same vault.
  @Test func purgedRowPutBack() throws {
    let f = try StoreFixture()
    let a = try f.session(seed: 1), b = try f.session(seed: 2)
    try f.store.upsert(a)
    try f.store.upsert(b)
    let backup = f.directory.file("backup.db")
    try f.vault.backup(to: backup)
    try f.store.trash([a.id], now: t0, purgeAfter: t0 + 10)
    try f.vault.purgeExpired(now: t0 + 10)
    try f.store.upsert(try f.session(seed: 3))  // settles the purge
    let row = try GRDBAccess.queue(backup).read { db in
      try #require(
        try Row.fetchOne(
          db, sql: "SELECT id, status, summary, body, revision FROM session WHERE id = ?",
          arguments: [a.id.hex]))
    }
    try tamper(
      f, "INSERT INTO session (id, status, summary, body, revision) VALUES (?, ?, ?, ?, ?)",
      StatementArguments(row.databaseValues))
    // Beside its own tombstone, so it is named.
    #expect(throws: StoreError.tampered(.inconsistent(ids: [a.id.short]))) { try reopen(f) }
    try tamper(f, "DELETE FROM tombstone")
    #expect(throws: StoreError.tampered(.rows)) { try reopen(f) }
  }

  /// 3. A row from another vault added.
  @Test func rowFromAnotherVault() throws {
    let f = try StoreFixture(), other = try StoreFixture()
    try f.store.upsert(try f.session(seed: 1))
    let foreign = try other.session(seed: 9)
    try other.store.upsert(foreign)
    let row = try GRDBAccess.queue(other.path).read { db in
      try #require(
        try Row.fetchOne(
          db, sql: "SELECT id, status, summary, body, revision FROM session WHERE id = ?",
          arguments: [foreign.id.hex]))
    }
    try tamper(
      f, "INSERT INTO session (id, status, summary, body, revision) VALUES (?, ?, ?, ?, ?)",
      StatementArguments(row.databaseValues))
    #expect(throws: StoreError.tampered(.rows)) { try reopen(f) }
  }

  /// 4. A trash row dropped during its undo window.
  @Test func trashRowDropped() throws {
    let f = try StoreFixture()
    let a = try f.session(seed: 1)
    try f.store.upsert(a)
    try f.store.upsert(try f.session(seed: 2))
    try f.store.trash([a.id], now: t0, purgeAfter: t0 + 10)
    try tamper(f, "DELETE FROM trash")
    #expect(throws: StoreError.tampered(.rows)) { try reopen(f) }
  }

  /// 4. A trash row marked as undone while its session stays away, or purged without its
  /// tombstone.
  @Test func trashOutcomeForged() throws {
    let f = try StoreFixture()
    let a = try f.session(seed: 1)
    try f.store.upsert(a)
    try f.store.trash([a.id], now: t0, purgeAfter: t0 + 10)
    try tamper(f, "UPDATE trash SET outcome = 'undone', summary = X'', body = X''")
    #expect(throws: StoreError.tampered(.inconsistent(ids: [a.id.short]))) { try reopen(f) }
    try tamper(f, "UPDATE trash SET outcome = 'purged'")
    #expect(throws: StoreError.tampered(.inconsistent(ids: [a.id.short]))) { try reopen(f) }
  }

  /// 4. A live session made to look purged: moved to the tombstones.
  @Test func sessionBuried() throws {
    let f = try StoreFixture()
    let a = try f.session(seed: 1)
    try f.store.upsert(a)
    try tamper(f, "DELETE FROM session")
    try tamper(f, "INSERT INTO tombstone (id) VALUES (?)", [a.id.hex])
    #expect(throws: StoreError.tampered(.rows)) { try reopen(f) }
  }

  /// 4. A tombstone dropped.
  @Test func tombstoneDropped() throws {
    let f = try StoreFixture()
    let a = try f.session(seed: 1)
    try f.store.upsert(a)
    try f.store.trash([a.id], now: t0, purgeAfter: t0 + 10)
    try f.vault.purgeExpired(now: t0 + 10)
    try f.store.upsert(try f.session(seed: 2))
    try tamper(f, "DELETE FROM tombstone")
    #expect(throws: StoreError.tampered(.rows)) { try reopen(f) }
  }

  /// 4. The clear status changed (so that `list --needs-reflection` and the reminders would
  /// be misled), even without reading the session.
  @Test func clearStatusChanged() throws {
    let f = try StoreFixture()
    try f.store.upsert(try f.session(seed: 1))
    try tamper(f, "UPDATE session SET status = 'needs_reflection'")
    #expect(throws: StoreError.tampered(.rows)) { try reopen(f) }
  }

  /// 4. A reminder row that disagrees with the sealed data: for a complete session, or for
  /// none at all.
  @Test func reminderDisagrees() throws {
    let f = try StoreFixture()
    let a = try f.session(seed: 1)
    try f.store.upsert(a)
    try tamper(
      f, "INSERT INTO reminder (id, due, repeat_seconds) VALUES (?, 0, 60)", [a.id.hex])
    #expect(throws: StoreError.tampered(.inconsistent(ids: [a.id.short]))) { try reopen(f) }
    let nobody = SessionID(randomBytes: [UInt8](repeating: 7, count: 16))
    try tamper(f, "UPDATE reminder SET id = ?", [nobody.hex])
    #expect(throws: StoreError.tampered(.inconsistent(ids: [nobody.short]))) { try reopen(f) }
  }

  /// The ledger row removed from a vault written under it.
  @Test func ledgerRemoved() throws {
    let f = try StoreFixture()
    try f.store.upsert(try f.session(seed: 1))
    try tamper(f, "DELETE FROM ledger")
    #expect(throws: StoreError.tampered(.ledger)) { try reopen(f) }
  }
}
