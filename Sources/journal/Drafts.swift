import ArgumentParser
import Foundation
import JournalApp
import JournalCore
import JournalDrafts

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
        let journal = try runtime.openVault()
        let (_, recovery) = try runtime.recoverDrafts(journal)
        for notice in recovery.notices { Report.note(notice) }
        let format = DisplayFormat(timeZone: runtime.context.timeZone)
        if json {
          let items: [[String: Any]] = recovery.offers.map {
            [
              "id": $0.draft.id.hex, "short_id": $0.draft.id.short,
              "started": DisplayFormat.iso8601($0.started),
              "updated": DisplayFormat.iso8601($0.updated), "fields_answered": $0.filledCount,
            ]
          }
          Runtime.output(Render.encode(["schema_version": 1, "drafts": items]))
        } else if recovery.offers.isEmpty {
          Report.note("no unfinished drafts")
        } else {
          for stored in recovery.offers {
            Runtime.output(
              "\(stored.draft.id.short)  started \(format.dateTime(stored.started))  "
                + "changed \(format.dateTime(stored.updated))  \(stored.filledCount) of 5 fields\n")
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
        let runtime = try Runtime(options)
        let journal = try runtime.openVault()
        let store = try runtime.drafts(journal)
        guard let prefix = SessionID.normalisedPrefix(id) else {
          throw DraftError.noMatch(prefix: id)
        }
        let target = try store.resolve(prefix, among: try store.scan())
        try store.discard(target)
        Report.note("draft \(target.short) discarded")
      }
    }
  }
}
