import JournalCrypto

/// `journal init` and `journal passwd`: a new vault under a new passphrase, and a new
/// passphrase for the vault there is.
public enum PassphraseCommands {
  /// Creates the vault, asking for its passphrase twice (or reading it from its source),
  /// after checking nothing is there yet; returns its path.
  public static func create(_ runtime: Runtime, strength: KDFStrength) throws -> String {
    let path = try runtime.vaultPath()
    // Refuse before asking for a passphrase twice.
    try JournalVault.refuseExisting(path)
    let passphrase = try NewPassphrase.read(
      source: runtime.passphraseSource, terminal: runtime.terminal,
      noSource: .noPassphraseSource, prompt: "Choose a passphrase: ")
    runtime.terminal?.writeLine("Deriving your key (this takes a moment on purpose)…")
    _ = try JournalVault.create(
      at: path, passphrase: passphrase, limits: strength.limits, context: runtime.context)
    return path
  }

  /// Opens the vault with the current passphrase ("Current passphrase: " at a terminal),
  /// then re-wraps its key under a new one ("New passphrase: ", twice; or from `newFile`,
  /// else JOURNAL_NEW_PASSPHRASE_FILE), with new limits if `strength` is given.
  public static func change(_ runtime: Runtime, newFile: String?, strength: KDFStrength?)
    throws
  {
    let journal = try runtime.openVault(prompt: "Current passphrase: ")
    let file = newFile ?? runtime.context.environment["JOURNAL_NEW_PASSPHRASE_FILE"]
    let source: PassphraseSource? =
      file.flatMap { $0.isEmpty ? nil : .file($0) } ?? (runtime.terminal != nil ? .terminal : nil)
    let passphrase = try NewPassphrase.read(
      source: source, terminal: runtime.terminal, noSource: .noNewPassphraseSource,
      prompt: "New passphrase: ")
    try journal.changePassphrase(to: passphrase, limits: strength?.limits)
  }
}
