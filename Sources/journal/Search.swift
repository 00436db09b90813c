import ArgumentParser
import JournalApp
import JournalCore
import JournalDiagnostics
import JournalTerminal

/// The fields `search --in` can name.
enum SearchField: String, ExpressibleByArgument, CaseIterable {
  case intention, reflection, notes, environment, music, dose, treatment

  var field: Field {
    switch self {
    case .intention: .intention
    case .reflection: .reflection
    case .notes: .notes
    case .environment: .environment
    case .music: .music
    case .dose: .dose
    case .treatment: .treatment
    }
  }
}

/// What a match becomes where it was found: its JSON's parts, or its lines of text.
enum Found: Sendable {
  case json(SessionSummary, [TextSearch.Hit])
  case text([UInt8])
}

extension Journal {
  /// `journal search WORDS…`: the sessions whose texts hold every word.
  struct Search: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "search",
      abstract: "Find the sessions whose texts hold all the words, newest first.",
      discussion: """
        Case and accents do not matter; "a phrase" in quotes is found as it is, also across \
        a line break. Words given here are visible to other users of this computer while \
        journal runs (as every argument is): "journal search -" reads them from standard \
        input, and at a terminal "journal search" asks for them.
        """)

    @OptionGroup var options: GlobalOptions
    @OptionGroup var filters: FilterOptions

    @Option(
      name: .customLong("in"),
      help:
        "Search only this field (repeatable): intention, reflection, environment, music, dose, treatment."
    )
    var fields: [SearchField] = []

    @Flag(help: "Print JSON: each match's id and hits (field, offset, length).")
    var json = false

    @Argument(
      help: ArgumentHelp(#"The words, "a phrase", or "-" to read them from standard input."#))
    var words: [String] = []

    func run() throws {
      let runtime = try Runtime(options)
      let filter = try filters.filter(runtime)
      let search = try SearchSessions.words(words, runtime)
      let chosen = fields.isEmpty ? TextSearch.fields : fields.map(\.field)
      var writer = Render.SearchJSON()
      let output = try OutputFile(.standardOutput)
      if json { try output.write(writer.begin()) }
      let render = runtime.render
      let asJSON = json
      // Each match's lines are made where it was found (on every core); written in order.
      let (matched, damaged) = try SearchSessions.search(
        search, in: chosen, filter: filter, runtime
      ) { session, hits -> Found in
        if asJSON { return .json(session.summary, hits) }
        var bytes: [UInt8] = []
        render.list(ListRows([session.summary])) { bytes += $0 }
        if let first = hits.first, let text = TextSearch.text(of: first.field, in: session) {
          let (before, hit, after) = TextSearch.context(of: first, in: text)
          bytes += Array(
            render.searchContext(field: first.field, before: before, hit: hit, after: after).utf8)
        }
        return .text(bytes)
      } found: { found in
        switch found {
        case .json(let summary, let hits): try output.write(writer.add(summary, hits: hits))
        case .text(let bytes): try output.write(bytes)
        }
      }
      if json { try output.write(writer.end(damaged: damaged)) }
      try output.finish()
      if matched == 0, !json { Report.note("no session mentions these words") }
      guard damaged.isEmpty else { throw AppError.sessionsDamaged(ids: damaged.map(\.short)) }
    }
  }
}
