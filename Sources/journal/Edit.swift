import ArgumentParser
import JournalApp
import JournalCore
import JournalDiagnostics

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

    @Argument(
      help: "The session's id, or any unique start of it.", completion: Completions.sessionIDs)
    var id: String

    @OptionGroup var fields: FieldFlags

    @Option(
      name: .customLong("tag"),
      help: ArgumentHelp("Add a tag (repeatable).", valueName: "name"))
    var tags: [String] = []

    @Option(
      name: .customLong("untag"),
      help: ArgumentHelp("Remove a tag (repeatable).", valueName: "name"))
    var untags: [String] = []

    @Flag(
      help:
        "Edit the intention, reflection, environment and music in $VISUAL or $EDITOR, each with its current text. Also JOURNAL_EDITOR=1."
    )
    var editor = false

    func run() throws {
      let runtime = try Runtime(options)
      let changes = try fields.changes(runtime.context.fields)
      let revised = try ReviseSession.edit(
        id, changes: changes, tags: (adding: tags, removing: untags), editor: editor, runtime)
      Report.note("saved session \(revised.shownID) (\(revised.session.status.label))")
    }
  }
}
