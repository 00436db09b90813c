import ArgumentParser
import JournalApp
import JournalDiagnostics

extension Journal {
  /// `journal recovery-code`: a second key, for a lost passphrase.
  struct RecoveryCode: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "recovery-code",
      abstract: "Make a recovery code: a second key, on paper, for a lost passphrase.",
      discussion: """
        Shows a new code of 32 letters and digits once; write it down and keep it away from \
        this computer. "journal passwd --recovery-code" then sets a new passphrase with it. \
        Making a new code replaces the old one, which stops working.
        """)

    @OptionGroup var options: GlobalOptions

    @Flag(help: "Replace or remove the code without asking.")
    var yes = false

    @Flag(help: "Remove the recovery code: only the passphrase opens the journal.")
    var remove = false

    @Flag(help: "Say whether there is a recovery code (no passphrase needed).")
    var status = false

    func validate() throws {
      guard [remove, status].filter({ $0 }).count <= 1 else {
        throw ValidationError("--remove and --status go alone")
      }
    }

    func run() throws {
      let runtime = try Runtime(options)
      if status {
        let exists = try RecoveryCodes.exists(runtime)
        try Runtime.output(exists ? "a recovery code is set\n" : "no recovery code\n")
      } else if remove {
        let had = try RecoveryCodes.remove(runtime, yes: yes)
        Report.note(
          had
            ? "the recovery code is removed; only the passphrase opens this journal"
            : "there was no recovery code")
      } else if try RecoveryCodes.make(runtime, yes: yes) {
        Self.explain()
      } else {
        Report.note("kept the recovery code you have")
      }
    }

    /// What to do with the code just printed on stdout (the one thing printed there).
    static func explain() {
      Report.note(
        "this is your recovery code, shown only now: write it down and keep it apart from "
          + #"this computer; "journal passwd --recovery-code" uses it to set a new passphrase"#)
    }
  }
}
