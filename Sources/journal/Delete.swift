import ArgumentParser
import Foundation
import JournalApp
import JournalCore
import JournalDiagnostics

extension Journal {
  /// `journal delete <id>…`: confirm, delete, and offer a moment to undo.
  struct Delete: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "delete",
      abstract: "Delete sessions, with a few seconds to undo.",
      discussion: """
        Asks for confirmation (--yes skips it), then, in a terminal, counts down: press u to \
        undo, Enter or Esc to finish. From any terminal, "journal undo" restores the deletion \
        while its window is open (10 s; JOURNAL_UNDO_WINDOW sets another). After that the \
        sessions are purged from the vault file for good.
        """)

    @OptionGroup var options: GlobalOptions

    @Argument(
      help: "The sessions' ids, or any unique start of each.", completion: Completions.sessionIDs)
    var ids: [String]

    @Flag(help: "Delete without asking for confirmation.")
    var yes = false

    func run() throws {
      switch try DeleteSessions.run(ids, confirmed: yes, try Runtime(options)) {
      case .declined:
        throw AppError.declined(what: "nothing was deleted")
      case .countedDown:
        return
      case .deleted(let what, let window) where window <= 0:
        Report.note("deleted \(what) for good (no undo window)")
      case .deleted(let what, let window):
        Report.note(
          #"deleted \#(what); "journal undo" restores it within \#(Self.describe(window))"#)
      }
    }

    static func describe(_ seconds: TimeInterval) -> String {
      seconds < 120 ? "\(Int(seconds)) s" : "\(Int(seconds / 60)) min"
    }
  }

  /// `journal undo`: restores the most recent deletion while its window is open.
  struct Undo: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "undo",
      abstract: "Restore the most recent deletion, within its undo window.",
      discussion: "Needs no passphrase: the sealed sessions are moved back as they were.")

    @OptionGroup var options: GlobalOptions

    func run() throws {
      let undone = try DeleteSessions.undo(try Runtime(options))
      let restored = undone.ids
      if !restored.isEmpty {
        let what =
          restored.count == 1
          ? "session \(restored[0].short)"
          : "\(restored.count) sessions: " + restored.map(\.short).joined(separator: ", ")
        Report.note("restored \(what)")
      }
      for id in undone.remindersDropped {
        Report.note(
          #"the reminder of session "\#(id.short)" was damaged in the trash and was not restored"#)
      }
      for id in undone.stayed {
        Report.note(
          #"session "\#(id.short)" in the trash is damaged (changed in the file) and stays there"#)
      }
    }
  }
}
