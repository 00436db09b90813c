import ArgumentParser
import JournalApp
import JournalCore
import JournalTerminal

extension Journal {
  /// `journal list`: every session, newest first.
  struct List: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "list",
      abstract: "List sessions, newest first: id, date, mood, treatment, status.")

    @OptionGroup var options: GlobalOptions

    @Flag(help: "Only the sessions waiting for your reflection.")
    var needsReflection = false

    @Flag(help: "Print JSON (its fields are in \(Manual.pointer), JSON OUTPUT).")
    var json = false

    func run() throws {
      let runtime = try Runtime(options)
      let journal = try runtime.openVault(forListing: true)
      let (sessions, damaged) = try journal.list(needsReflection: needsReflection)
      if json {
        try Runtime.output(Render.json(list: sessions, damaged: damaged))
      } else if sessions.isEmpty && damaged.isEmpty {
        Report.note(
          needsReflection
            ? "no sessions are waiting for reflection"
            : #"no sessions yet; "journal new" logs your first"#)
      } else {
        try runtime.render.list(sessions) { try Runtime.output($0) }
      }
      guard damaged.isEmpty else {
        Report.damaged(damaged)
        throw ExitCodeOnly(code: .damaged)
      }
    }
  }
}
