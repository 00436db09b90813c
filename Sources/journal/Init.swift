import ArgumentParser
import JournalApp

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
      let path = try runtime.vaultPath()
      // Refuse before asking for a passphrase twice.
      try JournalVault.refuseExisting(path)
      let source = runtime.passphraseSource
      let passphrase = try NewPassphrase.read(
        source: source, terminal: runtime.terminal, noSource: .noPassphraseSource)
      runtime.terminal?.writeLine("Deriving your key (this takes a moment on purpose)…")
      _ = try JournalVault.create(
        at: path, passphrase: passphrase, limits: kdf.limits, context: runtime.context)
      Report.note(#"created your journal at "\#(path)""#)
      Report.note(#"keep your passphrase safe: without it, nothing here can be read"#)
    }
  }
}
