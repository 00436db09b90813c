import ArgumentParser
import Foundation
import JournalApp
import JournalCore
import JournalDiagnostics
import JournalSync
import JournalTerminal

extension Journal {
  /// `journal sync [setup|join|status]`: the same journal on every device, end-to-end
  /// encrypted, through a PostgreSQL server the person chooses.
  struct Sync: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "sync",
      abstract: "Keep this journal the same on your devices, through your PostgreSQL server.",
      discussion: """
        The server keeps only what your devices sealed: it cannot read a word. "journal sync" \
        alone sends what changed here and fetches what changed elsewhere; every other command \
        works without the server.
        """,
      subcommands: [Now.self, Setup.self, Join.self, Status.self, Background.self, Leave.self],
      defaultSubcommand: Now.self)

    /// `journal sync` (or `journal sync now`): push and pull.
    struct Now: ParsableCommand {
      static let configuration = CommandConfiguration(
        commandName: "now", abstract: "Send what changed here, fetch what changed elsewhere.")

      @OptionGroup var options: GlobalOptions

      /// Started by a write with background sync on: ends at once if a sync is running.
      @Flag(help: .hidden)
      var background = false

      func run() throws {
        let runtime = try Runtime(options)
        try SyncLines.write(
          try SyncCommands.sync(runtime, background: background), runtime: runtime)
      }
    }

    /// `journal sync leave`: stop syncing this journal here.
    struct Leave: ParsableCommand {
      static let configuration = CommandConfiguration(
        commandName: "leave",
        abstract: "Stop syncing this journal on this device (the server keeps its copy).",
        discussion: """
          Everything stays here; nothing more is sent or fetched. "journal sync setup URL" \
          afterwards sends the whole journal to a server again: to another one, say, or to the \
          same one after a sync refused what it found there. Asks for the passphrase: what sync \
          agreed is part of the journal's tamper evidence.
          """)

      @OptionGroup var options: GlobalOptions

      @Flag(
        help: """
          Also delete this journal from the server, for every device: when leaving the server \
          for good.
          """)
      var deleteServerCopy = false

      @Flag(help: "Go ahead without asking, even just after a session.")
      var yes = false

      func run() throws {
        let runtime = try Runtime(options)
        let left = try SyncCommands.leave(runtime, deleting: deleteServerCopy, confirmed: yes)
        switch left.deleted {
        case nil:
          Report.note("this journal no longer syncs here; \(left.server) keeps its copy")
        case true?:
          Report.note(
            "this journal no longer syncs here, and its copy on \(left.server) was deleted; "
              + "your other devices find it gone at their next sync")
        case false?:
          Report.note(
            "this journal no longer syncs here; \(left.server) held no copy of it to delete")
        }
      }
    }

    /// `journal sync setup URL`: this vault becomes the first on the server.
    struct Setup: ParsableCommand {
      static let configuration = CommandConfiguration(
        commandName: "setup",
        abstract: "Make this journal the first on a server, and send it there.",
        discussion: """
          URL is a postgres:// URL or a libpq connection string such as "service=journal"; \
          the password goes in ~/.pgpass, never in the URL. A server on another computer is \
          reached over TLS with its certificate checked. The schema is made if your role may; \
          --print-schema prints it for whoever hosts the server.
          """)

      @OptionGroup var options: GlobalOptions

      @Argument(
        help: ArgumentHelp(
          "The server, e.g. postgres://me@db.example.org/journal.", valueName: "url"))
      var url: String?

      @Flag(help: "Print the server's schema as SQL and do nothing else.")
      var printSchema = false

      func validate() throws {
        guard printSchema || url != nil else { throw ValidationError("give the server's URL") }
      }

      func run() throws {
        if printSchema {
          try Runtime.output(SyncCommands.schemaSQL + "\n")
          return
        }
        let runtime = try Runtime(options)
        let report = try SyncCommands.setup(runtime, address: url ?? "")
        Report.note("this journal now syncs; run \"journal sync join URL\" on your other devices")
        try SyncLines.write(report, runtime: runtime)
      }
    }

    /// `journal sync join URL`: a second device.
    struct Join: ParsableCommand {
      static let configuration = CommandConfiguration(
        commandName: "join",
        abstract: "Fetch the journal from its server onto this device (asks its passphrase).")

      @OptionGroup var options: GlobalOptions

      @Argument(
        help: ArgumentHelp("The server, as given to \"journal sync setup\".", valueName: "url"))
      var url: String

      func run() throws {
        let runtime = try Runtime(options)
        let report = try SyncCommands.join(runtime, address: url)
        Report.note("this device now has the journal and syncs it")
        try SyncLines.write(report, runtime: runtime)
      }
    }

    /// `journal sync background [on|off]`: sync after every write, without waiting for it.
    struct Background: ParsableCommand {
      static let configuration = CommandConfiguration(
        commandName: "background",
        abstract: "Sync in the background after every change: on, off, or see.",
        discussion: """
          When it is on, a command that changed the journal starts "journal sync" on its \
          own as it ends: the command never waits for it. It syncs when the key comes \
          without asking (after "journal unlock", or with a passphrase file or command); \
          otherwise the next "journal sync" sends everything.
          """)

      @OptionGroup var options: GlobalOptions

      @Argument(help: ArgumentHelp("on or off; leave out to see the setting.", valueName: "on|off"))
      var choice: CaptureChoice?

      func run() throws {
        let runtime = try Runtime(options)
        let on = try SyncCommands.background(runtime, set: choice.map { $0 == .on })
        try Runtime.output(on ? "background sync is on\n" : "background sync is off\n")
      }
    }

    /// `journal sync status`: no passphrase needed.
    struct Status: ParsableCommand {
      static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show the server, the last sync and what waits to be sent (no passphrase).")

      @OptionGroup var options: GlobalOptions

      func run() throws {
        let runtime = try Runtime(options)
        let status = try SyncCommands.status(runtime)
        let format = DisplayFormat(timeZone: runtime.context.timeZone)
        var out = "server: \(status.server)\n"
        out += "last sync: " + (status.lastSync.map { format.dateTime($0) } ?? "not yet") + "\n"
        out +=
          "waiting to be sent: \(counted(status.pendingSessions, "session"))"
          + (status.pendingRemovals > 0 ? ", \(counted(status.pendingRemovals, "deletion"))" : "")
          + "\n"
        out += "changes read from the server: \(status.seq)\n"
        if let conflicted = status.conflicted {
          out +=
            "texts kept from another device: "
            + (conflicted.isEmpty
              ? "none"
              : "\(counted(conflicted.count, "session")) ("
                + conflicted.map(\.short).joined(separator: ", ") + ")") + "\n"
        } else {
          out += "texts kept from another device: unlock (journal unlock) to count them\n"
        }
        out += "background sync: \(status.background ? "on" : "off")\n"
        if let running = status.running {
          out +=
            "running here: "
            + (running.background ? "a background sync" : "another journal sync")
            + " (process \(running.pid))"
            + (running.started.map { ", started " + format.dateTime($0) } ?? "")
        }
        if let running = status.running, running.stuck {
          out +=
            ", no progress for \(counted(running.quiet, "second")): "
            + (running.background
              ? #"the next "journal sync" ends it and takes over"#
              : "stopped (Ctrl-Z?) or stuck")
        }
        if status.running != nil { out += "\n" }
        try Runtime.output(out)
      }
    }
  }

  /// `journal resolve <id> <field> --keep shown|kept|both`.
  struct Resolve: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "resolve",
      abstract: "Settle a text two devices wrote at the same time: keep one, or both.",
      discussion: """
        "journal show" lists such texts under "Also written on another device at the same \
        time". --keep shown keeps the text the session shows; --keep kept takes the other \
        one instead; --keep both joins them, the other after a blank line. Nothing is lost \
        until you choose.
        """)

    @OptionGroup var options: GlobalOptions

    @Argument(
      help: "The session's id, or any unique start of it.", completion: Completions.sessionIDs)
    var id: String

    @Argument(
      help: ArgumentHelp(
        "The field: intention, dose, environment, music or reflection.", valueName: "field"))
    var field: ConflictField

    @Option(help: ArgumentHelp("shown, kept or both.", valueName: "choice"))
    var keep: ConflictKeep

    func run() throws {
      let runtime = try Runtime(options)
      let journal = try runtime.openVault()
      let id = try journal.resolve(self.id)
      _ = try journal.resolveConflict(id, field: field.field, keeping: keep.choice)
      Report.note("resolved the \(field.field.label) of session \(try journal.displayID(id))")
    }
  }
}

/// The text fields that can hold a conflict, as `journal resolve` takes them.
enum ConflictField: String, ExpressibleByArgument, CaseIterable {
  case intention, dose, environment, music, reflection

  var field: Field { Field(rawValue: rawValue) ?? .reflection }
}

/// `--keep`'s choices.
enum ConflictKeep: String, ExpressibleByArgument, CaseIterable {
  case shown, kept, both

  var choice: ConflictChoice { ConflictChoice(rawValue: rawValue) ?? .shown }
}

/// What a sync did, in a few lines on standard output.
enum SyncLines {
  static func write(_ report: SyncReport, runtime: Runtime) throws {
    let parts = counts(report)
    var out = parts.isEmpty ? "up to date\n" : parts.joined(separator: ", ") + "\n"
    for line in sessionLines(report) { out += line + "\n" }
    if let count = report.keyFollowed {
      out +=
        "the journal's key was changed on another device: this one follows it now "
        + "(\(counted(count, "session")) sealed again here), and opens with the new "
        + "passphrase only\n"
    }
    if report.recoveryCodeDropped {
      out +=
        #"this device's recovery code opened the old key and no longer works: "journal "#
        + #"recovery-code" makes a new one"# + "\n"
    }
    if report.passphraseChanged && report.keyFollowed == nil {
      out += "the passphrase was changed on another device: the next unlock here asks for it\n"
    }
    if report.passphraseSent {
      out +=
        "the new passphrase was sent: each other device takes it at its next sync, "
        + "and opens with the old one until then\n"
    }
    if report.serverOutdated {
      Report.note(
        "the server's tables are of an earlier version, which lets other roles there stop "
          + #"this journal's sync; whoever runs the server can update them with "journal sync "#
          + #"setup --print-schema""#)
    }
    try Runtime.output(out)
  }

  /// The sync `passwd --new-key` makes first, said as notes (standard output is for the
  /// recovery code): nothing when it found nothing to do.
  static func notes(_ report: SyncReport) {
    let parts = counts(report)
    if !parts.isEmpty {
      Report.note("synced first, under the old key: " + parts.joined(separator: ", "))
    }
    for line in sessionLines(report) { Report.note(line) }
  }

  /// What was sent, received and removed.
  private static func counts(_ report: SyncReport) -> [String] {
    var parts: [String] = []
    if report.sent > 0 { parts.append("sent \(counted(report.sent, "session"))") }
    if report.removalsSent > 0 {
      parts.append("sent \(counted(report.removalsSent, "deletion"))")
    }
    if report.received > 0 { parts.append("received \(counted(report.received, "session"))") }
    if report.removedHere > 0 {
      parts.append("removed \(counted(report.removedHere, "session")) deleted on another device")
    }
    return parts
  }

  /// A line for each session the person should look at.
  private static func sessionLines(_ report: SyncReport) -> [String] {
    report.conflicted.map { id in
      "session \(id.short) holds a text another device wrote at the same time: "
        + "see \"journal show \(id.short)\", then \"journal resolve\""
    }
      + report.notesKept.map { id in
        "session \(id.short) keeps a note another device corrected at the same time, beside "
          + "it: see \"journal show \(id.short)\"; \"journal note \(id.short) --delete N\" "
          + "removes the one you do not want"
      }
      + report.removedWithChanges.map { id in
        "session \(id.short) was deleted on another device; "
          + "the changes made to it here had not been sent and went with it"
      }
  }
}
