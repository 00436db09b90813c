import CSodium

/// The unlocked keys of one vault: the random data key and the record key derived from it.
///
/// The passphrase only ever wraps the data key, so changing it re-wraps 32 bytes and
/// re-encrypts no record.
public final class VaultKeys: Sendable {
  /// The vault these keys belong to.
  public let vaultID: [UInt8]
  private let dataKey: SecureBytes
  /// Seals the sessions' columns (crypto_kdf subkey 1, context "jrnl-rec").
  public let recordKey: SecureBytes
  /// Seals drafts (crypto_kdf subkey 2, context "jrnl-drf").
  public let draftKey: SecureBytes
  /// Authenticates the vault's ledger and this machine's record of it (crypto_kdf subkey 3,
  /// context "jrnl-led").
  public let ledgerKey: SecureBytes
  /// Seals what the sync server holds and authenticates its chain of changes (crypto_kdf
  /// subkey 5, context "jrnl-syn"): the server never has it (SECURITY.md, "Sync").
  public let syncKey: SecureBytes
  /// Fingerprints field values, so that sync can tell which fields changed here since the
  /// last sync without keeping a second copy of them (crypto_kdf subkey 6, "jrnl-fpr").
  public let fingerprintKey: SecureBytes
  /// The public half of the sealing key pair, which additions written without the
  /// passphrase are sealed to (SealedBox). Not secret: the vault stores it in the clear.
  public let sealingPublicKey: [UInt8]
  /// The secret half: X25519 from `crypto_box_seed_keypair` with crypto_kdf subkey 4
  /// (context "jrnl-sea") as the seed, so it exists only where the data key does.
  private let sealingSecretKey: SecureBytes

  private init(vaultID: [UInt8], dataKey: SecureBytes) throws(CryptoError) {
    self.vaultID = vaultID
    self.dataKey = dataKey
    // The subkeys, the seed and the secret key in one guarded allocation (SecureBytes.parts).
    let key = SecretBox.keyBytes
    let parts = try SecureBytes.parts([
      key, key, key, key, key, key, Int(crypto_box_SECRETKEYBYTES),
    ])
    self.recordKey = Self.subkey(of: dataKey, id: 1, context: "jrnl-rec", into: parts[0])
    self.draftKey = Self.subkey(of: dataKey, id: 2, context: "jrnl-drf", into: parts[1])
    self.ledgerKey = Self.subkey(of: dataKey, id: 3, context: "jrnl-led", into: parts[2])
    self.syncKey = Self.subkey(of: dataKey, id: 5, context: "jrnl-syn", into: parts[3])
    self.fingerprintKey = Self.subkey(of: dataKey, id: 6, context: "jrnl-fpr", into: parts[4])
    let seed = Self.subkey(of: dataKey, id: 4, context: "jrnl-sea", into: parts[5])
    defer { seed.wipe() }
    let secret = parts[6]
    var publicKey = [UInt8](repeating: 0, count: Int(crypto_box_PUBLICKEYBYTES))
    let status = publicKey.withUnsafeMutableBytes { pk in
      secret.withUnsafeMutableBytes { sk in
        seed.withUnsafeBytes { seed in crypto_box_seed_keypair(pk.bytes, sk.bytes, seed.bytes) }
      }
    }
    guard status == 0 else { throw .keyDerivationFailed }
    self.sealingPublicKey = publicKey
    self.sealingSecretKey = secret
  }

  /// Lends the sealing key pair (public, secret), for opening sealed additions.
  func withSealingKeys<R>(
    _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> R
  ) rethrows -> R {
    try sealingPublicKey.withUnsafeBytes { pk in
      try sealingSecretKey.withUnsafeBytes { sk in try body(pk, sk) }
    }
  }

  /// Makes a new vault's keys: a random data key wrapped under `passphrase`.
  public static func create(
    passphrase: SecureBytes, limits: KDFLimits, random: some RandomSource
  ) throws(CryptoError) -> (VaultKeys, KeyHeader) {
    try Sodium.ready()
    let vaultID = random.bytes(KeyHeader.vaultIDBytes)
    let dataKey = try SecureBytes(count: SecretBox.keyBytes)
    dataKey.withUnsafeMutableBytes { random.fill($0) }
    let keys = try VaultKeys(vaultID: vaultID, dataKey: dataKey)
    let header = try keys.wrap(passphrase: passphrase, limits: limits, random: random)
    return (keys, header)
  }

  /// A new random data key for the vault `vaultID` (a key rotation).
  public static func fresh(vaultID: [UInt8], random: some RandomSource) throws(CryptoError)
    -> VaultKeys
  {
    try Sodium.ready()
    let dataKey = try SecureBytes(count: SecretBox.keyBytes)
    dataKey.withUnsafeMutableBytes { random.fill($0) }
    return try VaultKeys(vaultID: vaultID, dataKey: dataKey)
  }

  /// Unwraps the data key with `passphrase`, after checking the header's limits.
  public static func open(
    header: KeyHeader, passphrase: SecureBytes, policy: KDFPolicy
  ) throws(CryptoError) -> VaultKeys {
    let kek = try keyEncryptionKey(header: header, passphrase: passphrase, policy: policy)
    // A wrong passphrase and a damaged wrapped key look the same here: the MAC fails.
    return try unwrap(header.wrappedKey, kek: kek, vaultID: header.vaultID, wrong: .wrongPassphrase)
  }

  /// During a key rotation: the old data key from the header and the new one from
  /// `rotation` (wrapped under the same passphrase, salt and limits), with one derivation.
  public static func open(
    header: KeyHeader, passphrase: SecureBytes, policy: KDFPolicy, rotation: [UInt8]
  ) throws(CryptoError) -> (old: VaultKeys, new: VaultKeys) {
    let kek = try keyEncryptionKey(header: header, passphrase: passphrase, policy: policy)
    let old = try unwrap(
      header.wrappedKey, kek: kek, vaultID: header.vaultID, wrong: .wrongPassphrase)
    guard rotation.count == KeyHeader.wrappedKeyBytes else { throw .integrity }
    let new = try unwrap(rotation, kek: kek, vaultID: header.vaultID, wrong: .integrity)
    return (old, new)
  }

  /// The key-encryption key of a header, after checking its limits.
  private static func keyEncryptionKey(
    header: KeyHeader, passphrase: SecureBytes, policy: KDFPolicy
  ) throws(CryptoError) -> SecureBytes {
    try Sodium.ready()
    // Checked before deriving: the limits decide how much memory Argon2id takes.
    try policy.check(header.limits)
    guard header.isWellFormed else { throw .integrity }
    return try KeyDerivation.deriveKey(
      passphrase: passphrase, salt: header.salt, limits: header.limits)
  }

  /// The start of a key rotation: this (old) key and `new` wrapped under `passphrase` with
  /// one fresh salt, so that either opens with it until the rotation is finished.
  public func wrap(
    passphrase: SecureBytes, limits: KDFLimits, alongside new: VaultKeys,
    random: some RandomSource
  ) throws(CryptoError) -> (header: KeyHeader, rotation: [UInt8]) {
    precondition(new.vaultID == vaultID, "a rotation keeps the vault id")
    let salt = random.bytes(KeyDerivation.saltBytes)
    let kek = try KeyDerivation.deriveKey(passphrase: passphrase, salt: salt, limits: limits)
    let header = KeyHeader(
      vaultID: vaultID, limits: limits, salt: salt, wrappedKey: try wrap(kek: kek, random: random))
    return (header, try new.wrap(kek: kek, random: random))
  }

  /// Following a key change made on another device: this (old) key wrapped under the
  /// key-encryption key of `header` (the new key's, made there) for `passphrase`, so that
  /// the vault opens with that passphrase alone while the change is carried through here,
  /// and ends with `header` itself.
  public func wrap(
    passphrase: SecureBytes, beside header: KeyHeader, policy: KDFPolicy,
    random: some RandomSource
  ) throws(CryptoError) -> KeyHeader {
    precondition(header.vaultID == vaultID, "a rotation keeps the vault id")
    let kek = try Self.keyEncryptionKey(header: header, passphrase: passphrase, policy: policy)
    return KeyHeader(
      vaultID: vaultID, limits: header.limits, salt: header.salt,
      wrappedKey: try wrap(kek: kek, random: random))
  }

  /// Unwraps the data key from a recovery slot (`wrapRecovery`) with the recovery code.
  public static func open(
    recoverySlot: [UInt8], vaultID: [UInt8], code: RecoveryCode
  ) throws(CryptoError) -> VaultKeys {
    try Sodium.ready()
    guard recoverySlot.count == KeyHeader.wrappedKeyBytes else { throw .integrity }
    return try unwrap(
      recoverySlot, kek: try code.kek(vaultID: vaultID), vaultID: vaultID,
      wrong: .wrongRecoveryCode)
  }

  /// Opens `vault_id ‖ data_key` sealed under `kek`; `wrong` when it does not open, and
  /// `vaultMismatch` when it holds another vault's id.
  private static func unwrap(
    _ wrapped: [UInt8], kek: SecureBytes, vaultID: [UInt8], wrong: CryptoError
  ) throws(CryptoError) -> VaultKeys {
    let plain = try SecureBytes(count: KeyHeader.vaultIDBytes + SecretBox.keyBytes)
    do {
      let output = plain.withUnsafeMutableBytes { $0 }
      try wrapped.withUnsafeBytes { sealed in
        try SecretBox.open(sealed, key: kek, into: output)
      }
    } catch {
      throw wrong
    }
    let storedID = plain.withUnsafeBytes { Array($0.prefix(KeyHeader.vaultIDBytes)) }
    guard storedID == vaultID else { throw .vaultMismatch }
    let dataKey = try SecureBytes(count: SecretBox.keyBytes)
    dataKey.withUnsafeMutableBytes { out in
      plain.withUnsafeBytes { src in
        out.copyMemory(from: UnsafeRawBufferPointer(rebasing: src[KeyHeader.vaultIDBytes...]))
      }
    }
    return try VaultKeys(vaultID: vaultID, dataKey: dataKey)
  }

  /// Keys from a data key handed over by the unlock agent (already checked by whoever
  /// unwrapped it).
  public static func restore(vaultID: [UInt8], dataKey: SecureBytes) throws(CryptoError)
    -> VaultKeys
  {
    guard vaultID.count == KeyHeader.vaultIDBytes, dataKey.count == SecretBox.keyBytes else {
      throw .integrity
    }
    return try VaultKeys(vaultID: vaultID, dataKey: dataKey)
  }

  /// Lends the raw data key, for handing it to the unlock agent.
  public func withDataKey<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
    try dataKey.withUnsafeBytes { try body($0) }
  }

  /// Wraps the data key under a (new) passphrase with a fresh salt: what `passwd` stores.
  public func wrap(
    passphrase: SecureBytes, limits: KDFLimits, random: some RandomSource
  ) throws(CryptoError) -> KeyHeader {
    let salt = random.bytes(KeyDerivation.saltBytes)
    let kek = try KeyDerivation.deriveKey(passphrase: passphrase, salt: salt, limits: limits)
    return KeyHeader(
      vaultID: vaultID, limits: limits, salt: salt, wrappedKey: try wrap(kek: kek, random: random))
  }

  /// The data key wrapped under a recovery code: the vault's recovery slot (88 bytes, laid
  /// out as `wrapped_key`).
  public func wrapRecovery(
    _ code: RecoveryCode, random: some RandomSource
  ) throws(CryptoError) -> [UInt8] {
    try wrap(kek: try code.kek(vaultID: vaultID), random: random)
  }

  /// nonce ‖ secretbox(vault_id ‖ data_key) under `kek`.
  private func wrap(kek: SecureBytes, random: some RandomSource) throws(CryptoError) -> [UInt8] {
    let plain = try SecureBytes(count: KeyHeader.vaultIDBytes + SecretBox.keyBytes)
    plain.withUnsafeMutableBytes { out in
      out.copyBytes(from: vaultID)
      dataKey.withUnsafeBytes { key in
        UnsafeMutableRawBufferPointer(rebasing: out[KeyHeader.vaultIDBytes...]).copyMemory(
          from: key)
      }
    }
    return plain.withUnsafeBytes { SecretBox.seal($0, key: kek, random: random) }
  }

  /// Derives crypto_kdf subkey `id` of `key` into `subkey` (32 bytes), and returns it.
  private static func subkey(
    of key: SecureBytes, id: UInt64, context: StaticString, into subkey: SecureBytes
  ) -> SecureBytes {
    precondition(context.utf8CodeUnitCount == Int(crypto_kdf_CONTEXTBYTES))
    precondition(subkey.count == SecretBox.keyBytes)
    // A StaticString's storage is static and never null; libsodium reads 8 bytes of it.
    let ctx = UnsafeRawPointer(context.utf8Start).assumingMemoryBound(to: CChar.self)
    subkey.withUnsafeMutableBytes { out in
      key.withUnsafeBytes { master in
        _ = crypto_kdf_derive_from_key(out.bytes, out.count, id, ctx, master.bytes)
      }
    }
    return subkey
  }
}
