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

  /// What `list` (`-n limit`) of a vault opened for listing shows.
  func newest(_ path: String, _ limit: Int?) throws -> [SessionID] {
    let journal = try JournalVault.open(at: path, context: context, check: .listing) {
      try AppFixture.secret(AppFixture.passphrase)
    }
    var filter = SessionFilter(now: clock.read())
    filter.limit = limit
    return try journal.list(filter).rows.rows.map(\.id)
  }

  @Test func aListingKeepsItsCheckAndTheNextUsesIt() throws {
    let (path, keys) = try vault()
    let record = try #require(
      WholeCheckRecord(
        vault: path, environment: context.environment, keys: keys,
        random: SeededRandom(seed: 4)))
    #expect(record.read() == nil)
    #expect(try waiting(path) == 3)
    var info = stat()
    #expect(lstat(record.path, &info) == 0)
    #expect(info.st_mode & 0o777 == 0o600)
    let kept = try #require(record.read())
    #expect(kept.undone.isEmpty && kept.newest.isEmpty)
    // Sealed: no id of a session is in it as it is.
    let bytes = Array(try #require(FileManager.default.contents(atPath: record.path)))
    #expect(bytes.count == 25 + SecretBox.overhead + WholeCheckRecord.fixedBody)
    #expect(try waiting(path) == 3)
    #expect(record.read() == kept)
    // Written again as the next check finds it, and read back the same.
    var newest = kept
    newest.newest = [
      WholeCheck.Newest(
        id: SessionID(randomBytes: [UInt8](repeating: 7, count: 16)), revision: 9,
        date: Date(timeIntervalSinceReferenceDate: 812_345_678.125))
    ]
    record.record(newest)
    #expect(record.read() == newest)
    let sealed = Array(try #require(FileManager.default.contents(atPath: record.path)))
    #expect(sealed.count == bytes.count + 32)
    #expect(!String(decoding: sealed, as: UTF8.self).contains("\u{07}\u{07}\u{07}\u{07}"))
  }

  /// `list -n` after a `list`: the newest the check kept, read at the revisions it saw, the
  /// same rows as the whole listing shows.
  @Test func theNewestKeptServeAListOfTheNewest() throws {
    let (path, keys) = try vault()
    let record = try #require(
      WholeCheckRecord(
        vault: path, environment: context.environment, keys: keys,
        random: SeededRandom(seed: 4)))
    let all = try newest(path, nil)
    #expect(all.count == 3)
    #expect(record.read()?.newest.map(\.id) == all)
    // A whole check of the same state that names no newest (as `tags` makes) keeps them.
    let summaries = try JournalVault.open(at: path, context: context, check: .listing) {
      try AppFixture.secret(AppFixture.passphrase)
    }
    #expect(try summaries.list(needsReflection: false).sessions.count == 3)
    #expect(record.read()?.newest.map(\.id) == all)
    #expect(try newest(path, 2) == Array(all.prefix(2)))
    #expect(try newest(path, 5) == all)
    // Served from the record as it names them (here, in an order only the key could write).
    var kept = try #require(record.read())
    kept.newest.reverse()
    record.record(kept)
    #expect(try newest(path, 2) == [all[2], all[1]])
  }

  /// A command about one session that writes (`new` here, opened as `journal new` opens)
  /// carries the kept check to its stamp, and the `list -n` after it is served from the
  /// record, the new session first; a command that only reads leaves the record as it was.
  @Test func aWriteCarriesTheKeptCheck() throws {
    let (path, keys) = try vault()
    let record = try #require(
      WholeCheckRecord(
        vault: path, environment: context.environment, keys: keys,
        random: SeededRandom(seed: 4)))
    let all = try newest(path, nil)
    let before = try #require(record.read())
    let point = try JournalVault.open(at: path, context: context, check: .point) {
      try AppFixture.secret(AppFixture.passphrase)
    }
    _ = try point.session(all[1])
    #expect(record.read() == before)
    // A listing of a vault opened otherwise (as `journal new` announces an arc) keeps
    // nothing: its check names no newest, and would drop those kept.
    #expect(try point.list(needsReflection: false).sessions.count == all.count)
    #expect(record.read() == before)
    let id = context.newSessionID()
    _ = try point.save(
      SessionDraft(
        id: id, date: clock.read() + 3_600, treatment: .psilocybin, intention: "to rest",
        moodBefore: Mood(6)))
    let carried = try #require(record.read())
    #expect(carried.generation > before.generation)
    #expect(carried.newest.map(\.id) == [id] + all)
    // Served from the record: here, in an order only the key could write, as it names it.
    var reordered = carried
    reordered.newest.swapAt(0, 1)
    record.record(reordered)
    #expect(try newest(path, 2) == [all[0], id])
    record.record(carried)
    #expect(try newest(path, 2) == [id, all[0]])
    #expect(try newest(path, nil) == [id] + all)
  }

  /// Every byte changed in turn, the record cut short or grown, another vault's key, a
  /// symbolic link and a file others can read: none is used, and the next listing checks the
  /// whole vault and keeps its own check again.
  @Test func aRecordNotThisKeysIsNotUsed() throws {
    let (path, keys) = try vault()
    let record = try #require(
      WholeCheckRecord(
        vault: path, environment: context.environment, keys: keys,
        random: SeededRandom(seed: 4)))
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
    #expect(
      WholeCheckRecord(
        vault: path, environment: context.environment, keys: other,
        random: SeededRandom(seed: 4))?.parse(good)
        == nil)

    try Data(good).write(to: URL(fileURLWithPath: record.path + ".elsewhere"))
    unlink(record.path)
    #expect(symlink(record.path + ".elsewhere", record.path) == 0)
    #expect(record.read() == nil)
    #expect(try waiting(path) == 3)
    var info = stat()
    #expect(lstat(record.path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG)

    #expect(chmod(record.path, 0o644) == 0)
    #expect(record.read() == nil)
    // A FIFO in its place: not waited on.
    unlink(record.path)
    #expect(mkfifo(record.path, 0o600) == 0)
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
