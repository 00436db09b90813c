import CSodium

/// `crypto_secretbox_easy` (XSalsa20-Poly1305) with a random nonce stored in front:
/// sealed = nonce (24) ‖ MAC (16) ‖ ciphertext.
public enum SecretBox {
  public static let keyBytes = Int(crypto_secretbox_KEYBYTES)
  public static let nonceBytes = Int(crypto_secretbox_NONCEBYTES)
  public static let macBytes = Int(crypto_secretbox_MACBYTES)
  /// What sealing adds to a plaintext's length.
  public static let overhead = nonceBytes + macBytes

  /// Seals `plaintext` under `key` with a fresh 24-byte nonce from `random`. Random nonces
  /// are safe at this size: 2^-96 collision odds after 2^32 messages under one key.
  public static func seal(
    _ plaintext: UnsafeRawBufferPointer, key: SecureBytes, random: any RandomSource
  ) -> [UInt8] {
    var sealed = [UInt8](repeating: 0, count: overhead + plaintext.count)
    sealed.withUnsafeMutableBytes { out in
      random.fill(UnsafeMutableRawBufferPointer(rebasing: out[0..<nonceBytes]))
      let base = out.bytes
      key.withUnsafeBytes { k in
        _ = crypto_secretbox_easy(
          base + nonceBytes, plaintext.bytes,
          UInt64(plaintext.count), base, k.bytes)
      }
    }
    return sealed
  }

  /// The plaintext length of a sealed value, or nil when it is too short to be one.
  public static func plaintextCount(of sealed: some Collection<UInt8>) -> Int? {
    sealed.count >= overhead ? sealed.count - overhead : nil
  }

  /// Opens `sealed` into `output` (which must hold `plaintextCount(of:)` bytes).
  public static func open(
    _ sealed: UnsafeRawBufferPointer, key: SecureBytes, into output: UnsafeMutableRawBufferPointer
  ) throws(CryptoError) {
    guard sealed.count >= overhead, output.count >= sealed.count - overhead else {
      throw .integrity
    }
    let input = sealed.bytes
    let status = key.withUnsafeBytes { k in
      crypto_secretbox_open_easy(
        output.bytes, input + nonceBytes,
        UInt64(sealed.count - nonceBytes), input, k.bytes
      )
    }
    guard status == 0 else { throw .integrity }
  }
}
