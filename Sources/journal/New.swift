import ArgumentParser
import JournalApp
import JournalCore

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
      // Settings are read before anything is saved, so a bad one never interrupts a save.
      let reminders = try runtime.reminders(journal.file)
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
      if let reminder, session.status == .needsReflection {
        try reminders.set(session.id.hex, reminder)
      }
      if let terminal, let forms {
        terminal.writeLine(
          "Saved. Session \(shown) \(session.status == .complete ? "is complete" : "needs reflection")."
        )
        if reminder == nil, session.status == .needsReflection,
          let choice = try Self.askReminder(terminal), choice != ReminderChoice.none,
          let due = try reminders.set(session.id.hex, choice)
        {
          let format = DisplayFormat(timeZone: runtime.context.timeZone)
          terminal.writeLine("A gentle reminder will come \(format.dateTime(due)).")
        }
        if session.status == .needsReflection,
          try forms.confirm("The later fields are open now. Add them now?", default: false)
        {
          session = try forms.fillLater(session) { try journal.apply($0, to: session.id) }
        } else if session.status == .needsReflection {
          terminal.writeLine(#"Add them any time with "journal reflect \#(shown)"."#)
        }
      }
      if json {
        try Runtime.output(Render.json(session: session))
      } else {
        try Runtime.output(shown + "\n")
      }
    }

    /// "Would you like a reminder to add reflections later?" — one key each; No thanks is
    /// the default (Enter).
    static func askReminder(_ terminal: TTY) throws -> ReminderChoice? {
      terminal.writeLine("Would you like a reminder to add reflections later?")
      terminal.write("  1 In 3 hours   2 Tomorrow   3 No thanks [3] ")
      while true {
        guard let key = try terminal.waitForKey(timeout: 3600) else { return ReminderChoice.none }
        switch key {
        case [0x31], [0x68]:  // 1, h
          terminal.writeLine("In 3 hours")
          return .inThreeHours
        case [0x32], [0x74]:  // 2, t
          terminal.writeLine("Tomorrow")
          return .tomorrow
        case [0x33], [0x6E], [0x0D], [0x0A], [0x1B]:  // 3, n, Enter, Esc
          terminal.writeLine("No thanks")
          return ReminderChoice.none
        default:
          continue
        }
      }
    }
  }
}
