import Foundation
import JournalAgent
import JournalCrypto
import JournalDiagnostics
import JournalDrafts
import JournalStorage
import JournalStore
import JournalSync
import JournalSystem

/// Changing the data key (`journal passwd --new-key`, SECURITY.md "Key rotation"): the use
/// case around the store's `KeyRotation`, which also moves what lives outside the vault file
/// to the new key: the draft files, this computer's record of the vault and the sealing pin;
/// and stops the unlock agent, which holds the old key.
enum KeyChange {
  /// Carries a begun or interrupted rotation through: drafts, sessions, sealed additions,
  /// the finish (with `recoverySlot`, wrapping the new key, or none), and the records
  /// outside the vault. How many sessions were re-sealed by this call.
  static func complete(
    _ rotation: KeyRotation, vault: Vault, path: String, context: AppContext,
    recoverySlot: [UInt8]?
  ) throws -> Int {
    let environment = context.environment
    // The unlock agents hold the old key, in every runtime directory (one started in
    // another session holds it as well): stopped before the change began, and again here, as
    // an interrupted change is finished (and as one may have started meanwhile), so that
    // nothing writes under the old key or keeps it. One that does not stop would outlive the
    // change; from here only the new passphrase opens the vault, and the error says so.
    do {
      try AgentClient.stopEverywhere(environment: environment, vaultID: rotation.old.vaultID)
    } catch let error as AgentError {
      throw AppError.keyChangeUnfinished(cause: Diagnosis(error))
    }
    // This computer's record is kept under the ledger key: moved to the new one, after the
    // old record (if it reads under the old key) has been compared with the vault.
    let witness = VaultWitness(vault: path, environment: environment, keys: rotation.new)
    let recordNow = {
      // With the entries, so that a session removed later is named, not only noticed.
      if let stamp = try vault.ledgerStampWithRows() { try witness?.record(stamp) }
    }
    // The record is under the new key once a change has begun (and recorded), else under the
    // old: either way, a vault older than it is refused before anything is written.
    if let stamp = try vault.ledgerStamp() {
      if let seen = try? witness?.read() {
        try VaultWitness.compare(seen: seen, found: stamp)
      } else if let seen = try? VaultWitness(
        vault: path, environment: environment, keys: rotation.old)?.read(),
        seen.generation > stamp.generation
      {
        throw AppError.olderThanSeen(seen: seen.generation, found: stamp.generation)
      }
    }
    try recordNow()
    CrashPoint.reached("key-change-begun", environment: environment)
    if let directory = try? DraftLocation.directory(environment: environment) {
      let old = try DraftStore(directory: directory, keys: rotation.old, random: context.random)
      let new = try DraftStore(directory: directory, keys: rotation.new, random: context.random)
      try old.reseal(into: new)
    }
    CrashPoint.reached("key-change-drafts", environment: environment)
    var batches = 0
    let count = try rotation.resealSessions { _ in
      batches += 1
      CrashPoint.reached("key-change-batch-\(batches)", environment: environment)
    }
    let store = try vault.sessions(keys: rotation.new, random: context.random)
    // Sealed to the old public key: opened now; any left or come meanwhile are sealed again
    // to the new key by `finish`.
    _ = try store.openAdditions(keys: rotation.old, now: context.now(), random: context.random)
    CrashPoint.reached("key-change-additions", environment: environment)
    try rotation.finish(recoverySlot: recoverySlot)
    CrashPoint.reached("key-change-finished", environment: environment)
    try recordNow()
    if try vault.sealing().publicKey != nil {
      try? SealingPin(vaultID: rotation.new.vaultID, environment: environment)?.record(
        rotation.new.sealingPublicKey)
    }
    return count
  }
}

extension JournalVault {
  /// What a key change did.
  public struct KeyChanged {
    /// Sessions re-sealed under the new key.
    public let sessions: Int
    /// The new recovery code, when the journal had one (the old one wrapped the old key).
    public let recoveryCode: RecoveryCodes.Text?
    /// On a journal that syncs, the sessions sealed again under the new key on the server
    /// (which now holds only those); nil when it does not sync.
    public var serverSessions: Int?
    /// On a journal that syncs, what the sync made first (under the old key) did.
    public var synced: SyncReport?
  }

  /// A new data key under a new passphrase: every session, the trash, the drafts and the
  /// sealing key moved to it, resumable after a crash at any point. The recovery code, if
  /// there was one, is made anew.
  ///
  /// On a journal that syncs, `send` is handed the new keys and the key header they end
  /// with (the new key under the new passphrase) before anything changes here, replaces the
  /// server's copy, and says where this device's place in the server's chain moves to: it
  /// moves there in the transaction that begins the change here.
  public func changeKey(
    to passphrase: SecureBytes, limits: KDFLimits? = nil,
    send: ((VaultKeys, KeyHeader) throws -> SyncPosition)? = nil
  ) throws -> KeyChanged {
    let limits = limits ?? file.header.limits
    try context.kdfPolicy.check(limits)
    // Before the server's copy or this one changes.
    try AgentClient.stopEverywhere(environment: context.environment, vaultID: unlockedKeys.vaultID)
    let hadRecovery = try file.recoverySlot() != nil
    let new = try VaultKeys.fresh(vaultID: unlockedKeys.vaultID, random: context.random)
    let (header, wrapped) = try unlockedKeys.wrap(
      passphrase: passphrase, limits: limits, alongside: new, random: context.random)
    let ending = KeyHeader(
      vaultID: header.vaultID, limits: header.limits, salt: header.salt, wrappedKey: wrapped)
    let position = try send?(new, ending)
    let rotation = try KeyRotation.begin(
      file, old: unlockedKeys, new: new, header: header, rotation: wrapped, position: position,
      random: context.random)
    let code = hadRecovery ? try RecoveryCode.generate(random: context.random) : nil
    let count = try KeyChange.complete(
      rotation, vault: file, path: path, context: context,
      recoverySlot: try code.map { try new.wrapRecovery($0, random: context.random) })
    return KeyChanged(sessions: count, recoveryCode: try code.map { .init(bytes: try $0.text()) })
  }

  /// Follows a key change made on another device: `new` (from the server's header, `ending`,
  /// with its passphrase) replaces the key here, every session re-sealed under it, what sync
  /// agreed moved to it, and this device's place in the chain moved to `position`, in the
  /// same steps as `changeKey`. The vault ends with `ending` as its header. How many sessions
  /// were re-sealed, and whether a recovery code stopped working (it wrapped the old key).
  func followKey(
    _ new: VaultKeys, ending: KeyHeader, passphrase: SecureBytes, position: SyncPosition
  ) throws -> (sessions: Int, recoveryDropped: Bool) {
    try AgentClient.stopEverywhere(environment: context.environment, vaultID: unlockedKeys.vaultID)
    let hadRecovery = try file.recoverySlot() != nil
    let header = try unlockedKeys.wrap(
      passphrase: passphrase, beside: ending, policy: context.kdfPolicy, random: context.random)
    let rotation = try KeyRotation.begin(
      file, old: unlockedKeys, new: new, header: header, rotation: ending.wrappedKey,
      position: position, random: context.random)
    let count = try KeyChange.complete(
      rotation, vault: file, path: path, context: context, recoverySlot: nil)
    return (count, hadRecovery)
  }
}
