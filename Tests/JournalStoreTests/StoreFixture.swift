import Foundation
import JournalCore
import JournalCrypto
import JournalStore
import JournalTestSupport

/// A vault in a temp directory, made with the test KDF limits.
struct StoreFixture {
  let directory = TemporaryDirectory()
  let path: String
  let vault: Vault
  let keys: VaultKeys
  let store: SessionStore
  let random = SeededRandom(seed: 42)
  static let passphrase = "a passphrase for tests"

  init() throws {
    path = directory.file("journal/vault.db")
    let (keys, header) = try VaultKeys.create(
      passphrase: try SecureBytes(copying: Array(Self.passphrase.utf8)), limits: TestKDF.limits,
      random: random)
    self.keys = keys
    vault = try Vault.create(at: path, header: header)
    store = try vault.sessions(keys: keys, random: random)
  }

  /// A saved session with every field filled and distinctive words in each text.
  func session(
    seed: UInt8, date: Date = TestClock.reference, reflection: String? = "REFLECTION-WORDS",
    id: SessionID? = nil
  ) throws -> Session {
    let draft = SessionDraft(
      id: id ?? SessionID(randomBytes: [UInt8](repeating: seed, count: 16)), date: date,
      treatment: .other("TREATMENT-NAME"), dose: "DOSE-TEXT", intention: "INTENTION-WORDS",
      moodBefore: Mood(4))
    var session = try Session.saving(draft, now: TestClock.reference)
    try session.apply(.environment("ENVIRONMENT-WORDS"), now: TestClock.reference)
    try session.apply(.music("MUSIC-WORDS"), now: TestClock.reference)
    try session.apply(.moodAfter(Mood(9)), now: TestClock.reference)
    if let reflection { try session.apply(.reflection(reflection), now: TestClock.reference + 1) }
    return session
  }
}
