import JournalCore
import JournalCrypto
import JournalDiagnostics
import JournalStore
import JournalTerminal

/// What trusting a vault as it is would accept, each thing on its own line: what was found,
/// the sessions that differ from what this computer last saw, what is changed to make the
/// rows agree (a trashed copy dropped is named: it is a person's words), and a sync server
/// address the journal did not set. Asked before anything is changed.
public struct TrustQuestion: Sendable {
  /// One line each, no content: ids, counts, the server's address.
  public let lines: [String]

  static func asking(
    about found: any Error, vault: Vault, keys: VaultKeys, witness: VaultWitness?
  ) -> TrustQuestion {
    var named = found
    if case StoreError.tampered(.rows) = found, let differences = witness?.differences(in: vault) {
      named = StoreError.tampered(differences)
    }
    var lines = [Diagnosis(named).message]
    let plan = (try? vault.repairPlan(keys: keys)) ?? RepairPlan()
    for shown in plan.rowsPutRight {
      lines.append(
        #"the row of session "\#(shown)" held values journal never writes; it is put right "#
          + "from its sealed columns")
    }
    for shown in plan.rowsDropped {
      lines.append(
        #"the row "\#(shown)" opens with no key of this journal at any revision, and is "#
          + "dropped")
    }
    for shown in plan.trashPurgedNow {
      lines.append(
        #"session "\#(shown)" in the trash had its deletion's time changed; it is purged now"#)
    }
    if plan.recoverySlotRemoved {
      lines.append(
        #"the recovery code's slot is damaged and is removed; "journal recovery-code" makes a "#
          + "new one")
    }
    for id in plan.trashDropped {
      lines.append(
        #"the copy of session "\#(id.short)" in the trash is dropped: a session with its id is "#
          + "in the journal, and stays")
    }
    for id in plan.buriedKept {
      lines.append(#"session "\#(id.short)", deleted for good, is in the journal again and stays"#)
    }
    for id in plan.purgesRecorded {
      lines.append(#"session "\#(id.short)" stays deleted for good"#)
    }
    for id in plan.remindersRemoved {
      lines.append(
        #"the reminder of session "\#(id.short)" is removed: that session does not wait for "#
          + "a reflection")
    }
    lines += settingsLines(found: named, vault: vault, witness: witness)
    if let settings = try? vault.syncSettings(),
      settings.serverTag.map({ tag in
        (try? SessionStore.serverTag(settings.server, key: keys.fingerprintKey)).map {
          KeyedHash.same($0, tag)
        } ?? false
      }) != true
    {
      lines.append(
        "the sync server address was not set by this journal: "
          + Quoted.data(settings.server) + "; journal sync would connect there")
    }
    return TrustQuestion(lines: lines)
  }
}

extension TrustQuestion {
  /// The settings the ledger covers that trusting the vault would accept as they are now,
  /// one line each, with what they are: named against this computer's record of them when
  /// it has one (which tells which changed, and how), else said as they stand.
  static func settingsLines(found: any Error, vault: Vault, witness: VaultWitness?) -> [String] {
    let captureOn = (try? vault.sealing().publicKey) != nil
    let slot = (try? vault.recoverySlot()) ?? nil
    let now = Array(KeyedHash.unkeyed(slot ?? []))
    let zeros = [UInt8](repeating: 0, count: 32)
    var lines: [String] = []
    if let seen = (try? witness?.read(rows: true))??.rows?.settings, seen.count == 34 {
      let wasOn = seen[seen.startIndex + 1] == 1
      let wasSlot = Array(seen.suffix(32))
      if wasOn != captureOn {
        lines.append(
          "writing without the passphrase was turned \(captureOn ? "on" : "off") in the file, "
            + "not by journal; it stays \(captureOn ? "on" : "off")")
      }
      let slotNow = slot == nil ? zeros : now
      if wasSlot != slotNow {
        lines.append(
          slot == nil
            ? #"the recovery code was removed in the file; "journal recovery-code" makes a new one"#
            : wasSlot == zeros
              ? "a recovery code was added in the file, not by journal: whoever made it can open "
                + #"this journal ("journal recovery-code --remove" takes it away)"#
              : "the recovery code was replaced in the file, not by journal: whoever made it can "
                + #"open this journal ("journal recovery-code" makes one of yours)"#)
      }
      return lines
    }
    guard case StoreError.tampered(.settings) = found else { return [] }
    return [
      "a setting was changed in the file: writing without the passphrase is now "
        + (captureOn ? "on" : "off") + ", and a recovery code is "
        + (slot == nil
          ? "not set" : #"set (if it is not yours, "journal recovery-code" replaces it)"#)
    ]
  }
}

/// `journal verify --accept`: trusts a vault that is not as journal last left it — a backup
/// restored on purpose, or a loss already known — as it is now. Says what it would accept,
/// each thing on its own line, asks (unless confirmed), then brings the ledger and this
/// computer's record to the vault as it is. No session is changed; what is missing stays
/// missing.
public enum TrustVault {
  /// The opened vault, and whether anything needed trusting. `show` says each line of what
  /// is accepted (before asking; with `confirmed`, as it is accepted).
  public static func open(
    confirmed: Bool, _ runtime: Runtime, show: @escaping (String) -> Void
  ) throws -> (JournalVault, Bool) {
    if !confirmed && runtime.terminal == nil {
      throw AppError.confirmationNeeded(what: "trusting this journal as it is")
    }
    let journal = try runtime.openVault(accept: { question in
      for line in question.lines { show(line) }
      if confirmed { return true }
      guard let terminal = runtime.terminal else { return false }
      return try Forms(terminal: terminal, context: runtime.context).confirm(
        "Trust this journal as it is now, with all of the above? What is missing from it "
          + "stays missing.",
        default: false, destructive: true)
    })
    return (journal, journal.acceptedChanges)
  }
}
