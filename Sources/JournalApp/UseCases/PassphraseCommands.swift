import JournalAgent
import JournalCrypto
import JournalDiagnostics
import JournalTerminal

/// `journal init` and `journal passwd`: a new vault under a new passphrase, and a new
/// passphrase for the vault there is.
public enum PassphraseCommands {
  /// Creates the vault, asking for its passphrase twice (or reading it from its source),
  /// after checking nothing is there yet, and keeps it open (for `init`'s recovery-code
  /// offer).
  public static func createVault(_ runtime: Runtime, strength: KDFStrength) throws -> JournalVault {
    let path = try runtime.vaultPath()
    // Refuse before asking for a passphrase twice.
    try JournalVault.refuseExisting(path)
    let passphrase = try NewPassphrase.read(
      source: runtime.passphraseSource, terminal: runtime.terminal,
      noSource: .noPassphraseSource, prompt: "Choose a passphrase: ")
    runtime.terminal?.writeLine("Deriving your key (this takes a moment on purpose)…")
    return try JournalVault.create(
      at: path, passphrase: passphrase, limits: strength.limits, context: runtime.context)
  }

  /// Opens the vault with the current passphrase ("Current passphrase: " at a terminal),
  /// then re-wraps its key under a new one ("New passphrase: ", twice; or from `newFile`,
  /// else JOURNAL_NEW_PASSPHRASE_FILE), with new limits if `strength` is given.
  /// Whether the journal syncs: the other devices then take the new passphrase at their next
  /// sync after this one's.
  @discardableResult
  public static func change(_ runtime: Runtime, newFile: String?, strength: KDFStrength?)
    throws -> Bool
  {
    let journal = try runtime.openVault(prompt: "Current passphrase: ")
    try setNew(journal, runtime, newFile: newFile, strength: strength)
    return try journal.file.syncSettings() != nil
  }

  /// `passwd --recovery-code`: opens the vault with its recovery code (asked at the terminal,
  /// or the first line of `codeFile`, else JOURNAL_RECOVERY_CODE_FILE), then sets a new
  /// passphrase as `change` does. Nothing is re-encrypted; the code keeps working.
  public static func recover(
    _ runtime: Runtime, codeFile: String?, newFile: String?, strength: KDFStrength?
  ) throws {
    let file = codeFile ?? runtime.context.environment["JOURNAL_RECOVERY_CODE_FILE"]
    let source: PassphraseSource? =
      file.flatMap { $0.isEmpty ? nil : .file($0) } ?? (runtime.terminal != nil ? .terminal : nil)
    let journal = try JournalVault.open(at: try runtime.vaultPath(), context: runtime.context) {
      guard let source else { throw AppError.noRecoveryCodeSource }
      // A typo is caught by the code's own check, before any key work: at a terminal it is
      // asked again, like a passphrase.
      let tries = source == .terminal ? 3 : 1
      for attempt in 1...tries {
        let typed: SecureBytes
        do {
          typed = try source.read(prompt: "Recovery code: ", terminal: runtime.terminal)
        } catch AppError.emptyPassphrase {
          throw AppError.emptyRecoveryCode
        }
        if let code = try RecoveryCode.parse(typed) { return code }
        if attempt < tries {
          runtime.terminal?.writeLine(
            "  that is not a recovery code (a character is off); try again")
        }
      }
      throw AppError.recoveryCodeMistyped
    }
    try setNew(journal, runtime, newFile: newFile, strength: strength)
  }

  /// `passwd --new-key`: opens the vault with the current passphrase, then moves it to a new
  /// data key under a new passphrase (asked as `change` asks it). The new recovery code, when
  /// the journal had one, and how many sessions were re-sealed. On a journal that syncs, the
  /// server's copy is replaced first, under the new key; the other devices follow at their
  /// next sync, with the new passphrase. Within the cooling-off window after a session, at a
  /// terminal and unless `confirmed` (--yes), it first pauses to ask once more.
  public static func changeKey(
    _ runtime: Runtime, newFile: String?, strength: KDFStrength?, confirmed: Bool = false
  ) throws -> JournalVault.KeyChanged {
    let window = try CoolingOffPause.window(runtime)
    let journal = try runtime.openVault(prompt: "Current passphrase: ")
    // Before the new passphrase is asked: a no costs nothing more.
    try CoolingOffPause.check(
      .changeKey, window: window, journal: journal, confirmed: confirmed, runtime)
    // An unlock agent that would keep the old key stops the change before a new passphrase
    // is typed (and is asked again as the change begins).
    try AgentClient.stopEverywhere(
      environment: runtime.context.environment, vaultID: journal.unlockedKeys.vaultID)
    let passphrase = try readNew(runtime, newFile: newFile)
    if try journal.file.syncSettings() != nil {
      // The server's copy first, then this one (SECURITY.md, "Sync", "A new key").
      runtime.terminal?.writeLine(
        "Changing the key: the server's copy, then this one, every session sealed again…")
      return try SyncCommands.changeKey(
        journal, runtime, to: passphrase, limits: strength?.limits)
    }
    runtime.terminal?.writeLine("Changing the key: every session is sealed again…")
    return try journal.changeKey(to: passphrase, limits: strength?.limits)
  }

  /// Asks the new passphrase (twice at a terminal, or from `newFile`, else
  /// JOURNAL_NEW_PASSPHRASE_FILE) and re-wraps the key under it.
  private static func setNew(
    _ journal: JournalVault, _ runtime: Runtime, newFile: String?, strength: KDFStrength?
  ) throws {
    let passphrase = try readNew(runtime, newFile: newFile)
    try journal.changePassphrase(to: passphrase, limits: strength?.limits)
  }

  /// The new passphrase: twice at a terminal, or from `newFile`, else
  /// JOURNAL_NEW_PASSPHRASE_FILE.
  private static func readNew(_ runtime: Runtime, newFile: String?) throws -> SecureBytes {
    let file = newFile ?? runtime.context.environment["JOURNAL_NEW_PASSPHRASE_FILE"]
    let source: PassphraseSource? =
      file.flatMap { $0.isEmpty ? nil : .file($0) } ?? (runtime.terminal != nil ? .terminal : nil)
    return try NewPassphrase.read(
      source: source, terminal: runtime.terminal, noSource: .noNewPassphraseSource,
      prompt: "New passphrase: ")
  }
}
