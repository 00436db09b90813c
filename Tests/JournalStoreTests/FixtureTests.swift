import Foundation
import GRDB
import JournalCore
import JournalCrypto
import JournalStorage
import JournalTestSupport
import Testing

@testable import JournalStore

/// A vault of every format that ever shipped (1 to `Vault.formatVersion`), committed under Fixtures/ and
/// opened by today's code: sessions field for field, the trash (restorable within its
/// window, purged after it), tombstones and reminders, and the ledger (format 5) they gain.
///
/// Fixtures 1 to 4 were written by migrating a new file up to exactly that format
/// (`DatabaseMigrator.migrate(_:upTo:)`) and writing rows as that format's code did:
/// `JOURNAL_WRITE_FIXTURES=<dir> swift test --filter FixtureTests/writeFixtures`. Fixture 5
/// is fixture 4 opened with its key by format 5's code (6831bed), which protected it: its
/// rows at revision 1 and the ledger at generation 1. Fixtures 6 to 10 are fixture 5 migrated
/// up to exactly that format (migrations are never edited once shipped) with what each
/// format adds set as its code sets it: the sealing key (7), a recovery slot (8). Fixture
/// 11 is fixture 10 opened with its key by format 11's code, and fixtures 12 and 13 are the
/// one before opened so by their format's code; fixture 14 also gives the complete session tags
/// and notes, as format 14's code writes them. Every test runs up to
/// `Vault.formatVersion`: a new format without its fixture fails here.
struct FixtureTests {
  static let passphrase = "fixture passphrase v1"
  /// The instant the fixtures' rows were written at.
  static let written = TestClock.reference
  /// The last migration of each format.
  static let migrations = [
    1: "v1: vault header and sessions", 2: "v2: trash for undoable deletions, tombstones",
    3: "v3: reminders", 4: "v4: list index", 5: "v5: revisions and the ledger",
    6: "v6: sessions closed without a reflection", 7: "v7: sealed additions",
    8: "v8: recovery slot", 9: "v9: key rotation", 10: "v10: sync",
    11: "v11: marks in the summary, settings in the ledger", 12: "v12: the ledger's tree",
    13: "v13: what sync has to send", 14: "v14: notes and tags",
  ]
  /// The recovery code of fixtures 8 and 9, made again from its seed.
  static func recoveryCode() throws -> RecoveryCode {
    try RecoveryCode.generate(random: SeededRandom(seed: 8))
  }
  static let complete = SessionID(randomBytes: [UInt8](repeating: 0x22, count: 16))
  static let waiting = SessionID(randomBytes: [UInt8](repeating: 0x33, count: 16))
  static let trashed = SessionID(randomBytes: [UInt8](repeating: 0x44, count: 16))
  static let purged = SessionID(randomBytes: [UInt8](repeating: 0x55, count: 16))

  /// A copy of the fixture of `format`, opened (and so migrated) by today's code.
  static func open(_ format: Int) throws -> (TemporaryDirectory, String, Vault, SessionStore) {
    let directory = TemporaryDirectory()
    let source = try #require(Bundle.module.resourcePath) + "/Fixtures/vault-v\(format).db"
    let path = directory.file("vault.db")
    try FileManager.default.copyItem(atPath: source, toPath: path)
    chmod(path, 0o600)
    let vault = try Vault.open(at: path)
    let keys = try VaultKeys.open(
      header: vault.header, passphrase: try SecureBytes(copying: Array(passphrase.utf8)),
      policy: TestKDF.policy)
    return (directory, path, vault, try vault.sessions(keys: keys, random: SeededRandom(seed: 1)))
  }

  /// Each format opens as today's: migrated to the current version with the list index, and
  /// both sessions read back field for field.
  @Test(arguments: 1...Vault.formatVersion) func sessionsReadBack(format: Int) throws {
    let (directory, path, _, store) = try Self.open(format)
    defer { withExtendedLifetime(directory) {} }
    let (version, indexes) = try DatabaseQueue(path: path).read { db in
      (
        try Int.fetchOne(db, sql: "SELECT format_version FROM vault"),
        try db.indexes(on: "session").map(\.name)
      )
    }
    #expect(version == Vault.formatVersion)
    #expect(indexes.contains("session_list"))
    let (summaries, damaged) = try store.summaries()
    #expect(damaged.isEmpty)
    #expect(Set(summaries.map(\.id)) == [Self.complete, Self.waiting])
    #expect(try store.session(Self.complete) == Self.complete(format))
    #expect(try store.session(Self.waiting) == Self.sessions[1])
  }

  /// Each format gains the ledger at its first opening with the key: every row sealed again
  /// at revision 1 (still reading back the same), generation 1 stamped, and from then on a
  /// row deleted from the file is noticed.
  @Test(arguments: 1...Vault.formatVersion) func protectedWhenFirstUnlocked(format: Int) throws {
    let (directory, path, _, store) = try Self.open(format)
    defer { withExtendedLifetime(directory) {} }
    let (revisions, generation) = try DatabaseQueue(path: path).read { db in
      (
        try Int64.fetchAll(
          db, sql: "SELECT revision FROM session UNION ALL SELECT revision FROM trash"),
        try Int64.fetchOne(db, sql: "SELECT generation FROM ledger")
      )
    }
    // Fixture 14's complete session was written again (its notes and tags): revision 2.
    #expect(!revisions.isEmpty && revisions.allSatisfy { $0 == 1 || format >= 14 && $0 == 2 })
    // A ledger of format 5 to 10 (construction 1), or 11 (construction 2), is stamped again
    // in today's: one on.
    // (Fixture 14 was written once more, for its notes and tags.)
    #expect(generation == (format >= 14 ? 4 : format >= 11 ? 3 : format >= 5 ? 2 : 1))
    #expect(try store.session(Self.complete) == Self.complete(format))
    try DatabaseQueue(path: path).write { db in
      try db.execute(sql: "DELETE FROM session WHERE id = ?", arguments: [Self.waiting.hex])
    }
    let keys = try VaultKeys.open(
      header: try Vault.open(at: path).header,
      passphrase: try SecureBytes(copying: Array(Self.passphrase.utf8)), policy: TestKDF.policy)
    // From format 3 the waiting session has a reminder, which no longer fits a session.
    let expected: Tampering =
      format >= 3 ? .inconsistent(ids: [Self.waiting.short]) : .rows
    #expect(throws: StoreError.tampered(expected)) {
      try Vault.open(at: path).sessions(keys: keys, random: SeededRandom(seed: 1))
    }
  }

  /// From format 2 on: the deletion is restorable inside its window (with its reminder, from
  /// format 3 on), the tombstone is kept, and after the window the deletion is purged.
  @Test(arguments: 2...Vault.formatVersion) func trashAndTombstones(format: Int) throws {
    let (directory, _, vault, store) = try Self.open(format)
    defer { withExtendedLifetime(directory) {} }
    #expect(try vault.trashedIDs() == [Self.trashed])
    #expect(try vault.tombstones() == [Self.purged])
    let restored = try vault.undoLatest(now: Self.written + 5)
    #expect(restored?.ids == [Self.trashed])
    #expect(try store.session(Self.trashed) == Self.sessions[2])
    #expect(try vault.reminders().map(\.id).contains(Self.trashed) == (format >= 3))

    let (otherDirectory, _, later, _) = try Self.open(format)
    defer { withExtendedLifetime(otherDirectory) {} }
    #expect(try later.purgeExpired(now: Self.written + 11) == 1)
    #expect(try later.trashedIDs().isEmpty)
    #expect(try later.tombstones() == [Self.trashed, Self.purged])
  }

  /// From format 3 on: the waiting session's reminder, as it was set.
  @Test(arguments: 3...Vault.formatVersion) func reminders(format: Int) throws {
    let (directory, _, vault, _) = try Self.open(format)
    defer { withExtendedLifetime(directory) {} }
    let reminders = try vault.reminders()
    #expect(reminders.map(\.id) == [Self.waiting])
    #expect(reminders.first?.due == Self.written + 3 * 3600)
    #expect(reminders.first?.repeatInterval == 86400)
  }

  /// From format 7 on: sealed capture on, with the key the data key gives; from format 8 on,
  /// the recovery slot opens with its code; no rotation is under way.
  @Test(arguments: 7...Vault.formatVersion) func sealingAndRecovery(format: Int) throws {
    let (directory, _, vault, _) = try Self.open(format)
    defer { withExtendedLifetime(directory) {} }
    let keys = try VaultKeys.open(
      header: vault.header, passphrase: try SecureBytes(copying: Array(Self.passphrase.utf8)),
      policy: TestKDF.policy)
    #expect(try vault.sealing().publicKey == keys.sealingPublicKey)
    #expect(try vault.rotationKey() == nil)
    #expect(try vault.sealedCount() == 0)
    let slot = try vault.recoverySlot()
    #expect((slot != nil) == (format >= 8))
    if let slot {
      let opened = try VaultKeys.open(
        recoverySlot: slot, vaultID: vault.header.vaultID, code: try Self.recoveryCode())
      #expect(opened.recordKey.isEqual(to: keys.recordKey))
    }
  }

  /// The complete session as the fixture of `format` holds it: from format 14 with tags and
  /// two integration notes (one corrected, one deleted and purged).
  static func complete(_ format: Int) -> Session {
    format >= 14 ? noted : sessions[0]
  }

  static let noted: Session = {
    do {
      var session = sessions[0]
      try session.retag(adding: ["ceremony", "integration"], removing: [], now: written + 7200)
      let random = SeededRandom(seed: 14)
      func next() -> UInt64 { random.bytes(8).withUnsafeBytes { $0.load(as: UInt64.self) } }
      try session.addNote(
        Note(text: "the dream came back", mood: Mood(6), now: written + 86400, random: next),
        now: written + 86400)
      try session.addNote(
        Note(text: "a call that went differently", mood: nil, now: written + 172800, random: next),
        now: written + 172800)
      try session.addNote(
        Note(text: "not this", mood: Mood(2), now: written + 180000, random: next),
        now: written + 180000)
      _ = try session.editNote(1, text: nil, mood: Mood(7), version: next(), now: written + 190000)
      _ = try session.deleteNote(
        3, purgeAfter: written + 190010, version: next(), now: written + 190000)
      session.purgeNotes(at: written + 190010)
      return session
    } catch {
      fatalError("fixture notes: \(error)")
    }
  }()

  /// The fixtures' sessions: complete, waiting for reflection, and (from format 2) deleted.
  static let sessions: [Session] = {
    do {
      var one = try Session.saving(
        SessionDraft(
          id: complete, date: written, treatment: .ayahuasca, dose: "one cup",
          intention: "to see clearly", moodBefore: Mood(5)), now: written)
      try one.apply(.moodAfter(Mood(8)), now: written + 3600)
      try one.apply(.reflection("many-layered\nand kind"), now: written + 3600)
      let two = try Session.saving(
        SessionDraft(
          id: waiting, date: written - 86400, treatment: .other("San Pedro"),
          intention: "to rest", moodBefore: Mood(3)), now: written)
      let three = try Session.saving(
        SessionDraft(
          id: trashed, date: written - 7200, treatment: .mdma, dose: "120 mg",
          intention: "to forgive", moodBefore: Mood(4)), now: written)
      return [one, two, three]
    } catch {
      fatalError("fixture sessions: \(error)")
    }
  }()

  /// Writes fixtures 1 to 4 and 6 to 14 (run with JOURNAL_WRITE_FIXTURES=<dir>; never in a
  /// normal run: the committed files are what shipped). Fixtures 6 to 10 start from the
  /// committed fixture 5.
  @Test(.enabled(if: ProcessInfo.processInfo.environment["JOURNAL_WRITE_FIXTURES"] != nil))
  func writeFixtures() throws {
    let directory = try #require(ProcessInfo.processInfo.environment["JOURNAL_WRITE_FIXTURES"])
    for format in 1...4 {
      let path = directory + "/vault-v\(format).db"
      unlink(path)
      try Self.write(format: format, to: path)
    }
    let five = try #require(Bundle.module.resourcePath) + "/Fixtures/vault-v5.db"
    for format in 6...10 {
      let path = directory + "/vault-v\(format).db"
      unlink(path)
      try FileManager.default.copyItem(atPath: five, toPath: path)
      try Self.migrate(path, to: format)
    }
    // Fixture 11 is fixture 10 opened with its key by format 11's code, as a person's vault
    // became format 11: migrated, and its ledger stamped in format 11's construction. Fixture
    // 12 is fixture 11 opened so by format 12's code (the ledger's tree made), and 13 is 12
    // opened so by format 13's (the sync outbox made).
    for format in 11...14 {
      let earlier = try #require(Bundle.module.resourcePath) + "/Fixtures/vault-v\(format - 1).db"
      let path = directory + "/vault-v\(format).db"
      unlink(path)
      try FileManager.default.copyItem(atPath: earlier, toPath: path)
      chmod(path, 0o600)
      do {
        let vault = try Vault.open(at: path)
        let keys = try VaultKeys.open(
          header: vault.header,
          passphrase: try SecureBytes(copying: Array(Self.passphrase.utf8)),
          policy: TestKDF.policy)
        let store = try vault.sessions(keys: keys, random: SeededRandom(seed: UInt64(format)))
        // Format 14's notes and tags, on the complete session.
        if format == 14 { try store.update(Self.complete) { $0 = Self.noted } }
      }
      let queue = try DatabaseQueue(path: path)
      try queue.writeWithoutTransaction { db in try db.execute(sql: "VACUUM") }
      try queue.close()
      unlink(path + "-wal")
      unlink(path + "-shm")
    }
  }

  /// Migrates the fixture at `path` up to exactly `format`, setting what that format adds.
  static func migrate(_ path: String, to format: Int) throws {
    let queue = try DatabaseQueue(path: path)
    try Vault.migrator.migrate(queue, upTo: try #require(migrations[format]))
    let header = try queue.read { db in
      try #require(
        try Row.fetchOne(
          db, sql: "SELECT vault_id, kdf_opslimit, kdf_memlimit, kdf_salt, wrapped_key FROM vault"))
    }
    let keys = try VaultKeys.open(
      header: KeyHeader(
        vaultID: Array(header[0] as Data),
        limits: KDFLimits(
          opsLimit: UInt64(header[1] as Int64), memLimit: UInt64(header[2] as Int64)),
        salt: Array(header[3] as Data), wrappedKey: Array(header[4] as Data)),
      passphrase: try SecureBytes(copying: Array(passphrase.utf8)), policy: TestKDF.policy)
    try queue.write { db in
      if format >= 7 {
        try db.execute(
          sql: "UPDATE vault SET sealing_key = ?, sealing_offered = 1",
          arguments: [Data(keys.sealingPublicKey)])
      }
      if format >= 8 {
        let slot = try keys.wrapRecovery(try recoveryCode(), random: SeededRandom(seed: 88))
        try db.execute(sql: "UPDATE vault SET recovery_slot = ?", arguments: [Data(slot)])
      }
    }
    try queue.writeWithoutTransaction { db in try db.execute(sql: "VACUUM") }
    try queue.close()
    unlink(path + "-wal")
    unlink(path + "-shm")
  }

  static func write(format: Int, to path: String) throws {
    let random = SeededRandom(seed: 2026)
    let (keys, header) = try VaultKeys.create(
      passphrase: try SecureBytes(copying: Array(passphrase.utf8)), limits: TestKDF.limits,
      random: random)
    let cipher = try RecordCipher(keys: keys, random: random)
    func sealed(_ s: Session) throws -> (Data, Data) {
      (
        Data(try cipher.seal(RecordCodec.encodeSummary(s), id: s.id.bytes, column: .summary)),
        Data(try cipher.seal(RecordCodec.encodeBody(s), id: s.id.bytes, column: .body))
      )
    }
    func millis(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }
    let queue = try DatabaseQueue(path: path)
    try Vault.migrator.migrate(queue, upTo: try #require(migrations[1]))
    try queue.write { db in
      try db.execute(
        sql: """
          INSERT INTO vault (singleton, format_version, vault_id, kdf_algorithm,
            kdf_opslimit, kdf_memlimit, kdf_salt, wrapped_key)
          VALUES (1, 1, ?, 'argon2id13', ?, ?, ?, ?)
          """,
        arguments: [
          Data(header.vaultID), Int64(header.limits.opsLimit), Int64(header.limits.memLimit),
          Data(header.salt), Data(header.wrappedKey),
        ])
      for session in sessions.prefix(2) {
        let (summary, body) = try sealed(session)
        try db.execute(
          sql: "INSERT INTO session (id, status, summary, body) VALUES (?, ?, ?, ?)",
          arguments: [session.id.hex, session.status.rawValue, summary, body])
      }
    }
    try Vault.migrator.migrate(queue, upTo: try #require(migrations[format]))
    try queue.write { db in
      if format >= 3 {
        try db.execute(
          sql: "INSERT INTO reminder (id, due, repeat_seconds, last_fired) VALUES (?, ?, ?, NULL)",
          arguments: [waiting.hex, millis(written + 3 * 3600), 86400])
      }
      if format >= 2 {
        let (summary, body) = try sealed(sessions[2])
        try db.execute(
          sql: """
            INSERT INTO trash (id, batch, deleted_at, purge_after, status, summary, body)
            VALUES (?, 1, ?, ?, ?, ?, ?)
            """,
          arguments: [
            trashed.hex, millis(written), millis(written + 10), sessions[2].status.rawValue,
            summary, body,
          ])
        if format >= 3 {
          try db.execute(
            sql: """
              UPDATE trash SET reminder_due = ?, reminder_repeat = 86400 WHERE id = ?
              """, arguments: [millis(written + 3600), trashed.hex])
        }
        try db.execute(sql: "INSERT INTO tombstone (id) VALUES (?)", arguments: [purged.hex])
      }
    }
    try queue.writeWithoutTransaction { db in try db.execute(sql: "VACUUM") }
    try queue.close()
    unlink(path + "-wal")
    unlink(path + "-shm")
  }
}
