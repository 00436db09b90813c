/// Failures of the cryptographic layer. None carries key material or plaintext.
public enum CryptoError: Error, Equatable, Sendable {
  /// libsodium could not be initialised (no entropy source, or a broken install).
  case sodiumUnavailable
  /// Guarded memory could not be allocated (locked-memory limit reached).
  case secureMemoryUnavailable(bytes: Int)
  /// The key-derivation function failed, usually for want of memory.
  case keyDerivationFailed
  /// Stored Argon2id limits outside what this tool accepts: a damaged or tampered vault.
  case kdfLimitsOutOfRange(opsLimit: UInt64, memLimit: UInt64)
  /// The passphrase does not unwrap the data key (or the wrapped key itself is damaged).
  case wrongPassphrase
  /// The recovery code does not unwrap the data key (another code, made before this one was,
  /// or a damaged slot).
  case wrongRecoveryCode
  /// The key unwrapped but belongs to another vault: the header has been tampered with.
  case vaultMismatch
  /// A ciphertext failed authentication: damaged, truncated, or moved from elsewhere.
  case integrity
  /// A decrypted record is not in a format this version knows.
  case malformedPlaintext
}
