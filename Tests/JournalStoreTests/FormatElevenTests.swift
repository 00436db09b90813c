import Foundation
import GRDB
import JournalCore
import JournalCrypto
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
    #expect(construction == 2)
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
}
