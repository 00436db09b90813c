import CSodium

/// What is written without the passphrase (SECURITY.md, "Sealed additions"): a plaintext
/// padded as the session columns are (to a multiple of 256 bytes) and sealed to the vault's
/// public sealing key with libsodium's `crypto_box_seal` (an ephemeral X25519 key, XSalsa20-
/// Poly1305): sealed = ephemeral public key (32) ‖ MAC (16) ‖ ciphertext. Anyone holding the
/// public key can seal; only the holder of the data key, from which the key pair is derived,
/// can open.
public enum SealedBox {
  public static let publicKeyBytes = Int(crypto_box_PUBLICKEYBYTES)
  /// What sealing adds to a padded plaintext's length.
  public static let overhead = Int(crypto_box_sealbytes())

  /// Pads `plaintext` and seals it to `publicKey`.
  public static func seal(
    _ plaintext: [UInt8], to publicKey: [UInt8]
  ) throws(CryptoError) -> [UInt8] {
    try Sodium.ready()
    guard publicKey.count == publicKeyBytes else { throw .integrity }
    let block = RecordCipher.paddingBlock
    let capacity = (plaintext.count / block + 1) * block
    let padded = try SecureBytes(count: capacity)
    var paddedCount = 0
    let status = padded.withUnsafeMutableBytes { buffer in
      buffer.copyBytes(from: plaintext)
      return sodium_pad(&paddedCount, buffer.bytes, plaintext.count, block, capacity)
    }
    guard status == 0 else { throw .malformedPlaintext }
    var sealed = [UInt8](repeating: 0, count: overhead + paddedCount)
    let sealedStatus = sealed.withUnsafeMutableBytes { out in
      padded.withUnsafeBytes { input in
        publicKey.withUnsafeBytes { key in
          crypto_box_seal(out.bytes, input.bytes, UInt64(paddedCount), key.bytes)
        }
      }
    }
    guard sealedStatus == 0 else { throw .integrity }
    return sealed
  }

  /// Opens `sealed` with the vault's key pair and hands the unpadded plaintext, in guarded
  /// memory valid only during the call, to `read`. A box that does not open (altered, or
  /// sealed to another key) and a padding that does not check out both throw.
  public static func open<R>(
    _ sealed: [UInt8], keys: VaultKeys, _ read: (UnsafeRawBufferPointer) throws -> R
  ) throws -> R {
    guard sealed.count >= overhead + RecordCipher.paddingBlock else {
      throw CryptoError.integrity
    }
    let count = sealed.count - overhead
    let plain = try SecureBytes(count: count)
    let status = plain.withUnsafeMutableBytes { out in
      sealed.withUnsafeBytes { input in
        keys.withSealingKeys { publicKey, secretKey in
          crypto_box_seal_open(
            out.bytes, input.bytes, UInt64(input.count), publicKey.bytes, secretKey.bytes)
        }
      }
    }
    guard status == 0 else { throw CryptoError.integrity }
    return try plain.withUnsafeBytes { padded in
      guard let unpadded = Padding.unpaddedCount(padded, block: RecordCipher.paddingBlock)
      else { throw CryptoError.malformedPlaintext }
      return try read(UnsafeRawBufferPointer(rebasing: padded[0..<unpadded]))
    }
  }
}
