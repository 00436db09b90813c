import Foundation
import Glibc
import JournalCore
import JournalDiagnostics
import JournalSystem

/// This computer's pin of the public key a vault's sealed additions go to (SECURITY.md,
/// "Sealed additions"): written whenever the journal is opened here with its key, read when
/// something is written without it. Sealing refuses a vault whose stored public key is not
/// the pinned one, so that someone who can change the vault file cannot swap in a key of
/// their own and read what is written next.
///
/// `$XDG_STATE_HOME/journal/seen/<vault id hex>-sealing` (else
/// `~/.local/state/journal/seen/…`), 0600 in 0700 directories: 57 bytes, "JRNLPINK" ‖ 0x01 ‖
/// vault id (16) ‖ public key (32). Not secret, and not authenticated: it is a copy of what
/// the key holder derived, and anyone who can write it can write your files anyway.
struct SealingPin {
  static let magic = Array("JRNLPINK".utf8) + [1]
  static let size = 9 + 16 + 32

  let path: String
  let vaultID: [UInt8]

  /// The pin of vault `vaultID`; nil where there is no home to keep it in.
  init?(vaultID: [UInt8], environment: [String: String]) {
    guard let directory = VaultWitness.directory(environment: environment) else { return nil }
    self.path = directory + "/" + Hex.lowercase(vaultID) + "-sealing"
    self.vaultID = vaultID
  }

  /// The pinned public key; nil when this computer has none for the vault. A pin that is
  /// not of the layout is treated as a changed key: sealing refuses rather than guess.
  func read() throws -> [UInt8]? {
    guard try FileSafety.privateFile(path) else { return nil }
    guard let data = FileManager.default.contents(atPath: path) else {
      throw AppError.sealingKeyChanged
    }
    let bytes = Array(data)
    guard bytes.count == Self.size, Array(bytes[0..<9]) == Self.magic,
      Array(bytes[9..<25]) == vaultID
    else { throw AppError.sealingKeyChanged }
    return Array(bytes[25...])
  }

  /// Pins `publicKey`, unless it is pinned already.
  func record(_ publicKey: [UInt8]) throws {
    if (try? read()) == publicKey { return }
    try FileSafety.privateDirectory(FileSafety.parentDirectory(of: path), create: true)
    try VaultWitness.replace(path, with: Self.magic + vaultID + publicKey)
  }
}
