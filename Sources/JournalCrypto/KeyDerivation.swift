import CSodium

/// Passphrase → key-encryption key, with Argon2id.
public enum KeyDerivation {
  /// Bytes of salt stored in the vault (`crypto_pwhash_SALTBYTES`).
  public static let saltBytes = Int(crypto_pwhash_SALTBYTES)

  /// Derives a 32-byte key from `passphrase` into guarded memory.
  public static func deriveKey(
    passphrase: SecureBytes, salt: [UInt8], limits: KDFLimits
  ) throws(CryptoError) -> SecureBytes {
    precondition(salt.count == saltBytes, "salt must be \(saltBytes) bytes")
    let key = try SecureBytes(count: SecretBox.keyBytes)
    let status = key.withUnsafeMutableBytes { out in
      passphrase.withUnsafeBytes { pass in
        crypto_pwhash(
          out.bytes, UInt64(out.count),
          UnsafeRawPointer(pass.bytes).assumingMemoryBound(to: CChar.self), UInt64(pass.count),
          salt, limits.opsLimit, Int(limits.memLimit), crypto_pwhash_ALG_ARGON2ID13)
      }
    }
    guard status == 0 else { throw .keyDerivationFailed }
    return key
  }
}
