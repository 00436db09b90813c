import Foundation
import JournalApp
import JournalCore
import JournalCrypto
import JournalDiagnostics
import JournalStore
import JournalTestSupport
import Testing

struct JournalVaultTests {
  /// A wrong passphrase is refused and the vault's bytes do not change.
  @Test func wrongPassphraseChangesNothing() throws {
    let f = try AppFixture()
    _ = try f.saved()
    let before = try Data(contentsOf: URL(fileURLWithPath: f.path))
    #expect(throws: CryptoError.wrongPassphrase) { try f.reopen(passphrase: "not it at all") }
    #expect(try Data(contentsOf: URL(fileURLWithPath: f.path)) == before)
  }

  /// passwd: the new passphrase opens every session, the old one nothing.
  @Test func changePassphrase() throws {
    let f = try AppFixture()
    let session = try f.saved()
    try f.journal.changePassphrase(to: try AppFixture.secret("a brand new passphrase"))
    #expect(try f.reopen(passphrase: "a brand new passphrase").session(session.id) == session)
    #expect(throws: CryptoError.wrongPassphrase) { try f.reopen() }
  }

  /// A complete session is open for reflection while a later field is empty (a reflect
  /// that was interrupted goes on); with all of them filled it is refused with its id.
  @Test func reflectOnComplete() throws {
    let f = try AppFixture()
    let session = try f.saved()
    try f.journal.apply(.reflection("done"), to: session.id)
    #expect(
      try f.journal.beginReflection(session.id).laterFieldsOpen == [
        .moodAfter, .environment, .music,
      ])
    try f.journal.apply(
      [.moodAfter(Mood(7)), .environment("home"), .music("rain")], to: session.id)
    #expect(throws: AppError.lifecycle(.alreadyComplete, id: session.id.short)) {
      try f.journal.beginReflection(session.id)
    }
  }

  /// Changes stamp "updated" with the injected clock and keep "created".
  @Test func timestamps() throws {
    let f = try AppFixture()
    let session = try f.saved()
    f.clock.advance(by: 3600)
    let changed = try f.journal.apply(.music("rain"), to: session.id)
    #expect(changed.created == TestClock.reference)
    #expect(changed.updated == TestClock.reference + 3600)
  }

  /// init refuses a vault that is already there, and KDF limits outside the policy.
  @Test func createRefusals() throws {
    let f = try AppFixture()
    #expect(throws: StoreError.vaultExists(path: f.path)) {
      try JournalVault.create(
        at: f.path, passphrase: try AppFixture.secret("whatever you like"), limits: TestKDF.limits,
        context: f.context)
    }
    var strict = f.context
    strict.kdfPolicy = .standard
    #expect(throws: CryptoError.self) {
      try JournalVault.create(
        at: f.directory.file("second/vault.db"),
        passphrase: try AppFixture.secret("whatever you like"),
        limits: TestKDF.limits, context: strict)
    }
  }
}
