import ArgumentParser
import JournalApp
import JournalDiagnostics

/// `journal`: an encrypted, private, offline journal for psychedelic-assisted therapy.
struct Journal: ParsableCommand {
  static let configuration = CommandConfiguration(
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
