import ArgumentParser
import JournalApp
import JournalDiagnostics
import JournalTerminal

extension Journal {
  /// `journal show <id>`: the whole session.
  struct Show: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "show",
      abstract: "Show a whole session, grouped Before / Setting / Reflection.")

    @OptionGroup var options: GlobalOptions

    @Argument(
      help: "The session's id, or any unique start of it.", completion: Completions.sessionIDs)
    var id: String

    @Flag(help: "Print JSON (its fields are in \(Manual.pointer), JSON OUTPUT).")
    var json = false

    func run() throws {
      let runtime = try Runtime(options)
      let journal = try runtime.openVault(check: .point)
      let session = try journal.session(try journal.resolve(id))
      if json {
        try Runtime.output(Render.json(session: session))
      } else {
        let render = runtime.render
        // Through $PAGER (less -R) at a terminal when taller than it; never when piped.
        try Pager.show(
          render.detail(session, shownID: try journal.displayID(session.id)),
          environment: runtime.context.environment)
      }
    }
  }
}
