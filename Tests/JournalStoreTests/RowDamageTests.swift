import Foundation
import GRDB
import JournalCore
import JournalCrypto
import JournalStorage
import JournalTestSupport
import Testing

@testable import JournalStore

/// Damage the store finds in a row itself is named as that row's (`StoreError.damagedRecord`
/// with its short id), never as a failure of the cipher, and the other rows still open.
struct RowDamageTests {
  /// A sealed summary and its row's clear columns: revision and status.
  func sealedSummary(_ f: StoreFixture, _ id: SessionID) throws -> (Int64, String, [UInt8]) {
    let row = try #require(
      try GRDBAccess.queue(f.path).read { db in
        try Row.fetchOne(
          db, sql: "SELECT revision, status, summary FROM session WHERE id = ?",
          arguments: [id.hex])
      })
    let sealed: Data = row[2]
    return (row[0], row[1], Array(sealed))
  }

  /// A summary whose clear columns disagree with it (a status naming no status, a revision
  /// out of range, another status than the sealed one) is its row's damage, by id; with the
  /// columns as written it opens.
  @Test func summaryColumnsDisagree() throws {
    // Given a saved session and its sealed summary
    let f = try StoreFixture()
    let a = try f.session(seed: 1)
    try f.store.upsert(a)
    let (revision, status, sealed) = try sealedSummary(f, a.id)
    let opener = try RecordCipher(keys: f.keys, random: f.random).makeOpener()
    func open(revision: Int64, stored: SessionStatus?) throws -> SessionSummary {
      try sealed.withUnsafeBytes { bytes in
        try SessionStore.openSummary(
          opener, id: a.id, revision: revision, stored: stored, sealed: bytes)
      }
    }
    let stored = try #require(SessionStatus(rawValue: status))
    #expect(try open(revision: revision, stored: stored).id == a.id)
    // When a clear column disagrees, then the row is damaged, by its id
    let damaged = StoreError.damagedRecord(id: a.id.short)
    #expect(throws: damaged) { try open(revision: revision, stored: nil) }
    #expect(throws: damaged) { try open(revision: -1, stored: stored) }
    let other: SessionStatus = stored == .complete ? .needsReflection : .complete
    #expect(throws: damaged) { try open(revision: revision, stored: other) }
  }

  /// Sealed columns that do not make one session together, and a status column edited in
  /// the clear, are each their row's damage: reading that session names it, and listing
  /// names it beside the sessions that still open.
  @Test func rowsThatDoNotAgreeAreNamed() throws {
    // Given two sessions
    let f = try StoreFixture()
    let a = try f.session(seed: 1), b = try f.session(seed: 2)
    try f.store.upsert(a)
    try f.store.upsert(b)
    // When a's summary says it is complete and its body holds no reflection
    let cipher = try RecordCipher(keys: f.keys, random: f.random)
    let (revision, _, _) = try sealedSummary(f, a.id)
    let body = try cipher.seal(
      RecordCodec.encodeBody(try f.session(seed: 1, reflection: nil)), id: a.id.bytes,
      column: .body, revision: UInt64(revision))
    try GRDBAccess.queue(f.path).write { db in
      try db.execute(
        sql: "UPDATE session SET body = ? WHERE id = ?", arguments: [Data(body), a.id.hex])
    }
    // Then a is named, and b still reads
    #expect(throws: StoreError.damagedRecord(id: a.id.short)) { try f.store.session(a.id) }
    #expect(try f.store.session(b.id) == b)
    var streamed: [SessionID] = []
    let damaged = try f.store.streamSessions(order: .newestFirst, transform: { $0.id }) {
      streamed.append($0)
    }
    #expect(streamed == [b.id])
    #expect(damaged == [a.id])
  }

  /// The sync record of a session (its fields' stamps and fingerprints) that is cut short,
  /// of another version, with its fields out of order or a conflict cut short, is that
  /// session's damage, by id; whole, it reads back as written.
  @Test func syncRecordDamage() throws {
    // Given a sync record of every field, with a conflict
    let id = SessionID(randomBytes: [UInt8](repeating: 3, count: 16))
    let device = [UInt8](repeating: 9, count: 16)
    var stamps: SyncStamps = [:]
    var fingerprints: [SyncField: [UInt8]] = [:]
    for field in SyncField.allCases {
      stamps[field] = SyncStamp(time: 1_700_000_000_000, counter: 1, device: device)
      fingerprints[field] = [UInt8](repeating: field.rawValue, count: 16)
    }
    let record = SyncBaseRecord(
      stamps: stamps, fingerprints: fingerprints,
      conflicts: [SyncStamp(time: 5, counter: 2, device: device)])
    let bytes = record.encoded()
    func decode(_ bytes: [UInt8]) throws -> SyncBaseRecord {
      try bytes.withUnsafeBytes { try SyncBaseRecord(decoding: $0, id: id) }
    }
    #expect(try decode(bytes) == record)
    // Layout 1 (before format 14: no tags field) is read with no tags agreed, by nobody.
    var one: [UInt8] = [1]
    for field in SyncField.layoutOne {
      one.append(field.rawValue)
      one += stamps[field]?.encoded ?? []
      one += fingerprints[field] ?? []
    }
    one += SyncStamp(time: 5, counter: 2, device: device).encoded
    let read = try decode(one)
    #expect(read.stamps[.tags] == SyncStamp.none && read.fingerprints[.tags] == nil)
    #expect(read.stamps[.date] == stamps[.date])
    #expect(read.conflicts == record.conflicts)
    // When it is damaged, then
    let damaged = StoreError.damagedRecord(id: id.short)
    var otherVersion = bytes
    otherVersion[0] = 3
    var swapped = bytes
    swapped[1] = SyncField.treatment.rawValue
    for wrong in [[], Array(bytes.prefix(100)), otherVersion, swapped, bytes.dropLast(1)] {
      #expect(throws: damaged) { try decode(Array(wrong)) }
    }
  }
}
