import CSodium

/// Argon2id cost parameters (`crypto_pwhash` with `crypto_pwhash_ALG_ARGON2ID13`).
public struct KDFLimits: Hashable, Sendable {
  /// Passes over memory.
  public let opsLimit: UInt64
  /// Memory in bytes.
  public let memLimit: UInt64

  public init(opsLimit: UInt64, memLimit: UInt64) {
    self.opsLimit = opsLimit
    self.memLimit = memLimit
  }

  /// libsodium's INTERACTIVE: 2 passes, 64 MiB. The lowest a user may choose.
  public static let interactive = KDFLimits(
    opsLimit: UInt64(crypto_pwhash_argon2id_OPSLIMIT_INTERACTIVE),
    memLimit: UInt64(crypto_pwhash_argon2id_MEMLIMIT_INTERACTIVE))
  /// libsodium's MODERATE: 3 passes, 256 MiB. The default: about a second here, and a
  /// GPU attacker pays 256 MiB of memory per guess in flight.
  public static let moderate = KDFLimits(
    opsLimit: UInt64(crypto_pwhash_argon2id_OPSLIMIT_MODERATE),
    memLimit: UInt64(crypto_pwhash_argon2id_MEMLIMIT_MODERATE))
  /// libsodium's SENSITIVE: 4 passes, 1 GiB. The highest accepted from a vault.
  public static let sensitive = KDFLimits(
    opsLimit: UInt64(crypto_pwhash_argon2id_OPSLIMIT_SENSITIVE),
    memLimit: UInt64(crypto_pwhash_argon2id_MEMLIMIT_SENSITIVE))
  /// Argon2id's own minimum (1 pass, 8 KiB). For library tests only, never for a vault a
  /// person uses: a KDFPolicy must be built with this floor explicitly.
  public static let testingMinimum = KDFLimits(
    opsLimit: UInt64(crypto_pwhash_argon2id_OPSLIMIT_MIN),
    memLimit: UInt64(crypto_pwhash_argon2id_MEMLIMIT_MIN))
}

/// Which stored limits a vault may carry. Limits come from the vault file, which an attacker
/// may have edited: below the floor would let them cheapen a brute force of the passphrase
/// (a downgrade); above the ceiling would make us allocate without bound (a memory bomb).
public struct KDFPolicy: Hashable, Sendable {
  public let floor: KDFLimits
  public let ceiling: KDFLimits

  public init(floor: KDFLimits, ceiling: KDFLimits) {
    self.floor = floor
    self.ceiling = ceiling
  }

  /// What users get: INTERACTIVE to SENSITIVE.
  public static let standard = KDFPolicy(floor: .interactive, ceiling: .sensitive)

  /// Checks stored limits.
  public func check(_ limits: KDFLimits) throws(CryptoError) {
    guard (floor.opsLimit...ceiling.opsLimit).contains(limits.opsLimit),
      (floor.memLimit...ceiling.memLimit).contains(limits.memLimit)
    else { throw .kdfLimitsOutOfRange(opsLimit: limits.opsLimit, memLimit: limits.memLimit) }
  }
}
