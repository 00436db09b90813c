import Foundation
import JournalCrypto
import JournalDiagnostics
import JournalTerminal

/// Reads a new passphrase: twice on the terminal, or once from a file or descriptor.
public enum NewPassphrase {
  /// Fewer characters than this is refused: Argon2id slows guessing, it cannot save a
  /// passphrase a dictionary holds.
  public static let minimumLength = 8

  /// How many times a person at the terminal may choose one (a short one, or two entries
  /// that differ, asks again) before the command ends.
  static let tries = 3

  public static func read(
    source: PassphraseSource?, terminal: (any Terminal)?, noSource: AppError,
    prompt: String = "Choose a passphrase: "
  ) throws -> SecureBytes {
    let passphrase: SecureBytes
    switch source {
    case .terminal:
      guard let terminal else { throw noSource }
      return try ask(terminal, prompt: prompt)
    case .some(let source):
      passphrase = try source.read(prompt: "", terminal: terminal)
    case nil:
      throw noSource
    }
    try refuseNotUTF8(passphrase)
    guard characters(passphrase) >= minimumLength else {
      throw AppError.passphraseTooShort(minimum: minimumLength)
    }
    return passphrase
  }

  /// At the terminal: the length is checked as soon as it is typed, and a short one or two
  /// entries that differ are said in one line and asked again, up to `tries` times.
  private static func ask(_ terminal: any Terminal, prompt: String) throws -> SecureBytes {
    for attempt in 1...tries {
      let last = attempt == tries
      let first = try terminal.readSecret(prompt: prompt)
      try refuseNotUTF8(first)
      guard characters(first) >= minimumLength else {
        if last { throw AppError.passphraseTooShort(minimum: minimumLength) }
        terminal.writeLine(
          "  that is shorter than \(minimumLength) characters; a few unrelated words make a "
            + "strong one, easy to remember")
        continue
      }
      let second = try terminal.readSecret(prompt: "Type it again: ")
      guard first.isEqual(to: second) else {
        if last { throw AppError.passphraseMismatch }
        terminal.writeLine("  the two differ; choose it again")
        continue
      }
      return first
    }
    throw AppError.passphraseMismatch
  }

  /// UTF-8, as SECURITY.md says a passphrase is: another program (or a reader written from
  /// it) must be able to type the same bytes.
  private static func refuseNotUTF8(_ passphrase: SecureBytes) throws {
    guard passphrase.withUnsafeBytes({ String(validating: $0, as: UTF8.self) != nil }) else {
      throw AppError.passphraseNotUTF8
    }
  }

  /// Characters (not bytes) in `passphrase`, as UTF-8.
  private static func characters(_ passphrase: SecureBytes) -> Int {
    passphrase.withUnsafeBytes { bytes in
      bytes.reduce(0) { count, byte in count + (byte & 0xC0 == 0x80 ? 0 : 1) }
    }
  }
}
