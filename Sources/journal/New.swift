import ArgumentParser
import JournalApp
import JournalCore

extension Journal {
  /// `journal new`: logs a session. Guided in a terminal; with flags, in one line.
  struct New: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Log a session: the \"Now\" fields first, the \"Later\" ones after saving.",
      discussion: """
        In a terminal, asks for what the flags do not give. Without one, --intention and --mood-before are required; the date defaults to now and the treatment to psilocybin. Prints the new session's id.
        """)

    @OptionGroup var options: GlobalOptions
    @OptionGroup var fields: FieldFlags

    @Flag(help: "Print the saved session as JSON.")
    var json = false

    @Flag(
      help: "Write the intention (and reflection) in $VISUAL or $EDITOR. Also JOURNAL_EDITOR=1.")
    var editor = false

    func run() throws {
      let runtime = Runtime(options)
      let changes = try fields.changes(runtime.context.fields)
      var draft = SessionDraft(id: runtime.context.newSessionID())
      var later: [Session.Change] = []
      for change in changes {
        if Field.later.contains(change.field) {
          later.append(change)
        } else {
          try draft.apply(change)
        }
      }
      let terminal = runtime.terminal
      if terminal == nil {
        if draft.date == nil { draft.date = runtime.context.now() }
        if draft.treatment == nil { draft.treatment = .psilocybin }
        let missing = draft.missingFields
        guard missing.isEmpty else { throw AppError.missingFlags(missing.map(\.flag)) }
      }
      let journal = try runtime.openVault()
      let forms = try terminal.map {
        Forms(terminal: try runtime.formTerminal($0, editor: editor), context: runtime.context)
      }
      var draftFile: DraftFile?
      if let terminal, let forms {
        let file = try DraftFile.begin(
          draft: &draft, runtime: runtime, journal: journal, terminal: terminal, forms: forms)
        let given = Set(fields.given.map(\.0)).union(file.answered)
        try forms.fillNow(&draft, skipping: given) { file.keep($0) }
        draftFile = file
      }
      var session = try journal.save(draft)
      // Only once the session is in the vault: a crash before this leaves the draft, which
      // the next run sees is saved already and removes.
      draftFile?.finish()
      if !later.isEmpty { session = try journal.apply(later, to: session.id) }
      let shown = try journal.displayID(session.id)
      if let terminal, let forms {
        terminal.writeLine(
          "Saved. Session \(shown) \(session.status == .complete ? "is complete" : "needs reflection")."
        )
        if session.status == .needsReflection,
          try forms.confirm("The later fields are open now. Add them now?", default: false)
        {
          session = try forms.fillLater(session) { try journal.apply($0, to: session.id) }
        } else if session.status == .needsReflection {
          terminal.writeLine(#"Add them any time with "journal reflect \#(shown)"."#)
        }
      }
      if json {
        Runtime.output(Render.json(session: session))
      } else {
        Runtime.output(shown + "\n")
      }
    }
  }
}
