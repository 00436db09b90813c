import ArgumentParser
import JournalApp
import JournalDiagnostics

extension Journal {
  /// `journal passwd`: a new passphrase, without re-encrypting any record.
  struct Passwd: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "passwd",
      abstract: "Change your passphrase. Sessions are not re-encrypted; only the key is.",
      discussion: """
        The same data key is wrapped under the new passphrase: the old one no longer opens \
        this journal, but a copy made before (a backup) still opens with it. With \
        --recovery-code, a lost passphrase is replaced using the recovery code.
        """)

    @OptionGroup var options: GlobalOptions

    @Option(
      help: ArgumentHelp(
        "Read the new passphrase from this file (0600). Also JOURNAL_NEW_PASSPHRASE_FILE.",
        valueName: "path"),
      completion: .file())
    var newPassphraseFile: String?

    @Option(help: "Also change the key-derivation strength: interactive, moderate, sensitive.")
    var kdf: KDFStrength?

    @Flag(help: "The passphrase is lost: open with the recovery code instead (asked, or a file).")
    var recoveryCode = false

    @Flag(
      help: "The passphrase may have leaked: also change the data key, sealing every session again."
    )
    var newKey = false

    @Flag(help: "With --new-key: go ahead without asking, even just after a session.")
    var yes = false

    @Option(
      help: ArgumentHelp(
        "Read the recovery code from this file (0600). Also JOURNAL_RECOVERY_CODE_FILE.",
        valueName: "path"),
      completion: .file())
    var recoveryCodeFile: String?

    func validate() throws {
      if newKey && (recoveryCode || recoveryCodeFile != nil) {
        throw ValidationError("--new-key and --recovery-code go one at a time")
      }
      if yes && !newKey {
        throw ValidationError("--yes goes with --new-key")
      }
    }

    func run() throws {
      let runtime = try Runtime(options)
      if newKey {
        let changed = try PassphraseCommands.changeKey(
          runtime, newFile: newPassphraseFile, strength: kdf, confirmed: yes)
        Report.note(
          "the key is new: \(counted(changed.sessions, "session")) sealed again under it, and "
            + "the old passphrase no longer opens this journal"
            + (changed.serverSessions == nil ? "" : " here"))
        if let synced = changed.synced {
          // The sync made first, under the old key: what it did, as `journal sync` says it.
          SyncLines.notes(synced)
        }
        if let sent = changed.serverSessions {
          // What is true now: the server holds only the new key's copy; the other devices
          // still hold the old key until their next sync.
          Report.note(
            "the sync server's copy was replaced: \(counted(sent, "session")) sealed under the "
              + #"new key; each other device asks for the new passphrase at its next "journal "#
              + #"sync", and opens with the old one until then"#)
        }
        Report.note(
          "copies made before (backups, a copied journal"
            + (changed.serverSessions == nil ? "" : ", the server's backups")
            + ") still open with the old passphrase: delete them, or keep them as safe as before")
        if let code = changed.recoveryCode {
          // Stored with the new key already (a key change cannot wait on a terminal): if it
          // is lost on the way, "journal recovery-code" makes another.
          try code.print()
          Report.note(
            "the recovery code is new too (the old one opened the old key): write this one down")
        }
        return
      }
      var syncs = false
      if recoveryCode || recoveryCodeFile != nil {
        try PassphraseCommands.recover(
          runtime, codeFile: recoveryCodeFile, newFile: newPassphraseFile, strength: kdf)
        Report.note("passphrase set with the recovery code; the code still works")
      } else {
        syncs = try PassphraseCommands.change(runtime, newFile: newPassphraseFile, strength: kdf)
      }
      // What passwd does, exactly: the same data key under a new passphrase.
      Report.note(
        "passphrase changed; the old one no longer opens this journal" + (syncs ? " here" : ""))
      if syncs {
        Report.note(
          #"the next "journal sync" sends it; each other device takes it at its own next "#
            + "sync, and opens with the old one until then")
      }
      // The data key is the same (nothing was re-encrypted): an old copy and the old
      // passphrase give it, and it reads what is written from now on too.
      Report.note(
        "copies made before (backups, a copied journal"
          + (syncs ? ", the sync server's" : "") + ") still open with the old passphrase, and "
          + "with them the same key reads everything written from now on")
      Report.note(
        #"if the old passphrase may have leaked, "journal passwd --new-key" changes the key "#
          + (syncs ? "itself, here and on the server" : "itself"))
    }
  }
}
