import Foundation
import JournalApp
import JournalCore
import JournalCrypto

/// What a command needs from the world: the context, the terminal (if any), the vault.
struct Runtime {
  let options: GlobalOptions
  let context: AppContext
  let terminal: TTY?

  init(_ options: GlobalOptions) {
    let environment = ProcessInfo.processInfo.environment
    self.options = options
    self.context = .live(environment: environment)
    let quiet = options.noInput || environment["JOURNAL_NO_INPUT"].map { !$0.isEmpty } ?? false
    self.terminal = quiet ? nil : TTY.open(environment: environment)
  }

  func vaultPath() throws -> String {
    try VaultLocation.resolve(flag: options.vault, environment: context.environment)
  }

  var passphraseSource: PassphraseSource? {
    PassphraseSource.choose(
      file: options.passphraseFile, descriptor: options.passphraseFd,
      environment: context.environment, hasTerminal: terminal != nil)
  }

  /// Opens the vault, asking for the passphrase only once the file is known to be a vault.
  func openVault() throws -> JournalVault {
    let path = try vaultPath()
    return try JournalVault.open(at: path, context: context) {
      guard let source = passphraseSource else { throw AppError.noPassphraseSource }
      return try source.read(prompt: "Passphrase: ", terminal: terminal)
    }
  }

  /// Reads all of standard input as UTF-8 text (for a field given as "-").
  static func readStandardInput() throws -> String {
    guard let data = try? FileHandle.standardInput.readToEnd() ?? Data(),
      let text = String(data: data, encoding: .utf8)
    else { throw AppError.stdinUnreadable }
    return text
  }

  /// Writes to stdout.
  static func output(_ text: String) {
    FileHandle.standardOutput.write(Data(text.utf8))
  }

  /// Whether stdout may carry colour and symbols.
  var colourOutput: Bool {
    isatty(STDOUT_FILENO) != 0
      && (context.environment["NO_COLOR"].map(\.isEmpty) ?? true)
      && context.environment["TERM"] != "dumb"
  }
}
