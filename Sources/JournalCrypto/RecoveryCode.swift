import CSodium

/// A recovery code (SECURITY.md, "Recovery code"): 16 random bytes (128 bits), and a check
/// of 4 bytes so that a mistyped code is caught before any key work, written as 32 Crockford
/// base32 characters in eight groups of four: `7K3M-Q9TX-…`.
///
/// The code is a key in its own right, not a passphrase: with 128 random bits there is
/// nothing to guess at, so its key-encryption key is one BLAKE2b, not Argon2id (a guess
/// costs 2^-128 of the space whatever it costs to try).
public final class RecoveryCode: Sendable {
  public static let secretBytes = 16
  static let checkBytes = 4
  /// Crockford's base32: no I, L, O or U, so nothing is read as another letter.
  static let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ".utf8)

  private let secret: SecureBytes

  private init(secret: SecureBytes) {
    self.secret = secret
  }

  /// A new code from `random`.
  public static func generate(random: some RandomSource) throws(CryptoError) -> RecoveryCode {
    try Sodium.ready()
    let secret = try SecureBytes(count: secretBytes)
    secret.withUnsafeMutableBytes { random.fill($0) }
    return RecoveryCode(secret: secret)
  }

  /// The code a person typed: case, spaces and dashes do not matter, and I, L (as 1) and O
  /// (as 0) are read as Crockford reads them. Nil when it is not 32 such characters or its
  /// check does not hold (a typo).
  public static func parse(_ typed: SecureBytes) throws(CryptoError) -> RecoveryCode? {
    var value = [UInt8](repeating: 0, count: secretBytes + checkBytes)
    defer { wipe(&value) }
    var bits = 0
    var accumulator: UInt64 = 0
    var count = 0
    let valid = typed.withUnsafeBytes { text -> Bool in
      for byte in text {
        if byte == 0x20 || byte == 0x2D || byte == 0x09 { continue }  // space, dash, tab
        guard let digit = Self.digit(byte), count < 32 else { return false }
        count += 1
        accumulator = accumulator << 5 | UInt64(digit)
        bits += 5
        if bits >= 8 {
          bits -= 8
          value[(count * 5 - bits) / 8 - 1] = UInt8(truncatingIfNeeded: accumulator >> UInt64(bits))
        }
      }
      return count == 32
    }
    accumulator = 0
    guard valid else { return nil }
    let secret = try SecureBytes(copying: value[0..<secretBytes])
    let expected = check(secret)
    guard KeyedHash.same(Array(value[secretBytes...]), expected) else { return nil }
    return RecoveryCode(secret: secret)
  }

  /// The value of one typed character, or nil.
  private static func digit(_ byte: UInt8) -> UInt8? {
    var upper = byte >= 0x61 && byte <= 0x7A ? byte - 0x20 : byte
    switch upper {
    case 0x49, 0x4C: upper = 0x31  // I, L → 1
    case 0x4F: upper = 0x30  // O → 0
    default: break
    }
    return alphabet.firstIndex(of: upper).map { UInt8($0) }
  }

  /// The first 4 bytes of BLAKE2b-256("JRNLRCHK" ‖ 0x01 ‖ secret).
  private static func check(_ secret: SecureBytes) -> [UInt8] {
    var message = Array("JRNLRCHK".utf8) + [1]
    secret.withUnsafeBytes { message.append(contentsOf: $0) }
    defer { wipe(&message) }
    return Array(KeyedHash.unkeyed(message).prefix(checkBytes))
  }

  /// The code as a person writes it down: eight groups of four, joined by dashes. In guarded
  /// memory until the caller shows it.
  public func text() throws(CryptoError) -> SecureBytes {
    var value = [UInt8]()
    value.reserveCapacity(Self.secretBytes + Self.checkBytes)
    secret.withUnsafeBytes { value.append(contentsOf: $0) }
    value += Self.check(secret)
    defer { wipe(&value) }
    let out = try SecureBytes(count: 32 + 7)
    out.withUnsafeMutableBytes { out in
      var position = 0
      for index in 0..<32 {
        let bit = index * 5
        let byte = bit / 8
        let high = UInt16(value[byte]) << 8 | UInt16(byte + 1 < value.count ? value[byte + 1] : 0)
        let digit = Int(high >> UInt16(11 - bit % 8) & 0x1F)
        if index > 0 && index % 4 == 0 {
          out[position] = 0x2D
          position += 1
        }
        out[position] = Self.alphabet[digit]
        position += 1
      }
    }
    return out
  }

  /// The key-encryption key of vault `vaultID`'s recovery slot:
  /// BLAKE2b-256(key = secret, message = "JRNLRCVY" ‖ 0x01 ‖ vault id).
  func kek(vaultID: [UInt8]) throws(CryptoError) -> SecureBytes {
    let hash = try KeyedHash(key: secret)
    hash.update(Array("JRNLRCVY".utf8) + [1] + vaultID)
    var derived = hash.finish()
    defer { wipe(&derived) }
    return try SecureBytes(copying: derived)
  }
}
