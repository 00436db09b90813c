import ArgumentParser
import Foundation
import JournalApp
import JournalCore
import JournalDiagnostics

extension ExportFormat: ExpressibleByArgument {}

/// The statuses a filter can name.
enum StatusChoice: String, ExpressibleByArgument, CaseIterable {
  case needsReflection = "needs-reflection"
  case complete
  case closed
  case planned

  var standing: SessionFilter.Standing {
    switch self {
    case .needsReflection: .status(.needsReflection)
    case .complete: .status(.complete)
    case .closed: .status(.closed)
    case .planned: .planned
    }
  }
}

extension Journal {
  /// `journal export`: your sessions in plaintext, to take elsewhere.
  struct Export: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "export",
      abstract: "Write sessions out as JSON, Markdown or CSV; encrypted with --to.",
      discussion: """
        JSON holds every field and is what "journal import" reads back. A file given with \
        --output is created new, readable only by you. Without --to the export is plaintext; \
        with --to (or --to-file) age encrypts it on the way, and nothing readable is written.
        """)

    @OptionGroup var options: GlobalOptions

    @Option(help: "json (default), markdown or csv.")
    var format: ExportFormat = .json
    @OptionGroup var filters: FilterOptions
    @OptionGroup var to: OutputOptions

    func run() throws {
      let runtime = try Runtime(options)
      let filter = try filters.filter(runtime)
      let (count, damaged) = try ExportSessions.export(
        filter, as: format, fields: try ExportSessions.fields(to.fields),
        to: to.destination, encryptingTo: to.ageRecipients, runtime)
      if let output = to.output {
        Report.note(#"wrote \#(counted(count, "session")) to "\#(output)""#)
      }
      guard damaged.isEmpty else { throw AppError.sessionsDamaged(ids: damaged.map(\.short)) }
    }
  }

  /// `journal import FILE`: sessions from a journal export or from jrnl.
  struct Import: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "import",
      abstract: "Bring in sessions from a journal JSON export or a jrnl JSON export.",
      discussion: """
        All or nothing: a file with any problem is refused whole, naming the place. Importing \
        the same file again changes nothing; of two copies of a session, the later edit wins.
        """)

    @OptionGroup var options: GlobalOptions

    @Argument(
      help: ArgumentHelp("The file to import (\"-\" for standard input).", valueName: "file"),
      completion: .file())
    var file: String

    @Flag(help: "Say what would change, and change nothing.")
    var dryRun = false

    @Flag(
      help: """
        Bring back sessions of the file that this journal deleted for good (left out \
        otherwise).
        """)
    var restorePurged = false

    func run() throws {
      let runtime = try Runtime(options)
      let imported = try ExportSessions.importFile(
        file, dryRun: dryRun, restorePurged: restorePurged, runtime)
      let count = imported.count
      let source = imported.fromJrnl ? "jrnl export" : "journal export"
      let verb = dryRun ? "would add" : "added"
      Report.note(
        "\(source): \(verb) \(count.added), \(dryRun ? "would update" : "updated") \(count.updated), "
          + "left \(count.unchanged) unchanged")
      let ids = { (ids: [SessionID]) in ids.map(\.short).joined(separator: ", ") }
      if !count.restored.isEmpty {
        Report.note(
          "\(dryRun ? "would bring" : "brought") back \(counted(count.restored.count, "session")) "
            + "deleted for good: \(ids(count.restored))")
      }
      if !count.purged.isEmpty {
        Report.note(
          "left out \(counted(count.purged.count, "session")) this journal deleted for good: "
            + "\(ids(count.purged)); \"journal import --restore-purged\" brings them back")
      }
      for kept in count.keptApart {
        Report.note(
          #"session "\#(kept.claimed.short)" here and in the file share an id, and one was "#
            + #"written without the passphrase: it \#(dryRun ? "would be" : "was") kept apart as "#
            + #""\#(kept.keptAs.short)""#)
      }
      if !count.inTrash.isEmpty {
        Report.note(
          "left out \(counted(count.inTrash.count, "session")) in the trash here: "
            + "\(ids(count.inTrash)); \"journal undo\" brings them back")
      }
    }
  }

  /// `journal backup FILE`: a consistent encrypted copy.
  struct Backup: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "backup",
      abstract: "Write an encrypted copy of the whole journal to a new file.",
      discussion: """
        Safe while journal is in use elsewhere. The copy opens with the same passphrase: \
        "journal list --vault FILE" (kept in a private directory).
        """)

    @OptionGroup var options: GlobalOptions

    @Argument(help: ArgumentHelp("The new file.", valueName: "file"), completion: .file())
    var file: String

    func run() throws {
      let runtime = try Runtime(options)
      try JournalVault.backup(from: try runtime.vaultPath(), to: file, context: runtime.context)
      Report.note(#"wrote an encrypted copy to "\#(file)""#)
    }
  }

  /// `journal verify`: every record opened and checked.
  struct Verify: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "verify",
      abstract: "Open every session and check its integrity; exit 0 only if all are intact.")

    @OptionGroup var options: GlobalOptions

    @Flag(
      help: """
        Trust this journal as it is now, after a backup restored on purpose (asks first): \
        the check of removed or older sessions starts again from here.
        """)
    var accept = false

    @Flag(name: .long, help: "With --accept: do not ask.")
    var yes = false

    func run() throws {
      let runtime = try Runtime(options)
      let journal: JournalVault
      if accept {
        let (opened, accepted) = try TrustVault.open(confirmed: yes, runtime) {
          Report.note("found: " + $0)
        }
        journal = opened
        Report.note(
          accepted
            ? "this journal is trusted as it is now; later changes are checked against it"
            : "nothing to accept: this journal is as journal last left it")
      } else {
        journal = try runtime.openVault()
      }
      let result = try journal.verify()
      let damaged = AppError.sessionsDamaged(ids: result.damaged.map(\.short))
      if let problem = result.structureProblem {
        // Both are said: the sessions first, then the file (the command's error).
        if !result.damaged.isEmpty { Report.error(Diagnosis(damaged).message) }
        throw AppError.fileStructureDamaged(report: problem)
      }
      guard result.damaged.isEmpty else { throw damaged }
      let total = result.intact
      Report.note(
        total == 1 ? "the 1 session is intact" : "all \(counted(total, "session")) are intact")
    }
  }
}
