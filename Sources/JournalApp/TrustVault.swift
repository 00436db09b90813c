import JournalTerminal

/// `journal verify --accept`: trusts a vault that is not as journal last left it — a backup
/// restored on purpose, or a loss already known — as it is now. Says what was found, asks
/// (unless confirmed), then brings the ledger and this computer's record to the vault as it
/// is. Nothing in the vault is deleted or restored; what is missing stays missing.
public enum TrustVault {
  /// The opened vault, and whether anything needed trusting.
  public static func open(confirmed: Bool, _ runtime: Runtime) throws -> (JournalVault, Bool) {
    if !confirmed && runtime.terminal == nil { throw AppError.confirmationNeeded }
    let journal = try runtime.openVault(accept: { error in
      if confirmed { return true }
      guard let terminal = runtime.terminal else { return false }
      terminal.writeLine(Diagnosis(error).message)
      return try Forms(terminal: terminal, context: runtime.context).confirm(
        "Trust this journal as it is now? What is missing from it stays missing.",
        default: false, destructive: true)
    })
    return (journal, journal.acceptedChanges)
  }
}
