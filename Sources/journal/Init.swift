import ArgumentParser
import JournalApp
import JournalDiagnostics

extension Journal {
  /// `journal init`: creates the vault.
  struct Init: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "init",
      abstract: "Create your journal, protected by a passphrase you choose.")

    @OptionGroup var options: GlobalOptions

    @Option(help: "Key-derivation strength: interactive, moderate (default) or sensitive.")
    var kdf: KDFStrength = .moderate

    func run() throws {
      let runtime = try Runtime(options)
      let journal = try PassphraseCommands.createVault(runtime, strength: kdf)
      Report.note(#"created your journal at "\#(journal.path)""#)
      Report.note(#"keep your passphrase safe: without it, nothing here can be read"#)
      if try RecoveryCodes.offer(runtime, for: journal) { RecoveryCode.explain() }
    }
  }
}
