import ArgumentParser
import JournalApp
import JournalCore

extension Journal {
  /// `journal edit <id>`: changes any field.
  struct Edit: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "edit",
      abstract: "Change any field of a session.",
      discussion: """
        With flags, changes exactly those fields in one save; an empty value ("") clears an optional field. Without flags, in a terminal, walks through every field.
        """)

    @OptionGroup var options: GlobalOptions

    @Argument(help: "The session's id, or any unique start of it.")
    var id: String

    @OptionGroup var fields: FieldFlags

    func run() throws {
      let runtime = try Runtime(options)
      let changes = try fields.changes(runtime.context.fields)
      if changes.isEmpty && runtime.terminal == nil { throw AppError.nothingToChange }
      let journal = try runtime.openVault()
      let sessionID = try journal.resolve(id)
      let session: Session
      if changes.isEmpty, let terminal = runtime.terminal {
        session = try Forms(terminal: terminal, context: runtime.context).edit(
          try journal.session(sessionID)
        ) { try journal.apply($0, to: sessionID) }
      } else {
        session = try journal.apply(changes, to: sessionID)
      }
      Report.note(
        "saved session \(try journal.displayID(sessionID)) (\(session.status.label))")
    }
  }
}
