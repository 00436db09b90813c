import CSodium

/// Seals and opens the encrypted columns of a session row, each bound to its place.
///
/// secretbox has no associated data, so the binding is in the key: every (session, column)
/// gets its own key, BLAKE2b-256 keyed with the record key over session id (16) ‖ column (1).
/// A ciphertext copied into another row or another column is opened with the wrong key and
/// fails authentication, exactly like a flipped bit.
///
/// Plaintexts are padded with ISO/IEC 7816-4 (`sodium_pad`) to a multiple of 256 bytes, so
/// the stored length tells only roughly how much was written.
public final class RecordCipher {
  /// The encrypted columns of a session row.
  public enum Column: UInt8, Sendable {
    /// Date, treatment, moods, status, times: what lists need.
    case summary = 1
    /// Dose and the long texts: read only to show a session.
    case body = 2
    /// An unsaved draft's fields, sealed under the draft key (not a vault column).
    case draft = 3
  }

  public static let paddingBlock = 256

  private let recordKey: SecureBytes
  private let random: any RandomSource
  /// Reused guarded memory for decrypted plaintexts, grown as needed and wiped on release.
  private var scratch: SecureBytes
  private let columnKey: SecureBytes

  /// A cipher for the vault's session columns (under the record key).
  public convenience init(keys: VaultKeys, random: some RandomSource) throws(CryptoError) {
    try self.init(key: keys.recordKey, random: random)
  }

  /// A cipher under any of the vault's subkeys (the draft key for drafts).
  public init(key: SecureBytes, random: some RandomSource) throws(CryptoError) {
    self.recordKey = key
    self.random = random
    self.scratch = try SecureBytes(count: 4096)
    self.columnKey = try SecureBytes(count: SecretBox.keyBytes)
  }

  /// Pads and seals `plaintext` for `column` of session `id`.
  public func seal(
    _ plaintext: [UInt8], id: [UInt8], column: Column
  ) throws(CryptoError) -> [UInt8] {
    try deriveColumnKey(id: id, column: column)
    let block = Self.paddingBlock
    let capacity = (plaintext.count / block + 1) * block
    let padded = try SecureBytes(count: capacity)
    var paddedCount = 0
    let status = padded.withUnsafeMutableBytes { buffer in
      buffer.copyBytes(from: plaintext)
      return sodium_pad(
        &paddedCount, buffer.bytes, plaintext.count,
        block, capacity)
    }
    guard status == 0 else { throw .malformedPlaintext }
    return padded.withUnsafeBytes { buffer in
      SecretBox.seal(
        UnsafeRawBufferPointer(rebasing: buffer[0..<paddedCount]), key: columnKey,
        random: random)
    }
  }

  /// Opens `sealed` from `column` of session `id` and hands the unpadded plaintext, in
  /// guarded memory valid only during the call, to `read`.
  public func open<R>(
    _ sealed: [UInt8], id: [UInt8], column: Column,
    _ read: (UnsafeRawBufferPointer) throws -> R
  ) throws -> R {
    guard let count = SecretBox.plaintextCount(of: sealed) else { throw CryptoError.integrity }
    try deriveColumnKey(id: id, column: column)
    if scratch.count < count { scratch = try SecureBytes(count: count * 2) }
    defer { scratch.withUnsafeMutableBytes { sodium_memzero($0.bytes, count) } }
    let scratch = self.scratch
    let columnKey = self.columnKey
    try sealed.withUnsafeBytes { input in
      let output = scratch.withUnsafeMutableBytes { $0 }
      try SecretBox.open(input, key: columnKey, into: output)
    }
    var unpadded = 0
    let status = scratch.withUnsafeBytes { buffer in
      sodium_unpad(
        &unpadded, buffer.bytes, count,
        Self.paddingBlock)
    }
    guard status == 0 else { throw CryptoError.malformedPlaintext }
    return try scratch.withUnsafeBytes { buffer in
      try read(UnsafeRawBufferPointer(rebasing: buffer[0..<unpadded]))
    }
  }

  private func deriveColumnKey(id: [UInt8], column: Column) throws(CryptoError) {
    precondition(id.count == 16, "a session id is 16 bytes")
    var message = id
    message.append(column.rawValue)
    let status = columnKey.withUnsafeMutableBytes { out in
      recordKey.withUnsafeBytes { key in
        crypto_generichash(
          out.bytes, out.count, message,
          UInt64(message.count), key.bytes, key.count)
      }
    }
    guard status == 0 else { throw .integrity }
  }
}
