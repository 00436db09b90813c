import ArgumentParser
import JournalApp
import JournalCore
import JournalDiagnostics
import JournalTerminal

extension Journal {
  /// `journal tags`: every tag in the journal, with how many sessions carry it.
  struct Tags: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "tags",
      abstract: "List your tags, with how many sessions carry each.",
      discussion: """
        Tags are sealed like every other field: this opens the journal. Add one with \
        "journal new --tag NAME" or "journal edit ID --tag NAME"; "journal list --tag NAME" \
        lists its sessions.
        """)

    @OptionGroup var options: GlobalOptions

    @Flag(help: "Print JSON (its fields are in \(Manual.pointer), JSON OUTPUT).")
    var json = false

    func run() throws {
      let runtime = try Runtime(options)
      let journal = try runtime.openVault(check: .listing)
      let (tags, damaged) = try journal.tagCounts()
      if json {
        try Runtime.output(
          Render.encode([
            "schema_version": 1,
            "tags": tags.map { ["name": $0.name, "sessions": $0.sessions] as [String: Any] },
          ]))
      } else if tags.isEmpty {
        Report.note(#"no tags yet; "journal edit ID --tag NAME" adds one"#)
      } else {
        let width = tags.map(\.name.count).max() ?? 0
        try Runtime.output(
          tags.map {
            $0.name + String(repeating: " ", count: width - $0.name.count + 2)
              + counted($0.sessions, "session")
          }.joined(separator: "\n") + "\n")
      }
      guard damaged.isEmpty else { throw AppError.sessionsDamaged(ids: damaged.map(\.short)) }
    }
  }
}
