import ArgumentParser

/// Options every command takes: where the vault is and where the passphrase comes from.
struct GlobalOptions: ParsableArguments {
  @Option(
    name: .long,
    help: ArgumentHelp(
      "The vault file (default: $JOURNAL_VAULT, else "
        + "$XDG_DATA_HOME/journal/vault.db).", valueName: "path"),
    completion: .file())
  var vault: String?

  @Option(
    name: .long,
    help: ArgumentHelp(
      "Read the passphrase from the first line of this file (0600). Also JOURNAL_PASSPHRASE_FILE.",
      valueName: "path"),
    completion: .file())
  var passphraseFile: String?

  @Option(
    name: .long,
    help: ArgumentHelp(
      "Read the passphrase from this open file descriptor. Also JOURNAL_PASSPHRASE_FD.",
      valueName: "fd"))
  var passphraseFd: Int32?

  @Flag(
    name: .long,
    help: ArgumentHelp(
      "Plain output: no colour, emoji, cursor movement or redraws; read line by line. "
        + "Also the plain setting, and automatic when TERM is dumb."))
  var plain = false

  @Flag(
    name: .long,
    help: "Never prompt, even in a terminal; stop with a message when something is missing.")
  var noInput = false
}
