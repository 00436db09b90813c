import Foundation
import GRDB
import Glibc
import JournalCore
import JournalCrypto
import JournalStorage
import JournalStore
import JournalSystem
import JournalTestSupport
import Testing

struct VaultTests {
  /// A session written is read back field for field, and an upsert keeps one row.
  @Test func roundTrip() throws {
    // Given
    let f = try StoreFixture()
    let session = try f.session(seed: 1)
    // When
    try f.store.upsert(session)
    try f.store.upsert(session)
    // Then
    #expect(try f.store.session(session.id) == session)
    #expect(try f.store.count() == 1)
    let reopened = try Vault.open(at: f.path).sessions(keys: f.keys, random: f.random)
    #expect(try reopened.session(session.id) == session)
  }

  /// A session whose mood before was not recorded (imported from jrnl) is stored without
  /// tag 4 and read back without one, in the session and in the list's summaries.
  @Test func roundTripWithoutMoodBefore() throws {
    let f = try StoreFixture()
    let saved = try f.session(seed: 2)
    let session = Session(
      id: saved.id, date: saved.date, treatment: saved.treatment, dose: nil,
      intention: saved.intention, moodBefore: nil, environment: nil, music: nil,
      moodAfter: nil, reflection: "seen", created: saved.created, updated: saved.updated,
      status: .complete)
    try f.store.upsert(session)
    #expect(try f.store.session(session.id) == session)
    #expect(try f.store.session(session.id).moodBefore == nil)
    #expect(try f.store.summaries().sessions == [session.summary])
  }

  /// The directory is 0700 and the vault, WAL and SHM files 0600.
  @Test func permissions() throws {
    let f = try StoreFixture()
    try f.store.upsert(try f.session(seed: 1))
    #expect(mode(FileSafety.parentDirectory(of: f.path)) == 0o700)
    for suffix in ["", "-wal", "-shm"] {
      #expect(mode(f.path + suffix) == 0o600, "vault.db\(suffix)")
    }
  }

  /// No typed word, in any field, is found in the bytes of the vault, its WAL or SHM.
  @Test func noPlaintextOnDisk() throws {
    let f = try StoreFixture()
    for seed: UInt8 in 1...5 { try f.store.upsert(try f.session(seed: seed)) }
    let words = [
      "REFLECTION-WORDS", "TREATMENT-NAME", "DOSE-TEXT", "INTENTION-WORDS",
      "ENVIRONMENT-WORDS", "MUSIC-WORDS", "other",
    ]
    let files = f.directory.allFiles()
    #expect(files.count >= 2)
    for file in files {
      for word in words {
        #expect(file.bytes.range(of: Data(word.utf8)) == nil, "\(word) in \(file.path)")
      }
    }
  }

  /// init over an existing vault refuses and leaves it as it was; a missing one is reported.
  @Test func existingAndMissing() throws {
    let f = try StoreFixture()
    let before = try Data(contentsOf: URL(fileURLWithPath: f.path))
    #expect(throws: StoreError.vaultExists(path: f.path)) {
      try Vault.create(at: f.path, header: f.vault.header)
    }
    #expect(try Data(contentsOf: URL(fileURLWithPath: f.path)) == before)
    let missing = f.directory.file("journal/other.db")
    #expect(throws: StoreError.vaultMissing(path: missing)) { try Vault.open(at: missing) }
  }

  /// A directory open to others, a file open to others, and symlinks are refused.
  @Test func unsafeFiles() throws {
    let f = try StoreFixture()
    let directory = FileSafety.parentDirectory(of: f.path)
    chmod(directory, 0o755)
    #expect(throws: SystemError.unsafePermissions(path: directory, mode: 0o755, expected: 0o700)) {
      try Vault.open(at: f.path)
    }
    chmod(directory, 0o700)
    chmod(f.path, 0o644)
    #expect(throws: SystemError.unsafePermissions(path: f.path, mode: 0o644, expected: 0o600)) {
      try Vault.open(at: f.path)
    }
    chmod(f.path, 0o600)
    let link = f.directory.file("journal/link.db")
    symlink(f.path, link)
    #expect(throws: SystemError.symlink(path: link)) { try Vault.open(at: link) }
    let planted = f.directory.file("journal/planted.db")
    symlink(f.directory.file("elsewhere"), planted)
    #expect(throws: StoreError.vaultExists(path: planted)) {
      try Vault.create(at: planted, header: f.vault.header)
    }
    #expect(!FileManager.default.fileExists(atPath: f.directory.file("elsewhere")))
  }

  /// A file that is not a vault, and an SQLite file of another program, are told apart from
  /// a wrong passphrase.
  @Test func notAVault() throws {
    let directory = TemporaryDirectory()
    let junk = directory.write("junk.db", String(repeating: "not sqlite ", count: 500))
    #expect(throws: StoreError.notAVault(path: junk)) { try Vault.open(at: junk) }
    let other = directory.file("other.db")
    let queue = try DatabaseQueue(path: other)
    try queue.write { try $0.execute(sql: "CREATE TABLE notes (body TEXT)") }
    chmod(other, 0o600)
    #expect(throws: StoreError.notAVault(path: other)) { try Vault.open(at: other) }
  }

  /// A page found damaged mid-read (SQLITE_CORRUPT) is said as damage of the vault, not as a
  /// file that is no vault: it was found, and opened as one.
  @Test func damagedPageIsDamageOfTheVault() throws {
    let f = try StoreFixture()
    for seed in 1...60 { try f.store.upsert(try f.session(seed: UInt8(seed))) }
    let queue = try DatabaseQueue(path: f.path)
    let (root, pageSize) = try queue.writeWithoutTransaction { db in
      try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
      return (
        try Int.fetchOne(db, sql: "SELECT rootpage FROM sqlite_schema WHERE name = 'session_list'"),
        try Int.fetchOne(db, sql: "PRAGMA page_size")
      )
    }
    try queue.close()
    let page = try #require(root)
    let size = try #require(pageSize)
    #expect(page > 1)
    // The root page of the index a listing reads given a page type no page has
    let file = try #require(FileHandle(forUpdatingAtPath: f.path))
    try file.seek(toOffset: UInt64((page - 1) * size))
    try file.write(contentsOf: Data([0xFF]))
    try file.close()
    // Opened (the header reads), then damage met in the listing
    let store = try Vault.open(at: f.path).sessions(keys: f.keys, random: f.random)
    #expect(throws: StoreError.damagedFile(path: f.path)) { _ = try store.summaries() }
  }

  /// Values of the wrong type in an edited file are refused as damage, never a crash: a
  /// reminder's is damage of that reminder alone (left out and named), a header's the vault's.
  @Test func wrongTypes() throws {
    let f = try StoreFixture()
    let waiting = try f.session(seed: 1, reflection: nil)
    try f.store.upsert(waiting)
    try f.vault.setReminder(waiting.id, due: TestClock.reference, repeatInterval: 86400)
    #expect(try f.vault.reminders().count == 1)
    let queue = try DatabaseQueue(path: f.path)
    try queue.write { try $0.execute(sql: "UPDATE reminder SET due = 'soon'") }
    #expect(try Vault.open(at: f.path).reminders().isEmpty)
    #expect(try Vault.open(at: f.path).damagedReminders() == [waiting.id.short])
    try queue.write { try $0.execute(sql: "UPDATE vault SET kdf_opslimit = 'many'") }
    #expect(throws: StoreError.notAVault(path: f.path)) { try Vault.open(at: f.path) }
  }

  /// A vault of a newer format is refused with both version numbers.
  @Test func newerFormat() throws {
    let f = try StoreFixture()
    let queue = try DatabaseQueue(path: f.path)
    let newer = Vault.formatVersion + 1
    try queue.write {
      try $0.execute(sql: "UPDATE vault SET format_version = ?", arguments: [newer])
    }
    #expect(throws: StoreError.newerFormat(found: newer, supported: Vault.formatVersion)) {
      try Vault.open(at: f.path)
    }
  }

  /// Ciphertexts moved between rows or columns, or a status edited in the clear, make only
  /// the rows touched unreadable, each reported by id; the others still open. A status
  /// edited changes what the ledger holds: a read of every row refuses it as tampering.
  @Test func bindingAndIsolation() throws {
    // Given three sessions
    let f = try StoreFixture()
    let a = try f.session(seed: 1), b = try f.session(seed: 2), c = try f.session(seed: 3)
    for s in [a, b, c] { try f.store.upsert(s) }
    let queue = try DatabaseQueue(path: f.path)
    // When a's summary is copied over b's
    try queue.write { db in
      try db.execute(
        sql: "UPDATE session SET summary = (SELECT summary FROM session WHERE id = ?) WHERE id = ?",
        arguments: [a.id.hex, b.id.hex])
    }
    // Then
    let (sessions, damaged) = try f.store.summaries()
    #expect(Set(sessions.map(\.id)) == [a.id, c.id])
    #expect(damaged == [b.id])
    #expect(throws: StoreError.damagedRecord(id: b.id.short)) { try f.store.session(b.id) }
    // And c's status edited: c does not open, the listing is refused
    try queue.write { db in
      try db.execute(
        sql: "UPDATE session SET status = 'needs_reflection' WHERE id = ?", arguments: [c.id.hex])
    }
    #expect(throws: StoreError.damagedRecord(id: c.id.short)) { try f.store.session(c.id) }
    #expect(throws: StoreError.tampered(.rows)) { try f.store.summaries() }
    #expect(try f.store.session(a.id).id == a.id)
    // And a body moved into the summary column fails too
    try queue.write { db in
      try db.execute(sql: "UPDATE session SET summary = body WHERE id = ?", arguments: [a.id.hex])
    }
    #expect(throws: StoreError.damagedRecord(id: a.id.short)) { try f.store.session(a.id) }
  }

  /// Sealed correctly but not as SECURITY.md allows (written by another program holding the
  /// key, say): a complete session without a reflection, and a treatment name beside a named
  /// treatment, are damage, not something to show.
  @Test func sealedButNotAllowed() throws {
    let f = try StoreFixture()
    let a = try f.session(seed: 1), b = try f.session(seed: 2)
    try f.store.upsert(a)
    try f.store.upsert(b)
    let cipher = try RecordCipher(keys: f.keys, random: f.random)
    let queue = try DatabaseQueue(path: f.path)
    func put(_ id: SessionID, _ column: String, _ plain: [UInt8]) throws {
      try queue.write { db in
        let revision =
          try Int64.fetchOne(
            db, sql: "SELECT revision FROM session WHERE id = ?", arguments: [id.hex]) ?? 0
        let sealed = try cipher.seal(
          plain, id: id.bytes, column: column == "summary" ? .summary : .body,
          revision: UInt64(revision))
        try db.execute(
          sql: "UPDATE session SET \(column) = ? WHERE id = ?", arguments: [Data(sealed), id.hex])
      }
    }
    // a: complete, and its body without the reflection
    let unreflected = try f.session(seed: 1, reflection: nil)
    try put(a.id, "body", RecordCodec.encodeBody(unreflected))
    #expect(throws: StoreError.damagedRecord(id: a.id.short)) { try f.store.session(a.id) }
    // b: "lsd" with a custom name
    var summary: [UInt8] = [1]
    FieldCodec.put(.date, time: b.date, into: &summary)
    FieldCodec.put(.treatment, text: "lsd", into: &summary)
    FieldCodec.put(.treatmentName, text: "a name", into: &summary)
    FieldCodec.put(.status, text: b.status.rawValue, into: &summary)
    FieldCodec.put(.created, time: b.created, into: &summary)
    FieldCodec.put(.updated, time: b.updated, into: &summary)
    try put(b.id, "summary", summary)
    #expect(throws: StoreError.damagedRecord(id: b.id.short)) { try f.store.session(b.id) }
  }

  /// Id prefixes resolve to one session, or are reported as unknown or ambiguous.
  @Test func prefixes() throws {
    let f = try StoreFixture()
    let one = try f.session(seed: 0x11), two = try f.session(seed: 0x12)
    try f.store.upsert(one)
    try f.store.upsert(two)
    #expect(try f.store.resolve("1111") == one.id)
    #expect(try f.store.resolve(one.id.hex) == one.id)
    #expect(throws: StoreError.ambiguous(prefix: "1", candidates: [one.id.short, two.id.short])) {
      try f.store.resolve("1")
    }
    #expect(throws: StoreError.noMatch(prefix: "ff")) { try f.store.resolve("ff") }
  }

  /// Replacing the key header keeps every record readable under the new passphrase.
  @Test func passphraseChange() throws {
    let f = try StoreFixture()
    let session = try f.session(seed: 1)
    try f.store.upsert(session)
    let newPass = try SecureBytes(copying: Array("an entirely new one".utf8))
    try f.vault.replaceHeader(
      try f.keys.wrap(passphrase: newPass, limits: TestKDF.limits, random: f.random))
    let vault = try Vault.open(at: f.path)
    let keys = try VaultKeys.open(header: vault.header, passphrase: newPass, policy: TestKDF.policy)
    #expect(try vault.sessions(keys: keys, random: f.random).session(session.id) == session)
    #expect(throws: CryptoError.wrongPassphrase) {
      try VaultKeys.open(
        header: vault.header,
        passphrase: try SecureBytes(copying: Array(StoreFixture.passphrase.utf8)),
        policy: TestKDF.policy)
    }
  }

  /// Summaries come newest first, and can be limited to sessions needing reflection.
  @Test func listing() throws {
    let f = try StoreFixture()
    let old = try f.session(seed: 1, date: TestClock.reference - 7200)
    let new = try f.session(seed: 2, date: TestClock.reference, reflection: nil)
    try f.store.upsert(old)
    try f.store.upsert(new)
    #expect(try f.store.summaries().sessions.map(\.id) == [new.id, old.id])
    #expect(try f.store.summaries(status: .needsReflection).sessions.map(\.id) == [new.id])
  }

  /// A list longer than one batch, opened on several threads, still holds every readable
  /// session once, newest first, and reports exactly the damaged rows, wherever they fall.
  @Test func listingManyRows() throws {
    // Given more sessions than a batch holds, a few of them damaged
    let f = try StoreFixture()
    let count = 4096 + 300
    var sessions: [Session] = []
    for index in 0..<count {
      var bytes = [UInt8](repeating: 0, count: 16)
      withUnsafeBytes(of: UInt32(index).bigEndian) { bytes.replaceSubrange(0..<4, with: $0) }
      let draft = SessionDraft(
        id: SessionID(randomBytes: bytes),
        date: TestClock.reference - Double(index % 1000) * 60, treatment: .ketamine,
        intention: "INTENTION-\(index)", moodBefore: Mood(1 + index % 10))
      sessions.append(try Session.saving(draft, now: TestClock.reference))
    }
    _ = try f.store.importSessions(sessions, dryRun: false)
    let broken = [5, 200, 2047, 2048, 4095, 4096, count - 1].map { sessions[$0].id }
    let queue = try DatabaseQueue(path: f.path)
    try queue.write { db in
      for id in broken {
        try db.execute(
          sql: "UPDATE session SET summary = body WHERE id = ?", arguments: [id.hex])
      }
    }
    // When
    let (listed, damaged) = try f.store.summaries()
    // Then
    let expected = sessions.filter { !broken.contains($0.id) }.map(\.summary)
      .sorted(by: SessionSummary.newestFirst)
    #expect(listed == expected)
    #expect(damaged.sorted() == broken.sorted())
  }

  private func mode(_ path: String) -> mode_t {
    var info = stat()
    lstat(path, &info)
    return info.st_mode & 0o777
  }
}

/// An import read on its own thread (`overlap`) writes what one thread would, and undoes it
/// all when the reading fails half-way.
struct ImportOverlapTests {
  static func sessions(_ count: Int) throws -> [Session] {
    try (0..<count).map { index in
      var bytes = [UInt8](repeating: 7, count: 16)
      withUnsafeBytes(of: UInt32(index).bigEndian) { bytes.replaceSubrange(0..<4, with: $0) }
      let draft = SessionDraft(
        id: SessionID(randomBytes: bytes), date: TestClock.reference - Double(index) * 60,
        treatment: .ketamine, intention: "INTENTION-\(index)", moodBefore: Mood(1 + index % 10))
      return try Session.saving(draft, now: TestClock.reference)
    }
  }

  struct Refused: Error {}

  /// Sessions handed over in several batches all arrive, in order, and are counted.
  @Test func writesEverySession() throws {
    let f = try StoreFixture()
    let sessions = try Self.sessions(64 * 5 + 3)
    let count = try f.store.importSessions(dryRun: false, overlap: true) { take in
      for session in sessions { try take(session) }
    }
    #expect(count.added == sessions.count)
    #expect(try f.store.count() == sessions.count)
    #expect(try f.store.session(sessions[200].id) == sessions[200])
  }

  /// A reader that fails after some batches were written leaves nothing written, and its
  /// error is the one raised.
  @Test func readerFailureUndoesAll() throws {
    let f = try StoreFixture()
    let sessions = try Self.sessions(64 * 6)
    #expect(throws: Refused.self) {
      try f.store.importSessions(dryRun: false, overlap: true) { take in
        for session in sessions { try take(session) }
        throw Refused()
      }
    }
    #expect(try f.store.count() == 0)
  }

  /// A failure of the writing side (a session whose row in the vault does not open) stops
  /// the reader and is the error raised; nothing is written.
  @Test func writerFailureStopsTheReader() throws {
    let f = try StoreFixture()
    let sessions = try Self.sessions(64 * 20)
    _ = try f.store.importSessions([sessions[10]], dryRun: false)
    let queue = try DatabaseQueue(path: f.path)
    try queue.write { db in
      try db.execute(
        sql: "UPDATE session SET summary = body WHERE id = ?", arguments: [sessions[10].id.hex])
    }
    var handed = 0
    #expect(throws: (any Error).self) {
      try f.store.importSessions(dryRun: false, overlap: true) { take in
        for session in sessions {
          try take(session)
          handed += 1
        }
      }
    }
    // Stopped within the few batches it may read ahead; the vault as it was.
    #expect(handed < sessions.count)
    #expect(try queue.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM session") } == 1)
  }
}
