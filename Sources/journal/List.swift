import ArgumentParser
import JournalApp
import JournalCore
import JournalDiagnostics
import JournalTerminal

extension Journal {
  /// `journal list`: every session, newest first.
  struct List: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "list",
      abstract: "List sessions, newest first: id, date, mood, treatment, status.")

    @OptionGroup var options: GlobalOptions

    @OptionGroup var filters: FilterOptions

    @Flag(help: "Print JSON (its fields are in \(Manual.pointer), JSON OUTPUT).")
    var json = false

    func run() throws {
      let runtime = try Runtime(options)
      let filter = try filters.filter(runtime)
      if json {
        // Streamed: written as it is read, so memory does not grow with the journal.
        let journal = try runtime.openVault()
        let output = try OutputFile(.standardOutput)
        var writer = Render.ListJSON()
        let damaged = try journal.streamList(filter) { damaged in
          try output.write(writer.begin(damaged: damaged))
        } _: { summary in
          try output.write(writer.add(summary))
        }
        try output.write(writer.end())
        try output.finish()
        return try Self.report(damaged)
      }
      let journal = try runtime.openVault(check: .listing)
      let (sessions, damaged) = try journal.list(filter)
      if sessions.rows.isEmpty && damaged.isEmpty {
        Report.note(
          filter.standing == .status(.needsReflection)
            ? "no sessions are waiting for reflection"
            : filter.standing == .planned
              ? "no sessions are planned"
              : filters.narrows
                ? "no session matches" : #"no sessions yet; "journal new" logs your first"#)
      } else {
        try runtime.render.list(sessions) { try Runtime.output($0) }
      }
      try Self.report(damaged)
    }

    /// Names the rows that could not be read, with their exit code.
    private static func report(_ damaged: [SessionID]) throws {
      guard damaged.isEmpty else { throw AppError.sessionsDamaged(ids: damaged.map(\.short)) }
    }
  }
}
