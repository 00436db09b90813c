import Foundation
import GRDB
import JournalCore
import JournalCrypto
import JournalStore
import JournalTestSupport
import Testing

/// The vault of each released format, committed under Fixtures/, opened by today's code.
struct FixtureTests {
  static let passphrase = "fixture passphrase v1"

  /// Format 1 (the first release): both sessions read back exactly.
  @Test func formatOne() throws {
    // Given a copy of the committed fixture (opening may migrate it)
    let directory = TemporaryDirectory()
    let source = Bundle.module.resourcePath! + "/Fixtures/vault-v1.db"
    let path = directory.file("vault.db")
    try FileManager.default.copyItem(atPath: source, toPath: path)
    chmod(path, 0o600)
    // When
    let vault = try Vault.open(at: path)
    let keys = try VaultKeys.open(
      header: vault.header, passphrase: try SecureBytes(copying: Array(Self.passphrase.utf8)),
      policy: TestKDF.policy)
    let store = try vault.sessions(keys: keys, random: SeededRandom(seed: 1))
    // Then
    let (sessions, damaged) = try store.summaries()
    #expect(damaged.isEmpty)
    #expect(sessions.count == 2)
    // And it was migrated to today's format, with the index `list` reads
    let (version, indexes) = try DatabaseQueue(path: path).read { db in
      (
        try Int.fetchOne(db, sql: "SELECT format_version FROM vault"),
        try db.indexes(on: "session").map(\.name)
      )
    }
    #expect(version == Vault.formatVersion)
    #expect(indexes.contains("session_list"))
    let full = try store.session(try store.resolve("2222"))
    #expect(full.treatment == .ayahuasca)
    #expect(full.intention == "to see clearly")
    #expect(full.reflection == "many-layered\nand kind")
    #expect(full.status == .complete)
    #expect(full.moodAfter == Mood(8))
    let other = try store.session(try store.resolve("3333"))
    #expect(other.treatment == .other("San Pedro"))
    #expect(other.status == .needsReflection)
    #expect(other.dose == nil)
  }

  /// Writes the fixture (run once per new format with JOURNAL_WRITE_FIXTURES=<dir>).
  @Test(.enabled(if: ProcessInfo.processInfo.environment["JOURNAL_WRITE_FIXTURES"] != nil))
  func writeFixture() throws {
    let target = ProcessInfo.processInfo.environment["JOURNAL_WRITE_FIXTURES"]! + "/vault-v1.db"
    let random = SeededRandom(seed: 2026)
    let (keys, header) = try VaultKeys.create(
      passphrase: try SecureBytes(copying: Array(Self.passphrase.utf8)), limits: TestKDF.limits,
      random: random)
    let vault = try Vault.create(at: target, header: header)
    let store = try vault.sessions(keys: keys, random: random)
    var one = try Session.saving(
      SessionDraft(
        id: SessionID(randomBytes: [UInt8](repeating: 0x22, count: 16)),
        date: TestClock.reference, treatment: .ayahuasca, dose: "one cup",
        intention: "to see clearly", moodBefore: Mood(5)), now: TestClock.reference)
    try one.apply(.moodAfter(Mood(8)), now: TestClock.reference + 3600)
    try one.apply(.reflection("many-layered\nand kind"), now: TestClock.reference + 3600)
    try store.upsert(one)
    let two = try Session.saving(
      SessionDraft(
        id: SessionID(randomBytes: [UInt8](repeating: 0x33, count: 16)),
        date: TestClock.reference - 86400, treatment: .other("San Pedro"),
        intention: "to rest", moodBefore: Mood(3)), now: TestClock.reference)
    try store.upsert(two)
  }
}
