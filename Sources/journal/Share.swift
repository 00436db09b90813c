import ArgumentParser
import JournalApp
import JournalDiagnostics

extension Journal {
  /// `journal share <id>…`: chosen sessions, encrypted to someone's age key.
  struct Share: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "share",
      abstract: "Share chosen sessions, encrypted with age to the person they are for.",
      discussion: """
        For bringing a session to a therapist or coach: they read it with the standard age \
        tool and their own key ("age -d -i key.txt shared.age"). Nothing readable is written \
        on the way. Choose the fields with --fields (for example "reflection,mood-before,\
        mood-after"); Markdown unless --format json.
        """)

    @OptionGroup var options: GlobalOptions

    @Argument(
      help: "The sessions' ids, or any unique start of them.", completion: Completions.sessionIDs)
    var ids: [String]

    @OptionGroup var to: OutputOptions

    @Option(help: "markdown (default) or json.")
    var format: ExportFormat = .markdown

    func validate() throws {
      guard format != .csv else { throw ValidationError("--format is markdown or json for share") }
    }

    func run() throws {
      let runtime = try Runtime(options)
      let count = try ExportSessions.share(
        ids, as: format, fields: try ExportSessions.fields(to.fields),
        to: to.destination, encryptingTo: to.ageRecipients, runtime)
      let whom = counted(to.recipients.count + to.files.count, "recipient")
      Report.note(
        "shared \(counted(count, "session")), encrypted with age to \(whom)"
          + (to.output.map { #" in "\#($0)""# } ?? ""))
    }
  }
}
