import JournalCrypto
import JournalTestSupport
import Testing

/// Recovery codes: written in a form a person can copy, read back however they type it, a
/// typo caught by the code's own check before any key work, and a slot only the code opens.
struct RecoveryCodeTests {
  static func text(_ code: RecoveryCode) throws -> String {
    try code.text().withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
  }

  static func parse(_ text: String) throws -> RecoveryCode? {
    try RecoveryCode.parse(try SecureBytes(copying: Array(text.utf8)))
  }

  /// Eight groups of four Crockford characters; read back as written, in lower case, without
  /// dashes, and with O, I and L for 0, 1 and 1.
  @Test func writtenAndReadBack() throws {
    let code = try RecoveryCode.generate(random: SeededRandom(seed: 7))
    let written = try Self.text(code)
    #expect(written.count == 39)
    #expect(written.split(separator: "-").map(\.count) == Array(repeating: 4, count: 8))
    #expect(written.allSatisfy { "0123456789ABCDEFGHJKMNPQRSTVWXYZ-".contains($0) })
    for typed in [
      written, written.lowercased(), written.replacingOccurrences(of: "-", with: " "),
      written.replacingOccurrences(of: "-", with: ""),
      written.replacingOccurrences(of: "0", with: "O").replacingOccurrences(of: "1", with: "l"),
    ] {
      let read = try #require(try Self.parse(typed), "\(typed)")
      #expect(try Self.text(read) == written)
    }
  }

  /// Every single character changed to any other is caught, and so are a character left
  /// out, one added, and two neighbours swapped.
  @Test func typosAreCaught() throws {
    let written = try Self.text(try RecoveryCode.generate(random: SeededRandom(seed: 9)))
    let characters = Array(written.replacingOccurrences(of: "-", with: ""))
    var tried = 0
    for index in characters.indices {
      for other in "0123456789ABCDEFGHJKMNPQRSTVWXYZ" where other != characters[index] {
        var typo = characters
        typo[index] = other
        #expect(try Self.parse(String(typo)) == nil, "\(String(typo))")
        tried += 1
      }
    }
    #expect(tried == 32 * 31)
    #expect(try Self.parse(String(characters.dropLast())) == nil)
    #expect(try Self.parse(String(characters) + "A") == nil)
    var swapped = characters
    if let index = swapped.indices.dropLast().first(where: { swapped[$0] != swapped[$0 + 1] }) {
      swapped.swapAt(index, index + 1)
      #expect(try Self.parse(String(swapped)) == nil)
    }
    #expect(try Self.parse("not a code at all") == nil)
    #expect(try Self.parse("") == nil)
  }

  /// The recovery slot opens with its code, and with no other; the keys it gives are the
  /// vault's.
  @Test func slotOpensWithItsCodeOnly() throws {
    let random = SeededRandom(seed: 11)
    let (keys, header) = try VaultKeys.create(
      passphrase: try SecureBytes(copying: Array("a passphrase".utf8)), limits: TestKDF.limits,
      random: random)
    let code = try RecoveryCode.generate(random: random)
    let slot = try keys.wrapRecovery(code, random: random)
    #expect(slot.count == KeyHeader.wrappedKeyBytes)
    let opened = try VaultKeys.open(recoverySlot: slot, vaultID: header.vaultID, code: code)
    #expect(opened.recordKey.isEqual(to: keys.recordKey))
    let other = try RecoveryCode.generate(random: random)
    #expect(throws: CryptoError.wrongRecoveryCode) {
      try VaultKeys.open(recoverySlot: slot, vaultID: header.vaultID, code: other)
    }
    #expect(throws: CryptoError.wrongRecoveryCode) {
      try VaultKeys.open(recoverySlot: slot, vaultID: [UInt8](repeating: 1, count: 16), code: code)
    }
  }
}
