import ArgumentParser
import JournalApp
import JournalDiagnostics

/// `journal`: an encrypted, private, offline journal for psychedelic-assisted therapy.
struct Journal: ParsableCommand {
  /// The configuration ArgumentParser reads: `plainConfiguration`, except while
  /// `parse(_:)` parses a command line that cannot ask for a completion script.
  static var configuration: CommandConfiguration {
    lookForCompletionRequest ? plainConfiguration : skippingCompletionLook
  }

  static let plainConfiguration = CommandConfiguration(
    commandName: "journal",
    abstract: "A private, encrypted journal for psychedelic-assisted therapy sessions.",
    discussion: """
      Everything you write is encrypted on this machine; it leaves it only as you choose: \
      sealed for your own devices ("journal sync"), or for a person you name ("journal \
      share", "journal export"). Start with "journal init", then "journal new". The whole \
      manual: \(Manual.pointer), once journal is installed (Scripts/install).
      """,
    version: "0.1.0",
    subcommands: [
      Init.self, New.self, Reflect.self, Close.self, Reopen.self, List.self, Search.self, Show.self,
      Edit.self, NoteCommand.self, Tags.self,
      Delete.self, Undo.self,
      Remind.self, Reminders.self, Drafts.self, Export.self, Import.self, Backup.self, Verify.self,
      Trends.self, Unlock.self, Lock.self, Status.self, AgentServe.self, Passwd.self,
      Capture.self, RecoveryCode.self, Share.self, Sync.self, Resolve.self,
    ]
  )
}

extension Journal {
  /// Whether ArgumentParser looks for `--generate-completion-script` as it parses: it does
  /// so in every command line, by parsing it twice more (2.7 M of the 46 M instructions of
  /// an `edit`). Set only by `parse(_:)`.
  nonisolated(unsafe) private static var lookForCompletionRequest = true

  /// ArgumentParser skips that look for a root command with a "super-command" name (its
  /// pseudo-commands); the name is used nowhere else but in help and usage text, which are
  /// never made from this configuration.
  private static let skippingCompletionLook = {
    var configuration = plainConfiguration
    configuration._superCommandName = "journal"
    return configuration
  }()

  /// The command `arguments` ask for. Where no argument names a completion script, the look
  /// for one could find nothing and is skipped; a command line that does not parse (an
  /// error, `--version`, a dump of the help) is parsed again with the look, so that what
  /// ArgumentParser answers is word for word as ever (help asked for parses, to ArgumentParser's
  /// `HelpCommand`, whose text is made after the look is back on). A shell's request for
  /// completions (`---completion`) is parsed once, the usual way: ArgumentParser answers it
  /// by running its completion, which a second parse would run again.
  static func parse(_ arguments: [String]) throws -> any ParsableCommand {
    if arguments.first != "---completion",
      !arguments.contains(where: { $0.hasPrefix("--generate-completion-script") })
    {
      lookForCompletionRequest = false
      let command = try? parseAsRoot(arguments)
      lookForCompletionRequest = true
      if let command { return command }
    }
    return try parseAsRoot(arguments)
  }
}

extension Journal {
  /// What `journal` alone prints: the first steps, and where the rest is.
  static let start = """
    journal — a private, encrypted journal for psychedelic-assisted therapy sessions.

    To begin:
      journal init      make your journal (once), with a passphrase
      journal new       log a session
      journal reflect   add your reflections later
      journal list      your sessions, newest first

    Every command: "journal help". The whole manual: \(Manual.pointer).

    """
}

extension Journal {
  /// Every command of journal's, subcommands included: what `main` runs as its own.
  static let commandTypes: Set<ObjectIdentifier> = {
    var found: Set<ObjectIdentifier> = []
    var pending: [any ParsableCommand.Type] = [Journal.self]
    while let command = pending.popLast() {
      if found.insert(ObjectIdentifier(command)).inserted {
        pending += command.configuration.subcommands
      }
    }
    return found
  }()
}
