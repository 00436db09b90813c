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
      let path = try PassphraseCommands.create(runtime, strength: kdf)
      Report.note(#"created your journal at "\#(path)""#)
      Report.note(#"keep your passphrase safe: without it, nothing here can be read"#)
      if let code = try RecoveryCodes.offer(runtime, at: path) {
        try RecoveryCode.show(code)
      }
    }
  }
}
