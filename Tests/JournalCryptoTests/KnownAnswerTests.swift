import Foundation
import JournalCore
import JournalCrypto
import JournalTestSupport
import Testing

/// One scenario per file in Vectors/, written by Scripts/make-crypto-vectors.py with PyNaCl
/// from SECURITY.md alone; each file's "expect" says how it must end.
struct KnownAnswerTests {
  struct Vector {
    let name: String
    let fields: [String: Any]
    var expect: String { fields["expect"] as? String ?? "" }
    func hex(_ key: String) -> [UInt8] { Hex.bytes(fields[key] as? String ?? "") ?? [] }
    func number(_ key: String) -> UInt64 { (fields[key] as? NSNumber)?.uint64Value ?? 0 }
  }

  static func vectors(prefix: String) -> [String] {
    let directory = (Bundle.module.resourcePath ?? "") + "/Vectors"
    let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
    return names.filter { $0.hasPrefix(prefix) && $0.hasSuffix(".json") }.sorted()
  }

  static func load(_ name: String) throws -> Vector {
    let path = (Bundle.module.resourcePath ?? "") + "/Vectors/" + name
    let data = try Data(contentsOf: URL(fileURLWithPath: path))
    let fields = try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
    return Vector(name: name, fields: fields)
  }

  /// The vector set is there: six header scenarios, eleven record scenarios, and the eight
  /// ledger scenarios (checked in JournalStoreTests, where the ledger is).
  @Test func vectorsArePresent() {
    #expect(Self.vectors(prefix: "header-").count == 6)
    #expect(Self.vectors(prefix: "record-").count == 11)
    #expect(Self.vectors(prefix: "ledger-").count == 8)
    #expect(Self.vectors(prefix: "sealed-").count == 5)
    #expect(Self.vectors(prefix: "recovery-").count == 5)
  }

  /// The recovery code as PyNaCl wrote it down, read back (or caught as mistyped), opens
  /// the slot PyNaCl sealed (or is the wrong code), as each vector expects.
  @Test(arguments: vectors(prefix: "recovery-"))
  func recovery(_ name: String) throws {
    let v = try Self.load(name)
    let typed = try SecureBytes(copying: Array((v.fields["code"] as? String ?? "").utf8))
    guard let code = try RecoveryCode.parse(typed) else {
      #expect(v.expect == "mistyped", "\(name)")
      return
    }
    let outcome = Result {
      try VaultKeys.open(recoverySlot: v.hex("slot"), vaultID: v.hex("vault_id"), code: code)
    }
    switch (v.expect, outcome) {
    case ("success", .success(let keys)):
      #expect(keys.recordKey.withUnsafeBytes { Array($0) } == v.hex("record_key"))
      let written = try code.text().withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
      #expect(written == (try Self.load("recovery-open.json")).fields["code"] as? String)
    case ("wrong_code", .failure(let error)):
      #expect(error as? CryptoError == .wrongRecoveryCode)
    default:
      Issue.record("\(name): expected \(v.expect), got \(outcome)")
    }
  }

  /// The header vector's keys: what the record and sealed vectors are made under.
  static func headerKeys() throws -> VaultKeys {
    let h = try load("header-unwrap.json")
    return try VaultKeys.open(
      header: KeyHeader(
        vaultID: h.hex("vault_id"), limits: TestKDF.limits, salt: h.hex("salt"),
        wrappedKey: h.hex("wrapped_key")),
      passphrase: try SecureBytes(copying: h.hex("passphrase")), policy: TestKDF.policy)
  }

  /// Sealed additions: our key pair is the one PyNaCl derives from subkey 4, and each box
  /// PyNaCl sealed to it opens, or fails, as the vector expects.
  @Test(arguments: vectors(prefix: "sealed-"))
  func sealed(_ name: String) throws {
    // Given
    let v = try Self.load(name)
    let keys = try Self.headerKeys()
    #expect(keys.sealingPublicKey == v.hex("public_key"))
    // When
    let outcome = Result { try SealedBox.open(v.hex("sealed"), keys: keys) { Array($0) } }
    // Then
    try Self.expect(v, outcome) { plaintext in
      #expect(plaintext == v.hex("plaintext"))
      // And our own seal of it opens, one box per seal (an ephemeral key each time).
      let ours = try SealedBox.seal(v.hex("plaintext"), to: keys.sealingPublicKey)
      #expect(ours.count == v.hex("sealed").count)
      #expect(ours != v.hex("sealed"))
      #expect(try SealedBox.open(ours, keys: keys) { Array($0) } == v.hex("plaintext"))
    }
  }

  /// Checks an opening against the vector's "expect": `success` is handed the plaintext;
  /// "integrity" and "malformed" are the two ways a sealed value fails.
  static func expect(
    _ v: Vector, _ outcome: Result<[UInt8], any Error>, success: ([UInt8]) throws -> Void
  ) throws {
    switch (v.expect, outcome) {
    case ("success", .success(let plaintext)):
      try success(plaintext)
    case ("integrity", .failure(let error)):
      #expect(error as? CryptoError == .integrity)
    case ("malformed", .failure(let error)):
      #expect(error as? CryptoError == .malformedPlaintext)
    default:
      Issue.record("\(v.name): expected \(v.expect), got \(outcome)")
    }
  }

  /// Unwrapping the data key ends as each header vector expects.
  @Test(arguments: vectors(prefix: "header-"))
  func header(_ name: String) throws {
    // Given
    let v = try Self.load(name)
    let header = KeyHeader(
      vaultID: v.hex("vault_id"),
      limits: KDFLimits(opsLimit: v.number("ops_limit"), memLimit: v.number("mem_limit")),
      salt: v.hex("salt"), wrappedKey: v.hex("wrapped_key"))
    let passphrase = try SecureBytes(copying: v.hex("passphrase"))
    // When
    let outcome = Result {
      try VaultKeys.open(header: header, passphrase: passphrase, policy: TestKDF.policy)
    }
    // Then
    switch (v.expect, outcome) {
    case ("success", .success(let keys)):
      #expect(keys.vaultID == v.hex("vault_id"))
    case ("wrong_passphrase", .failure(let error)):
      #expect(error as? CryptoError == .wrongPassphrase)
    case ("vault_mismatch", .failure(let error)):
      #expect(error as? CryptoError == .vaultMismatch)
    case ("limits_out_of_range", .failure(let error)):
      #expect(
        error as? CryptoError
          == .kdfLimitsOutOfRange(
            opsLimit: v.number("ops_limit"), memLimit: v.number("mem_limit")))
    default:
      Issue.record("\(name): expected \(v.expect), got \(outcome)")
    }
  }

  /// Creating a vault with the vector's random draws gives the vector's wrapped key, byte
  /// for byte: our wrapping is the one SECURITY.md describes.
  @Test func wrappingMatches() throws {
    let v = try Self.load("header-unwrap.json")
    let random = ScriptedRandom([
      v.hex("vault_id"), v.hex("data_key"), v.hex("salt"), v.hex("wrap_nonce"),
    ])
    let (_, header) = try VaultKeys.create(
      passphrase: try SecureBytes(copying: v.hex("passphrase")), limits: TestKDF.limits,
      random: random)
    #expect(header.wrappedKey == v.hex("wrapped_key"))
    #expect(header.salt == v.hex("salt"))
    #expect(random.isExhausted)
  }

  /// Opening a sealed column ends as each record vector expects, and the subkeys match.
  @Test(arguments: vectors(prefix: "record-"))
  func record(_ name: String) throws {
    // Given keys from the header vector's data key
    let v = try Self.load(name)
    let keys = try Self.headerKeys()
    #expect(keys.recordKey.withUnsafeBytes { Array($0) } == v.hex("record_key"))
    #expect(keys.draftKey.withUnsafeBytes { Array($0) } == v.hex("draft_key"))
    let cipher = try RecordCipher(keys: keys, random: ScriptedRandom([v.hex("nonce")]))
    let column = RecordCipher.Column(rawValue: UInt8(v.number("column")))!
    // When
    let revision = v.number("revision")
    let outcome = Result {
      try cipher.open(
        v.hex("sealed"), id: v.hex("session_id"), column: column, revision: revision
      ) { Array($0) }
    }
    // Then
    try Self.expect(v, outcome) { plaintext in
      #expect(plaintext == v.hex("plaintext"))
      let sealed = try cipher.seal(
        v.hex("plaintext"), id: v.hex("session_id"), column: column, revision: revision)
      #expect(sealed == v.hex("sealed"))
    }
  }
}
