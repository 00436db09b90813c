import ArgumentParser
import Foundation
import JournalApp
import JournalDiagnostics
import JournalTerminal

extension Journal {
  /// `journal close <id>`: leave a session without a reflection.
  struct Close: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "close",
      abstract: "Leave a session without a reflection: it is complete, and no longer reminded.",
      discussion: """
        For a session you do not want to write about. "journal reflect" can still add a \
        reflection later; "journal reopen" makes it wait for one again.
        """)

    @OptionGroup var options: GlobalOptions

    @Argument(
      help: "The session's id, or any unique start of it.", completion: Completions.sessionIDs)
    var id: String

    func run() throws {
      let runtime = try Runtime(options)
      let closed = try CloseSession.close(id, runtime)
      let shown = closed.shownID
      Report.note(
        #"session \#(shown) is closed, without a reflection; "journal reopen \#(shown)" undoes it"#)
    }
  }

  /// `journal reopen <id>`: a closed session waits for reflection again.
  struct Reopen: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "reopen",
      abstract: "Make a session closed without a reflection wait for one again.",
      discussion: "Its reminder comes back, tomorrow at 09:00 (JOURNAL_REMINDER_TIME).")

    @OptionGroup var options: GlobalOptions

    @Argument(
      help: "The session's id, or any unique start of it.", completion: Completions.sessionIDs)
    var id: String

    func run() throws {
      let runtime = try Runtime(options)
      let reopened = try CloseSession.reopen(id, runtime)
      let when = reopened.reminder.map {
        "; a reminder comes " + DisplayFormat(timeZone: runtime.context.timeZone).dateTime($0)
      }
      Report.note(
        reopened.planned
          ? "session \(reopened.shownID) is open again, and planned: it waits for your "
            + "reflection once its date has passed"
          : "session \(reopened.shownID) waits for your reflection again" + (when ?? ""))
    }
  }
}
