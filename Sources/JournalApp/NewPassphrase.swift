import Foundation
import JournalCrypto
import JournalTerminal

/// Reads a new passphrase: twice on the terminal, or once from a file or descriptor.
public enum NewPassphrase {
  /// Fewer characters than this is refused: Argon2id slows guessing, it cannot save a
  /// passphrase a dictionary holds.
  public static let minimumLength = 8

  public static func read(
    source: PassphraseSource?, terminal: (any Terminal)?, noSource: AppError,
    prompt: String = "Choose a passphrase: "
  ) throws -> SecureBytes {
    let passphrase: SecureBytes
    switch source {
    case .terminal:
      guard let terminal else { throw noSource }
      let first = try terminal.readSecret(prompt: prompt)
      let second = try terminal.readSecret(prompt: "Type it again: ")
      guard first.isEqual(to: second) else { throw AppError.passphraseMismatch }
      passphrase = first
    case .some(let source):
      passphrase = try source.read(prompt: "", terminal: terminal)
    case nil:
      throw noSource
    }
    // UTF-8, as SECURITY.md says a passphrase is: another program (or a reader written from
    // it) must be able to type the same bytes.
    guard passphrase.withUnsafeBytes({ String(validating: $0, as: UTF8.self) != nil }) else {
      throw AppError.passphraseNotUTF8
    }
    let characters = passphrase.withUnsafeBytes { bytes in
      bytes.reduce(0) { count, byte in count + (byte & 0xC0 == 0x80 ? 0 : 1) }
    }
    guard characters >= minimumLength else {
      throw AppError.passphraseTooShort(minimum: minimumLength)
    }
    return passphrase
  }
}
