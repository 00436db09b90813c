import CSodium

/// Seals and opens the encrypted columns of a session row, each bound to its place.
///
/// secretbox has no associated data, so the binding is in the key: every (session, column,
/// revision) gets its own key, BLAKE2b-256 keyed with the record key over session id (16) ‖
/// column (1) ‖ revision (8, little-endian; left out for revision 0, the rows written before
/// revisions existed). A ciphertext copied into another row or another column, or an older
/// revision of a column put back, is opened with the wrong key and fails authentication,
/// exactly like a flipped bit.
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
    /// What this device last agreed with the sync server for a session (stamps and
    /// fingerprints), under the record key.
    case syncBase = 4
    /// A session as the sync server holds it, under the sync key, its revision the server's
    /// change number.
    case syncRow = 5
  }

  public static let paddingBlock = 256

  private let recordKey: SecureBytes
  private let random: any RandomSource
  /// The opener this cipher uses itself (one thread at a time, like the cipher).
  private let opener: Opener
  private let columnKey: SecureBytes
  /// Reused guarded memory for padded plaintexts being sealed, grown as needed and wiped
  /// after every use: a fresh guarded allocation per value (mmap, mprotect, mlock) was a
  /// sixth of an import.
  private var sealScratch: SecureBytes

  /// A cipher for the vault's session columns (under the record key).
  public convenience init(keys: VaultKeys, random: some RandomSource) throws(CryptoError) {
    try self.init(key: keys.recordKey, random: random)
  }

  /// A cipher under any of the vault's subkeys (the draft key for drafts).
  public init(key: SecureBytes, random: some RandomSource) throws(CryptoError) {
    self.recordKey = key
    self.random = random
    self.opener = try Opener(key: key)
    let parts = try SecureBytes.parts([SecretBox.keyBytes, 4096])
    self.columnKey = parts[0]
    self.sealScratch = parts[1]
  }

  /// Pads and seals `plaintext` for `column` of session `id`.
  public func seal(
    _ plaintext: [UInt8], id: [UInt8], column: Column, revision: UInt64 = 0
  ) throws(CryptoError) -> [UInt8] {
    let derived = id.withUnsafeBytes { id in
      Self.deriveColumnKey(recordKey, id: id, column: column, revision: revision, into: columnKey)
    }
    guard derived else { throw .integrity }
    let capacity = Padding.paddedCount(plaintext.count, block: Self.paddingBlock)
    if sealScratch.count < capacity { sealScratch = try SecureBytes(count: capacity * 2) }
    let padded = sealScratch
    defer { padded.withUnsafeMutableBytes { sodium_memzero($0.bytes, capacity) } }
    let paddedCount = padded.withUnsafeMutableBytes { buffer in
      plaintext.withUnsafeBytes { plaintext in
        Padding.pad(plaintext, into: buffer, block: Self.paddingBlock)
      }
    }
    return padded.withUnsafeBytes { buffer in
      SecretBox.seal(
        UnsafeRawBufferPointer(rebasing: buffer[0..<paddedCount]), key: columnKey,
        random: random)
    }
  }

  /// Opens `sealed` from `column` of session `id` and hands the unpadded plaintext, in
  /// guarded memory valid only during the call, to `read`.
  public func open<R>(
    _ sealed: [UInt8], id: [UInt8], column: Column, revision: UInt64 = 0,
    _ read: (UnsafeRawBufferPointer) throws -> R
  ) throws -> R {
    precondition(id.count == 16, "a session id is 16 bytes")
    return try sealed.withUnsafeBytes { sealed in
      try id.withUnsafeBytes { id in
        try opener.open(sealed, id: id, column: column, revision: revision, read)
      }
    }
  }

  /// A further opener under this cipher's key, for another thread: `list` opens the summaries
  /// on every core, each thread with its own key and plaintext buffers.
  public func makeOpener() throws(CryptoError) -> Opener {
    try Opener(key: recordKey)
  }

  /// Opens sealed values on one thread at a time, into its own guarded buffers: the column
  /// key and the plaintext, which is wiped after each value.
  public final class Opener: @unchecked Sendable {
    // @unchecked: an opener's buffers are written by whichever single thread holds it; the
    // record key is only read.
    private let recordKey: SecureBytes
    private let columnKey: SecureBytes
    /// Reused guarded memory for plaintexts, grown as needed and wiped after every use.
    private var scratch: SecureBytes

    init(key: SecureBytes) throws(CryptoError) {
      self.recordKey = key
      let parts = try SecureBytes.parts([SecretBox.keyBytes, 4096])
      self.columnKey = parts[0]
      self.scratch = parts[1]
    }

    /// Opens `sealed` from `column` of the session whose 16 id bytes are `id`, and hands the
    /// unpadded plaintext, valid only during the call, to `read`.
    public func open<R>(
      _ sealed: UnsafeRawBufferPointer, id: UnsafeRawBufferPointer, column: Column,
      revision: UInt64 = 0, _ read: (UnsafeRawBufferPointer) throws -> R
    ) throws -> R {
      guard let count = SecretBox.plaintextCount(of: sealed) else { throw CryptoError.integrity }
      guard
        RecordCipher.deriveColumnKey(
          recordKey, id: id, column: column, revision: revision, into: columnKey)
      else { throw CryptoError.integrity }
      if scratch.count < count { scratch = try SecureBytes(count: count * 2) }
      let scratch = self.scratch
      defer { scratch.withUnsafeMutableBytes { sodium_memzero($0.bytes, count) } }
      let output = scratch.withUnsafeMutableBytes { $0 }
      try SecretBox.open(sealed, key: columnKey, into: output)
      let plaintext = UnsafeRawBufferPointer(rebasing: output[0..<count])
      guard let unpadded = Padding.unpaddedCount(plaintext, block: RecordCipher.paddingBlock)
      else { throw CryptoError.malformedPlaintext }
      return try read(UnsafeRawBufferPointer(rebasing: plaintext[0..<unpadded]))
    }
  }

  /// BLAKE2b-256 keyed with `key` over id (16) ‖ column (1) ‖ revision (8, little-endian,
  /// only when not 0), into `out`; false if it failed.
  static func deriveColumnKey(
    _ key: SecureBytes, id: UnsafeRawBufferPointer, column: Column, revision: UInt64,
    into out: SecureBytes
  ) -> Bool {
    precondition(id.count == 16, "a session id is 16 bytes")
    // The id and revision are not secret: an ordinary buffer on the stack holds the message.
    var message: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
    let length = revision == 0 ? 17 : 25
    let status = withUnsafeMutableBytes(of: &message) { message in
      message.copyMemory(from: id)
      message[16] = column.rawValue
      withUnsafeBytes(of: revision.littleEndian) { revision in
        UnsafeMutableRawBufferPointer(rebasing: message[17..<25]).copyMemory(from: revision)
      }
      return out.withUnsafeMutableBytes { out in
        key.withUnsafeBytes { key in
          crypto_generichash(
            out.bytes, out.count, message.baseAddress?.assumingMemoryBound(to: UInt8.self),
            UInt64(length), key.bytes, key.count)
        }
      }
    }
    return status == 0
  }
}
