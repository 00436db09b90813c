import ArgumentParser
import JournalApp

extension Journal {
  /// `journal passwd`: a new passphrase, without re-encrypting any record.
  struct Passwd: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "passwd",
      abstract: "Change your passphrase. Sessions are not re-encrypted; only the key is.")

    @OptionGroup var options: GlobalOptions

    @Option(
      help: ArgumentHelp(
        "Read the new passphrase from this file (0600). Also JOURNAL_NEW_PASSPHRASE_FILE.",
        valueName: "path"),
      completion: .file())
    var newPassphraseFile: String?

    @Option(help: "Also change the key-derivation strength: interactive, moderate, sensitive.")
    var kdf: KDFStrength?

    func run() throws {
      try PassphraseCommands.change(
        try Runtime(options), newFile: newPassphraseFile, strength: kdf)
      Report.note("passphrase changed; the old one no longer opens this journal")
    }
  }
}
