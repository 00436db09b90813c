/// What the vault stores in the clear to find its key again: the Argon2id salt and limits,
/// and the data key sealed under the passphrase's key. See SECURITY.md, "Key header".
public struct KeyHeader: Hashable, Sendable {
  /// 16 random bytes naming this vault; sealed together with the data key, so a header
  /// pasted from another vault is detected.
  public let vaultID: [UInt8]
  public let limits: KDFLimits
  public let salt: [UInt8]
  /// nonce (24) ‖ secretbox(vaultID ‖ dataKey) (16 + 48) = 88 bytes.
  public let wrappedKey: [UInt8]

  public static let vaultIDBytes = 16
  public static let wrappedKeyBytes = SecretBox.overhead + vaultIDBytes + SecretBox.keyBytes

  public init(vaultID: [UInt8], limits: KDFLimits, salt: [UInt8], wrappedKey: [UInt8]) {
    self.vaultID = vaultID
    self.limits = limits
    self.salt = salt
    self.wrappedKey = wrappedKey
  }

  /// Whether every field has its fixed length.
  public var isWellFormed: Bool {
    vaultID.count == Self.vaultIDBytes && salt.count == KeyDerivation.saltBytes
      && wrappedKey.count == Self.wrappedKeyBytes
  }
}
