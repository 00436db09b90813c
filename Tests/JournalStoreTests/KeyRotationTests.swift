import Foundation
import GRDB
import JournalCore
import JournalCrypto
import JournalStorage
import JournalStore
import JournalTestSupport
import Testing

/// Changing the data key: every row re-sealed under the new key, a batch a transaction,
/// resumable from any point; the ledger holds throughout and the header swaps at the end.
struct KeyRotationTests {
  static let newPassphrase = "a passphrase after the leak"

  /// A vault with `count` sessions, one of them in the trash, and a rotation begun;
  /// `before` runs just before the first session goes to the trash.
  static func begun(
    count: Int, before: (StoreFixture, [Session]) throws -> Void = { _, _ in }
  ) throws -> (StoreFixture, KeyRotation, [Session]) {
    let f = try StoreFixture()
    try f.store.setSealing(publicKey: f.keys.sealingPublicKey)
    var sessions: [Session] = []
    for seed in 1...count {
      let session = try f.session(seed: UInt8(seed), reflection: seed % 2 == 0 ? "R\(seed)" : nil)
      try f.store.upsert(session)
      sessions.append(session)
    }
    try before(f, sessions)
    try f.store.trash([sessions[0].id], now: TestClock.reference, purgeAfter: .distantFuture)
    let new = try VaultKeys.fresh(vaultID: f.keys.vaultID, random: f.random)
    let (header, wrapped) = try f.keys.wrap(
      passphrase: try SecureBytes(copying: Array(newPassphrase.utf8)), limits: TestKDF.limits,
      alongside: new, random: f.random)
    let rotation = try KeyRotation.begin(
      f.vault, old: f.keys, new: new, header: header, rotation: wrapped, random: f.random)
    return (f, rotation, Array(sessions.dropFirst()))
  }

  /// Stopped after the first batch (a crash), then resumed by a new process with the keys
  /// the new passphrase gives: every session and the trash open under the new key only.
  @Test func resumedAfterACrashMidway() throws {
    // Given a rotation begun and one batch of one row re-sealed, then abandoned
    let (f, first, sessions) = try Self.begun(count: 5)
    var batches = 0
    struct Crash: Error {}
    #expect(throws: Crash.self) {
      try first.resealSessions(batch: 1) { _ in
        batches += 1
        throw Crash()
      }
    }
    #expect(batches == 1)
    // When a later opening derives both keys from the new passphrase and goes on
    let vault = try Vault.open(at: f.path)
    let rotating = try #require(try vault.rotationKey())
    let (old, new) = try VaultKeys.open(
      header: vault.header, passphrase: try SecureBytes(copying: Array(Self.newPassphrase.utf8)),
      policy: TestKDF.policy, rotation: rotating)
    #expect(old.recordKey.isEqual(to: f.keys.recordKey))
    let rotation = try KeyRotation.resume(vault, old: old, new: new, random: f.random)
    #expect(try rotation.resealSessions(batch: 2) == 3, "the rows after the cursor")
    try rotation.finish(recoverySlot: nil)
    // Then
    #expect(try vault.rotationKey() == nil)
    let store = try vault.sessions(keys: new, random: f.random)
    for session in sessions { #expect(try store.session(session.id) == session) }
    let restored = try #require(try vault.undo(nil, now: TestClock.reference + 1))
    #expect(try store.session(restored.ids[0]).intention == "INTENTION-WORDS", "the trash too")
    let reopened = try VaultKeys.open(
      header: try Vault.open(at: f.path).header,
      passphrase: try SecureBytes(copying: Array(Self.newPassphrase.utf8)), policy: TestKDF.policy)
    #expect(reopened.recordKey.isEqual(to: new.recordKey))
    #expect(throws: (any Error).self) { try vault.sessions(keys: f.keys, random: f.random) }
  }

  /// From `begin` on, the old passphrase opens nothing, and a process still holding the old
  /// key is refused at its next write by the ledger (now under the new key).
  @Test func oldKeyHoldersAreRefused() throws {
    let (f, _, sessions) = try Self.begun(count: 3)
    #expect(throws: CryptoError.wrongPassphrase) {
      try VaultKeys.open(
        header: try Vault.open(at: f.path).header,
        passphrase: try SecureBytes(copying: Array(StoreFixture.passphrase.utf8)),
        policy: TestKDF.policy)
    }
    #expect(throws: StoreError.self) {
      try f.store.update(sessions[0].id) { try $0.apply(.music("late"), now: TestClock.reference) }
    }
  }

  /// Sealed additions (to the old public key) are opened before the swap; one left waiting
  /// (its session in the trash) is sealed again to the new key by `finish`, and opens under
  /// it once its session is back.
  @Test func additionsComeThrough() throws {
    // Later fields for the session that then goes to the trash (seed 1): they wait for it.
    var inTrash: SessionID?
    let (f, rotation, _) = try Self.begun(count: 3) { f, sessions in
      inTrash = sessions[0].id
      try f.vault.addSealed(
        .later, id: sessions[0].id, completes: false, at: TestClock.reference,
        box: try SealedBox.seal(
          RecordCodec.encodeLaterAddition([.music("MUSIC-LATER")], at: TestClock.reference),
          to: f.keys.sealingPublicKey), sealedTo: f.keys.sealingPublicKey)
    }
    let fresh = try f.session(seed: 40, reflection: nil)
    try f.vault.addSealed(
      .new, id: fresh.id, completes: false, at: TestClock.reference,
      box: try SealedBox.seal(RecordCodec.encodeNewAddition(fresh), to: f.keys.sealingPublicKey),
      sealedTo: f.keys.sealingPublicKey)
    try rotation.resealSessions()
    let store = try f.vault.sessions(keys: rotation.new, random: f.random)
    #expect(
      try store.openAdditions(
        keys: rotation.old, now: TestClock.reference, random: SeededRandom(seed: 9)
      ).added == [fresh.id])
    #expect(try f.vault.sealedCount() == 1, "the later fields wait for their session")
    try rotation.finish(recoverySlot: nil)
    #expect(try f.vault.sealing().publicKey == rotation.new.sealingPublicKey)
    #expect(try store.session(fresh.id).intention == fresh.intention)
    #expect(try f.vault.undo(nil, now: TestClock.reference + 1) != nil)
    let later = try store.openAdditions(
      keys: rotation.new, now: TestClock.reference + 2, random: SeededRandom(seed: 9))
    let id = try #require(inTrash)
    #expect(later.updated == [id] && later.damaged.isEmpty)
    #expect(try store.session(id).music == "MUSIC-WORDS\n\nMUSIC-LATER", "added after its own")
  }

  /// A journal that opened the vault before the rotation began cannot put its key back:
  /// its passphrase change, recovery slot and sealing key are refused, and change nothing.
  @Test func earlierOpenersCannotPutTheOldKeyBack() throws {
    var earlier: Vault?
    var earlierStore: SessionStore?
    var oldHeader: KeyHeader?
    let (f, rotation, _) = try Self.begun(count: 2) { f, _ in
      earlier = try Vault.open(at: f.path)
      earlierStore = try earlier?.sessions(keys: f.keys, random: f.random)
      oldHeader = try f.keys.wrap(
        passphrase: try SecureBytes(copying: Array("the leaked one, again".utf8)),
        limits: TestKDF.limits, random: f.random)
    }
    let vault = try #require(earlier)
    let store = try #require(earlierStore)
    let header = try #require(oldHeader)
    #expect(throws: StoreError.keyChanged) { try vault.replaceHeader(header) }
    // Keyed writes under the old key: its ledger key no longer checks the vault.
    #expect(throws: StoreError.self) {
      try store.setRecoverySlot([UInt8](repeating: 1, count: 88))
    }
    #expect(throws: StoreError.self) { try store.setSealing(publicKey: nil) }
    #expect(throws: StoreError.keyChanged) {
      try vault.repairSealing(publicKey: f.keys.sealingPublicKey)
    }
    try rotation.resealSessions()
    try rotation.finish(recoverySlot: nil)
    #expect(throws: StoreError.keyChanged) { try vault.replaceHeader(header) }
    let now = try Vault.open(at: f.path)
    #expect(now.header.wrappedKey != header.wrappedKey)
    #expect(try now.sealing().publicKey == rotation.new.sealingPublicKey)
  }

  /// An undo during the rotation brings back a row already under the new key (the trash was
  /// sealed again at `begin`): it opens after the rotation, wherever the cursor was.
  @Test func undoDuringTheRotation() throws {
    let (f, rotation, _) = try Self.begun(count: 4)
    try rotation.resealSessions()
    let restored = try #require(try f.vault.undo(nil, now: TestClock.reference + 1))
    try rotation.finish(recoverySlot: nil)
    let store = try f.vault.sessions(keys: rotation.new, random: f.random)
    #expect(try store.session(restored.ids[0]).intention == "INTENTION-WORDS")
  }
}
