import JournalCrypto
import JournalTestSupport
import Testing

struct VaultKeysTests {
  func secret(_ text: String) throws -> SecureBytes { try SecureBytes(copying: Array(text.utf8)) }

  /// A new vault's keys reopen with the passphrase and give the same record key.
  @Test func createThenOpen() throws {
    let (keys, header) = try VaultKeys.create(
      passphrase: try secret("a long passphrase"), limits: TestKDF.limits,
      random: SeededRandom(seed: 1))
    let reopened = try VaultKeys.open(
      header: header, passphrase: try secret("a long passphrase"), policy: TestKDF.policy)
    #expect(reopened.recordKey.isEqual(to: keys.recordKey))
    #expect(!reopened.recordKey.isEqual(to: reopened.draftKey))
  }

  /// A wrong passphrase is its own error.
  @Test func wrongPassphrase() throws {
    let (_, header) = try VaultKeys.create(
      passphrase: try secret("a long passphrase"), limits: TestKDF.limits,
      random: SeededRandom(seed: 2))
    #expect(throws: CryptoError.wrongPassphrase) {
      try VaultKeys.open(
        header: header, passphrase: try secret("a long passphrasE"), policy: TestKDF.policy)
    }
  }

  /// Re-wrapping under a new passphrase keeps the data key: records need no re-encryption.
  @Test func rewrapKeepsDataKey() throws {
    let random = SeededRandom(seed: 3)
    let (keys, _) = try VaultKeys.create(
      passphrase: try secret("old passphrase"), limits: TestKDF.limits, random: random)
    let header = try keys.wrap(
      passphrase: try secret("new passphrase"), limits: TestKDF.limits, random: random)
    let reopened = try VaultKeys.open(
      header: header, passphrase: try secret("new passphrase"), policy: TestKDF.policy)
    #expect(reopened.recordKey.isEqual(to: keys.recordKey))
    #expect(throws: CryptoError.wrongPassphrase) {
      try VaultKeys.open(
        header: header, passphrase: try secret("old passphrase"), policy: TestKDF.policy)
    }
  }

  /// The standard policy refuses limits below INTERACTIVE (a downgrade) and above SENSITIVE
  /// (a memory bomb) before any derivation runs.
  @Test func standardPolicyBounds() throws {
    let policy = KDFPolicy.standard
    try policy.check(.interactive)
    try policy.check(.moderate)
    try policy.check(.sensitive)
    #expect(throws: CryptoError.self) { try policy.check(TestKDF.limits) }
    #expect(throws: CryptoError.self) {
      try policy.check(KDFLimits(opsLimit: 3, memLimit: KDFLimits.sensitive.memLimit * 2))
    }
    #expect(throws: CryptoError.self) {
      try policy.check(KDFLimits(opsLimit: 5, memLimit: KDFLimits.moderate.memLimit))
    }
  }

  /// Sealed columns are padded to 256-byte blocks: lengths leak only coarsely.
  @Test func padding() throws {
    let (keys, _) = try VaultKeys.create(
      passphrase: try secret("a long passphrase"), limits: TestKDF.limits,
      random: SeededRandom(seed: 4))
    let cipher = try RecordCipher(keys: keys, random: SeededRandom(seed: 5))
    let id = [UInt8](repeating: 7, count: 16)
    for (length, expected) in [(0, 256), (1, 256), (255, 256), (256, 512), (5000, 5120)] {
      let sealed = try cipher.seal([UInt8](repeating: 0x41, count: length), id: id, column: .body)
      #expect(sealed.count == expected + SecretBox.overhead, "length \(length)")
      let back = try cipher.open(sealed, id: id, column: .body) { Array($0) }
      #expect(back.count == length)
    }
  }
}
