import ArgumentParser
import JournalApp
import JournalCore
import JournalDiagnostics

extension Journal {
  /// `journal note <id> [TEXT | -]`: integration notes on a saved session.
  struct NoteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "note",
      abstract: "Add a dated integration note to a session, or correct or delete one.",
      discussion: """
        A note never changes the session's status: add as many as come, days, weeks or \
        months later. "journal show" lists them under the reflection, oldest first, numbered. \
        Without TEXT, a terminal asks for it (and how it feels now); otherwise it is read \
        from standard input. --edit N corrects note N, --delete N deletes it with the same \
        undo window as a session ("journal note ID --undo" restores it).
        """)

    @OptionGroup var options: GlobalOptions

    @Argument(
      help: "The session's id, or any unique start of it.", completion: Completions.sessionIDs)
    var id: String

    @Argument(help: ArgumentHelp(#"The note ("-" reads standard input)."#))
    var text: String?

    @Option(help: ArgumentHelp("How it feels now, 1 to 10."))
    var mood: String?

    @Flag(help: "With --edit: remove the note's mood.")
    var noMood = false

    @Option(name: .customLong("edit"), help: ArgumentHelp("Correct note N.", valueName: "N"))
    var editNumber: Int?

    @Option(name: .customLong("delete"), help: ArgumentHelp("Delete note N.", valueName: "N"))
    var deleteNumber: Int?

    @Flag(help: "Restore the note of this session deleted last, within its undo window.")
    var undo = false

    @Flag(help: "With --delete: delete without asking for confirmation.")
    var yes = false

    @Flag(help: "Write the note in $VISUAL or $EDITOR. Also JOURNAL_EDITOR=1.")
    var editor = false

    func validate() throws {
      let modes = [editNumber != nil, deleteNumber != nil, undo].filter { $0 }.count
      guard modes <= 1 else {
        throw ValidationError("choose one of --edit, --delete and --undo")
      }
      if deleteNumber != nil || undo {
        guard text == nil, mood == nil, !noMood, !editor else {
          throw ValidationError("--delete and --undo take no text, mood or editor")
        }
      }
      if noMood && (editNumber == nil || mood != nil) {
        throw ValidationError("--no-mood goes with --edit, without --mood")
      }
      if yes && deleteNumber == nil { throw ValidationError("--yes goes with --delete") }
      for number in [editNumber, deleteNumber].compactMap({ $0 }) where number < 1 {
        throw ValidationError("notes are numbered from 1, oldest first")
      }
    }

    func run() throws {
      let runtime = try Runtime(options)
      let given: SessionNotes.Given =
        switch text {
        case nil: .nothing
        case "-": .standardInput
        case let text?: .text(text)
        }
      let mood = try self.mood.map { try JournalCore.Note.mood($0) }
      let outcome: SessionNotes.Outcome
      if undo {
        outcome = try SessionNotes.restore(id, runtime)
      } else if let number = deleteNumber {
        outcome = try SessionNotes.delete(id, number: number, confirmed: yes, runtime)
      } else if let number = editNumber {
        let change: Mood?? = noMood ? .some(nil) : mood.map { .some($0) }
        outcome = try SessionNotes.edit(
          id, number: number, given: given, mood: change, editor: editor, runtime)
      } else {
        outcome = try SessionNotes.add(id, given: given, mood: mood, editor: editor, runtime)
      }
      switch outcome {
      case .added(let id, _, true):
        Report.note(
          "note sealed for session \(id); it joins the session when the journal is next "
            + "opened with the passphrase")
      case .added(let id, let number, false):
        Report.note("saved note \(number) of session \(id)")
      case .edited(let id, let number):
        Report.note("saved note \(number) of session \(id)")
      case .deleted(let id, let number, let window) where window <= 0:
        Report.note("deleted note \(number) of session \(id) for good (no undo window)")
      case .deleted(let id, let number, let window):
        Report.note(
          #"deleted note \#(number) of session \#(id); "journal note \#(id) --undo" restores "#
            + "it within \(Delete.describe(window))")
      case .countedDown:
        return
      case .restored(let id, let number):
        Report.note("restored note \(number) of session \(id)")
      }
    }
  }
}
