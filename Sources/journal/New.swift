import ArgumentParser
import JournalApp
import JournalCore
import JournalDiagnostics
import JournalTerminal

extension Journal {
  /// `journal new`: logs a session. Guided in a terminal; with flags, in one line.
  struct New: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "new",
      abstract: "Log a session: the \"Now\" fields first, the \"Later\" ones after saving.",
      discussion: """
        In a terminal, asks for what the flags do not give. Without one, --intention and --mood-before are required; the date defaults to now and the treatment to psilocybin. Prints the new session's id.
        """)

    @OptionGroup var options: GlobalOptions
    @OptionGroup var fields: FieldFlags

    @Option(
      name: .customLong("tag"),
      help: ArgumentHelp("A tag for the session (repeatable).", valueName: "name"))
    var tags: [String] = []

    @Flag(help: "Print the saved session as JSON.")
    var json = false

    @Option(
      help: ArgumentHelp(
        "A reminder to reflect: 3h, tomorrow, none, or a duration.", valueName: "when"))
    var remind: String?

    @Flag(
      help: "Write the intention (and reflection) in $VISUAL or $EDITOR. Also JOURNAL_EDITOR=1.")
    var editor = false

    func run() throws {
      let runtime = try Runtime(options)
      let reminder = try remind.map { text in
        guard let choice = ReminderChoice.parse(text) else {
          throw AppError.badSetting(
            name: "--remind", expected: #"3h, tomorrow, none, or a duration such as "90m""#)
        }
        return choice
      }
      let saved = try NewSession.run(
        runtime, changes: try fields.changes(runtime.context.fields),
        given: Set(fields.given.map(\.0)), reminder: reminder, editor: editor, tags: tags)
      try Runtime.output(
        json ? Render.json(session: saved.session) : saved.shownID + "\n", saved: saved.shownID)
    }

  }
}
