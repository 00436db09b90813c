import Foundation
import JournalCore
import JournalStore
import JournalTestSupport
import Testing

struct TrashTests {
  let t0 = TestClock.reference

  /// The undo window is half-open: open at 9.999 s, closed at 10 s and after.
  @Test(arguments: [(9.999, true), (10.0, false), (10.001, false)] as [(Double, Bool)])
  func windowEdges(after seconds: Double, restores: Bool) throws {
    // Given a session deleted at t0 with a 10 s window
    let f = try StoreFixture()
    let session = try f.session(seed: 1)
    try f.store.upsert(session)
    try f.store.trash([session.id], now: t0, purgeAfter: t0 + 10)
    // When undo is asked for
    let restored = try f.vault.undoLatest(now: t0 + seconds)
    // Then
    #expect((restored != nil) == restores)
    #expect(try f.store.count() == (restores ? 1 : 0))
    if restores { #expect(try f.store.session(session.id) == session) }
  }

  /// A purge takes what has closed and nothing still inside its window.
  @Test func purgeRespectsWindows() throws {
    let f = try StoreFixture()
    let a = try f.session(seed: 1), b = try f.session(seed: 2)
    try f.store.upsert(a)
    try f.store.upsert(b)
    try f.store.trash([a.id], now: t0, purgeAfter: t0 + 10)
    try f.store.trash([b.id], now: t0 + 5, purgeAfter: t0 + 15)
    #expect(try f.vault.purgeExpired(now: t0 + 9.999) == 0)
    #expect(try f.vault.purgeExpired(now: t0 + 10) == 1)
    #expect(try f.vault.trashedIDs() == [b.id])
  }

  /// Two deletions in a row: undo restores the most recent first, then the earlier one.
  @Test func twoDeletionsInARow() throws {
    let f = try StoreFixture()
    let a = try f.session(seed: 1), b = try f.session(seed: 2)
    try f.store.upsert(a)
    try f.store.upsert(b)
    try f.store.trash([a.id], now: t0, purgeAfter: t0 + 10)
    try f.store.trash([b.id], now: t0 + 1, purgeAfter: t0 + 11)
    #expect(try f.vault.undoLatest(now: t0 + 2)?.ids == [b.id])
    #expect(try f.vault.undoLatest(now: t0 + 3)?.ids == [a.id])
    #expect(try f.vault.undoLatest(now: t0 + 4) == nil)
    #expect(try f.store.count() == 2)
  }

  /// The countdown undoes its own deletion, not a later one made elsewhere.
  @Test func undoOwnBatch() throws {
    let f = try StoreFixture()
    let a = try f.session(seed: 1), b = try f.session(seed: 2)
    try f.store.upsert(a)
    try f.store.upsert(b)
    let first = try f.store.trash([a.id], now: t0, purgeAfter: t0 + 10)
    try f.store.trash([b.id], now: t0 + 1, purgeAfter: t0 + 11)
    #expect(try f.vault.undo(first, now: t0 + 2)?.ids == [a.id])
    #expect(try f.vault.trashedIDs() == [b.id])
    #expect(try f.vault.undo(first, now: t0 + 3) == nil)
  }

  /// A deletion undone elsewhere is no longer pending, and a later deletion that takes its
  /// batch number again is not it: the first countdown's "u" cannot restore the second.
  @Test func batchNumberTakenAgain() throws {
    let f = try StoreFixture()
    let a = try f.session(seed: 1), b = try f.session(seed: 2)
    try f.store.upsert(a)
    try f.store.upsert(b)
    let first = try f.store.trash([a.id], now: t0, purgeAfter: t0 + 10)
    #expect(try f.vault.isTrashed(first))
    #expect(try f.vault.undoLatest(now: t0 + 1)?.ids == [a.id])
    #expect(try !f.vault.isTrashed(first))
    let second = try f.store.trash([b.id], now: t0 + 2, purgeAfter: t0 + 12)
    #expect(second.batch == first.batch)
    #expect(try !f.vault.isTrashed(first))
    #expect(try f.vault.undo(first, now: t0 + 3) == nil)
    #expect(try f.vault.trashedIDs() == [b.id])
  }

  /// A deletion of several sessions is one batch: undone together.
  @Test func batch() throws {
    let f = try StoreFixture()
    let a = try f.session(seed: 1), b = try f.session(seed: 2)
    try f.store.upsert(a)
    try f.store.upsert(b)
    try f.store.trash([a.id, b.id], now: t0, purgeAfter: t0 + 10)
    #expect(try f.store.count() == 0)
    #expect(try f.vault.undoLatest(now: t0 + 1)?.ids == [a.id, b.id].sorted())
    #expect(try f.store.count() == 2)
  }

  /// Undo after the purge finds nothing, and the session is gone for good.
  @Test func undoAfterPurge() throws {
    let f = try StoreFixture()
    let session = try f.session(seed: 1)
    try f.store.upsert(session)
    try f.store.trash([session.id], now: t0, purgeAfter: t0 + 10)
    try f.vault.purgeExpired(now: t0 + 10)
    #expect(try f.vault.undoLatest(now: t0 + 10) == nil)
    #expect(throws: StoreError.noMatch(prefix: session.id.hex)) {
      try f.store.resolve(session.id.hex)
    }
  }

  /// After the purge, not even the ciphertext is in the vault file or its WAL; while still in
  /// its window, it is (so this scan can fail).
  @Test func purgeLeavesNoCiphertext() throws {
    // Given a session with a long reflection (overflow pages) and its sealed bytes
    let f = try StoreFixture()
    let long = String(repeating: "a long reflection, page after page. ", count: 400)
    let session = try f.session(seed: 7, reflection: long)
    try f.store.upsert(session)
    try f.store.upsert(try f.session(seed: 8))
    let needles = try sealedSlices(f, session.id)
    // When it is deleted, it is still findable during its window
    try f.store.trash([session.id], now: t0, purgeAfter: t0 + 10)
    #expect(fileBytesContain(f, needles))
    // Then after the purge, it is not
    try f.vault.purgeExpired(now: t0 + 10)
    #expect(!fileBytesContain(f, needles))
  }

  private func sealedSlices(_ f: StoreFixture, _ id: SessionID) throws -> [Data] {
    let queue = try GRDBAccess.queue(f.path)
    return try queue.read { db in
      let row = try GRDBAccess.row(db, id: id.hex)
      // 32 bytes from inside each sealed column: the nonce and ciphertext are random.
      return [row.0.subdata(in: 8..<40), row.1.subdata(in: 8..<40), row.1.suffix(32)]
    }
  }

  private func fileBytesContain(_ f: StoreFixture, _ needles: [Data]) -> Bool {
    f.directory.allFiles().contains { file in needles.contains { file.bytes.range(of: $0) != nil } }
  }
}
