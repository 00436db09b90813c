import JournalApp
import JournalTerminal

extension Runtime {
  /// The runtime for a command given `options` on its command line.
  init(_ options: GlobalOptions) throws {
    try self.init(
      Options(
        vault: options.vault, passphraseFile: options.passphraseFile,
        passphraseFd: options.passphraseFd, plain: options.plain, noInput: options.noInput))
  }

  /// The renderer for stdout.
  var render: Render {
    Render(timeZone: context.timeZone, presentation: presentation, now: context.now())
  }
}
