import ArgumentParser
import Foundation
import JournalApp
import JournalCore
import JournalDiagnostics
import JournalTerminal

extension Journal {
  /// `journal drafts`: unfinished drafts, and discarding one.
  struct Drafts: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "drafts",
      abstract: "List unfinished drafts, or discard one.",
      subcommands: [ListDrafts.self, Discard.self], defaultSubcommand: ListDrafts.self)

    /// `journal drafts [list]`
    struct ListDrafts: ParsableCommand {
      static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List unfinished drafts: when, and how many fields are answered (no content).")

      @OptionGroup var options: GlobalOptions

      @Flag(help: "Print JSON.")
      var json = false

      func run() throws {
        let runtime = try Runtime(options)
        let (drafts, notices) = try UnfinishedDrafts.list(runtime)
        for notice in notices { Report.note(notice) }
        let format = DisplayFormat(timeZone: runtime.context.timeZone)
        if json {
          let items: [[String: Any]] = drafts.map {
            [
              "id": $0.id.hex, "short_id": $0.id.short,
              "started": DisplayFormat.iso8601($0.started),
              "updated": DisplayFormat.iso8601($0.updated), "fields_answered": $0.fieldsAnswered,
            ]
          }
          try Runtime.output(Render.encode(["schema_version": 1, "drafts": items]))
        } else if drafts.isEmpty {
          Report.note("no unfinished drafts")
        } else {
          for draft in drafts {
            try Runtime.output(
              "\(draft.id.short)  started \(format.dateTime(draft.started))  "
                + "changed \(format.dateTime(draft.updated))  \(draft.fieldsAnswered) of 5 fields\n"
            )
          }
        }
      }
    }

    /// `journal drafts discard <id>`
    struct Discard: ParsableCommand {
      static let configuration = CommandConfiguration(
        commandName: "discard",
        abstract: "Remove an unfinished draft for good.")

      @OptionGroup var options: GlobalOptions

      @Argument(help: "The draft's id, or any unique start of it.")
      var id: String

      func run() throws {
        let target = try UnfinishedDrafts.discard(id, try Runtime(options))
        Report.note("draft \(target.short) discarded")
      }
    }
  }
}
