import ArgumentParser
import JournalApp
import JournalCore
import JournalDiagnostics

extension Journal {
  /// `journal reflect <id>`: the "Later" fields, each saved as soon as it is entered.
  struct Reflect: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "reflect",
      abstract: "Add mood after, reflection, environment and music to a session.",
      discussion: "Each answer is saved as soon as it is entered; Enter skips a question. "
        + "Writing the reflection completes the session; after that, reflect asks only the "
        + "later fields still empty.")

    @OptionGroup var options: GlobalOptions

    @Argument(
      help: "The session's id, or any unique start of it.", completion: Completions.sessionIDs)
    var id: String

    @Flag(help: "Write the reflection in $VISUAL or $EDITOR. Also JOURNAL_EDITOR=1.")
    var editor = false

    @Option(help: "Mood after, 1 to 10.")
    var moodAfter: String?
    @Option(help: ArgumentHelp(#"Your reflection ("-" reads standard input)."#))
    var reflection: String?
    @Option(help: ArgumentHelp(#"Where, and with whom ("-" reads standard input)."#))
    var environment: String?
    @Option(help: ArgumentHelp(#"Music notes ("-" reads standard input)."#))
    var music: String?

    func run() throws {
      let runtime = try Runtime(options)
      let flags: [(Field, String?)] = [
        (.moodAfter, moodAfter), (.reflection, reflection), (.environment, environment),
        (.music, music),
      ]
      let given = flags.compactMap { field, text in text.map { (field, $0) } }
      let changes = try FieldFlags.changes(given, runtime.context.fields)
      let revised = try ReviseSession.reflect(id, changes: changes, editor: editor, runtime)
      let (session, shown) = (revised.session, revised.shownID)
      if revised.sealed {
        Report.note(
          "sealed; it joins session \(shown) when the journal is next opened with the passphrase")
      } else if session.status == .complete {
        Report.note("session \(shown) is complete")
      } else if session.status == .closed {
        Report.note(
          #"session \#(shown) is left here, without a reflection; "journal reopen \#(shown)" undoes it"#
        )
      } else if runtime.terminal != nil {
        Report.note(#"saved; session \#(shown) still needs a reflection"#)
      }
    }
  }
}
