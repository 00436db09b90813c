import JournalCrypto
import JournalDiagnostics
import JournalStore

/// `journal recovery-code`: a second way into the journal, for a lost passphrase.
public enum RecoveryCodes {
  /// A recovery code as it is written down, in guarded memory until it is printed.
  public struct Text {
    let bytes: SecureBytes

    /// Writes the code and a line break to stdout, then wipes it.
    public func print() throws {
      defer { bytes.wipe() }
      var line = [UInt8]()
      line.reserveCapacity(bytes.count + 1)
      bytes.withUnsafeBytes { line.append(contentsOf: $0) }
      line.append(0x0A)
      defer { wipe(&line) }
      try Runtime.output(line)
    }
  }

  /// Makes a recovery code (asking first, at a terminal, before one already there is
  /// replaced; `yes` replaces without asking) and prints it, before it is stored: a code that
  /// could not be printed never replaces the old one. False when the person chose to keep
  /// the old one.
  public static func make(_ runtime: Runtime, yes: Bool) throws -> Bool {
    try make(try runtime.openVault(), runtime, yes: yes)
  }

  static func make(_ journal: JournalVault, _ runtime: Runtime, yes: Bool) throws -> Bool {
    if !yes, try journal.file.recoverySlot() != nil {
      guard let terminal = runtime.terminal else { throw AppError.recoveryCodeReplaceNeedsYes }
      let forms = Forms(terminal: terminal, context: runtime.context)
      guard
        try forms.confirm(
          "This journal has a recovery code. Make a new one? The old one stops working.",
          default: false, destructive: true)
      else { return false }
    }
    try journal.makeRecoveryCode { code in try Text(bytes: try code.text()).print() }
    return true
  }

  /// Removes the recovery code; whether there was one. Within the cooling-off window after
  /// a session, at a terminal and unless `yes`, it first pauses to ask once more.
  public static func remove(_ runtime: Runtime, yes: Bool = false) throws -> Bool {
    let window = try CoolingOffPause.window(runtime)
    let journal = try runtime.openVault()
    guard try journal.file.recoverySlot() != nil else { return false }
    try CoolingOffPause.check(
      .removeRecoveryCode, window: window, journal: journal, confirmed: yes, runtime)
    return try journal.removeRecoveryCode()
  }

  /// Whether the journal has a recovery code (no passphrase needed).
  public static func exists(_ runtime: Runtime) throws -> Bool {
    try runtime.openLocked().recoverySlot() != nil
  }

  /// After `init`, at a terminal: offers a recovery code, gently, for the journal just made
  /// (its keys still at hand: nothing is asked again). Whether one was made (and printed).
  public static func offer(_ runtime: Runtime, for journal: JournalVault) throws -> Bool {
    guard let terminal = runtime.terminal else { return false }
    terminal.writeLine(
      "A recovery code is a second key, to write on paper: if the passphrase is ever lost, "
        + "it lets you choose a new one.")
    let forms = Forms(terminal: terminal, context: runtime.context)
    terminal.setInterruptNote(
      #"\njournal: stopped; your journal is made, without a recovery code ("journal recovery-code" makes one)\n"#
    )
    defer { terminal.setInterruptNote(nil) }
    guard try forms.confirm("Make one now?", default: false) else {
      terminal.writeLine(#"You can make one any time with "journal recovery-code"."#)
      return false
    }
    return try make(journal, runtime, yes: true)
  }
}
