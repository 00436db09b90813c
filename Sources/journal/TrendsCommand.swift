import ArgumentParser
import JournalApp
import JournalDiagnostics
import JournalTerminal

extension Journal {
  /// `journal trends`: mood before and after, over time and per treatment.
  struct Trends: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "trends",
      abstract: "Mood before and after over time and per treatment, with the numbers.",
      discussion: "Descriptive only: averages and how many sessions they rest on.")

    @OptionGroup var options: GlobalOptions

    @Flag(help: "Print JSON (its fields are in \(Manual.pointer), JSON OUTPUT).")
    var json = false

    func run() throws {
      let runtime = try Runtime(options)
      let journal = try runtime.openVault()
      // Counted as the summaries are read, oldest first: nothing held per session. A planned
      // session has not happened, so it has no place in trends yet.
      var tally = JournalTerminal.Trends.Tally(timeZone: runtime.context.timeZone)
      let happened = SessionFilter(now: runtime.context.now(), standing: .happened)
      let damaged = try journal.streamList(happened, order: .oldestFirst) {
        tally.add($0)
      }
      let trends = JournalTerminal.Trends(tally)
      if json {
        try Runtime.output(Render.json(trends: trends))
      } else if trends.overall.sessions == 0 {
        Report.note(#"no sessions yet; "journal new" logs your first"#)
      } else {
        let view = TrendsView(
          trends, presentation: runtime.presentation)
        try Runtime.output(view.text)
      }
      guard damaged.isEmpty else { throw AppError.sessionsDamaged(ids: damaged.map(\.short)) }
    }
  }
}
