import Foundation
import JournalApp
import JournalCore
import JournalCrypto
import JournalTestSupport

/// A real vault in a temp directory, opened through the app layer with test KDF limits and
/// an injected clock and random source.
struct AppFixture {
  let directory = TemporaryDirectory()
  /// Its own runtime directory (what a listing keeps there goes with the fixture).
  let runtime = TestRuntimeDirectory()
  let clock = TestClock(TestClock.reference)
  let context: AppContext
  let path: String
  let journal: JournalVault
  static let passphrase = "the app test passphrase"

  init() throws {
    context = AppContext(
      now: clock.now, timeZone: TimeZone.gmt, random: SeededRandom(seed: 9),
      kdfPolicy: TestKDF.policy, environment: ["XDG_RUNTIME_DIR": runtime.path])
    path = directory.file("journal/vault.db")
    journal = try JournalVault.create(
      at: path, passphrase: try Self.secret(Self.passphrase), limits: TestKDF.limits,
      context: context)
  }

  static func secret(_ text: String) throws -> SecureBytes {
    try SecureBytes(copying: Array(text.utf8))
  }

  func reopen(passphrase: String = AppFixture.passphrase) throws -> JournalVault {
    try JournalVault.open(at: path, context: context) { try Self.secret(passphrase) }
  }

  /// Saves a session needing reflection.
  func saved() throws -> Session {
    try journal.save(
      SessionDraft(
        id: context.newSessionID(), date: clock.read(), treatment: .psilocybin,
        intention: "to be open", moodBefore: Mood(5)))
  }
}
