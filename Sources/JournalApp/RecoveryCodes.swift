import JournalCrypto
import JournalStore

/// `journal recovery-code`: a second way into the journal, for a lost passphrase.
public enum RecoveryCodes {
  /// A recovery code as it is written down, in guarded memory until it is printed.
  public struct Text {
    let bytes: SecureBytes

    /// Writes the code and a line break to stdout, then wipes it.
    public func print() throws {
      defer { bytes.wipe() }
      var line = bytes.withUnsafeBytes { Array($0) + [0x0A] }
      defer { wipe(&line) }
      try Runtime.output(line)
    }
  }

  /// Makes a recovery code (asking first, at a terminal, before one already there is
  /// replaced; `yes` replaces without asking). The code as it is to be written down, shown
  /// only this once; nil when the person chose to keep the old one.
  public static func make(_ runtime: Runtime, yes: Bool) throws -> Text? {
    let journal = try runtime.openVault()
    if !yes, try journal.file.recoverySlot() != nil {
      guard let terminal = runtime.terminal else { throw AppError.recoveryCodeReplaceNeedsYes }
      let forms = Forms(terminal: terminal, context: runtime.context)
      guard
        try forms.confirm(
          "This journal has a recovery code. Make a new one? The old one stops working.",
          default: false)
      else { return nil }
    }
    return Text(bytes: try journal.makeRecoveryCode().text())
  }

  /// Removes the recovery code; whether there was one.
  public static func remove(_ runtime: Runtime) throws -> Bool {
    try runtime.openVault().removeRecoveryCode()
  }

  /// Whether the journal has a recovery code (no passphrase needed).
  public static func exists(_ runtime: Runtime) throws -> Bool {
    try runtime.openLocked().recoverySlot() != nil
  }

  /// After `init`, at a terminal: offers a recovery code, gently. The code, if one was made.
  public static func offer(_ runtime: Runtime, at path: String) throws -> Text? {
    guard let terminal = runtime.terminal else { return nil }
    terminal.writeLine(
      "A recovery code is a second key, to write on paper: if the passphrase is ever lost, "
        + "it lets you choose a new one.")
    let forms = Forms(terminal: terminal, context: runtime.context)
    guard try forms.confirm("Make one now?", default: false) else {
      terminal.writeLine(#"You can make one any time with "journal recovery-code"."#)
      return nil
    }
    return try make(runtime, yes: true)
  }
}
