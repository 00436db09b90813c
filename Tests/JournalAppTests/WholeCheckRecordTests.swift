import Foundation
import Glibc
import JournalCore
import JournalCrypto
import JournalTestSupport
import Testing

@testable import JournalApp
@testable import JournalStore

/// The last whole check kept between commands in the runtime directory ("JRNLSUMS",
/// SECURITY.md "The ledger"): written by a listing that checked the whole vault, 0600, and
/// used only as this vault's key wrote it. A record damaged, planted or of another vault is
/// not used, and the listing checks the whole vault as it would without one.
struct WholeCheckRecordTests {
  let runtime = TestRuntimeDirectory()
  let directory = TemporaryDirectory()
  let clock = TestClock(TestClock.reference)

  let context: AppContext

  init() {
    context = AppContext(
      now: clock.now, timeZone: TimeZone.gmt, random: SeededRandom(seed: 9),
      kdfPolicy: TestKDF.policy, environment: ["XDG_RUNTIME_DIR": runtime.path])
  }

  /// A vault of three sessions waiting for reflection; its path and keys.
  func vault() throws -> (String, VaultKeys) {
    let path = directory.file("journal/vault.db")
    let journal = try JournalVault.create(
      at: path, passphrase: try AppFixture.secret(AppFixture.passphrase),
      limits: TestKDF.limits, context: context)
    for _ in 0..<3 {
      _ = try journal.save(
        SessionDraft(
          id: context.newSessionID(), date: clock.read(), treatment: .psilocybin,
          intention: "to be open", moodBefore: Mood(5)))
    }
    let keys = try VaultKeys.open(
      header: try Vault.open(at: path).header,
      passphrase: try AppFixture.secret(AppFixture.passphrase), policy: TestKDF.policy)
    return (path, keys)
  }

  func waiting(_ path: String) throws -> Int {
    let journal = try JournalVault.open(at: path, context: context, check: .listing) {
      try AppFixture.secret(AppFixture.passphrase)
    }
    return try journal.list(needsReflection: true).sessions.count
  }

  @Test func aListingKeepsItsCheckAndTheNextUsesIt() throws {
    let (path, keys) = try vault()
    let record = try #require(WholeCheckRecord(environment: context.environment, keys: keys))
    #expect(record.read() == nil)
    #expect(try waiting(path) == 3)
    var info = stat()
    #expect(lstat(record.path, &info) == 0)
    #expect(info.st_mode & 0o777 == 0o600)
    #expect(info.st_size == WholeCheckRecord.fixedBytes)
    let kept = try #require(record.read())
    #expect(kept.undone.isEmpty)
    // Written back byte for byte, and read back the same.
    let bytes = try #require(FileManager.default.contents(atPath: record.path))
    #expect(record.parse(Array(bytes)) == kept)
    #expect(try waiting(path) == 3)
    #expect(record.read() == kept)
  }

  /// Every byte changed in turn, the record cut short or grown, another vault's key, a
  /// symbolic link and a file others can read: none is used, and the next listing checks the
  /// whole vault and keeps its own check again.
  @Test func aRecordNotThisKeysIsNotUsed() throws {
    let (path, keys) = try vault()
    let record = try #require(WholeCheckRecord(environment: context.environment, keys: keys))
    #expect(try waiting(path) == 3)
    let good = Array(try #require(FileManager.default.contents(atPath: record.path)))
    for index in good.indices {
      var bad = good
      bad[index] ^= 0x01
      #expect(record.parse(bad) == nil, "byte \(index)")
    }
    #expect(record.parse(Array(good.dropLast())) == nil)
    #expect(record.parse(good + [0]) == nil)
    let other = try VaultKeys.fresh(vaultID: keys.vaultID, random: SeededRandom(seed: 3))
    #expect(WholeCheckRecord(environment: context.environment, keys: other)?.parse(good) == nil)

    try Data(good).write(to: URL(fileURLWithPath: record.path + ".elsewhere"))
    unlink(record.path)
    #expect(symlink(record.path + ".elsewhere", record.path) == 0)
    #expect(record.read() == nil)
    #expect(try waiting(path) == 3)
    var info = stat()
    #expect(lstat(record.path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG)

    #expect(chmod(record.path, 0o644) == 0)
    #expect(record.read() == nil)
    var bad = good
    bad[70] ^= 0x01
    unlink(record.path)
    try VaultWitness.replace(record.path, with: bad)
    #expect(record.read() == nil)
    #expect(try waiting(path) == 3)
    #expect(record.read() != nil)
  }
}
