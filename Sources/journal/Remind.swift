import ArgumentParser
import Foundation
import JournalApp
import JournalCore
import JournalDiagnostics
import JournalTerminal

extension Journal {
  /// `journal remind <id>`: set or cancel a reminder to reflect.
  struct Remind: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "remind",
      abstract: "Set or cancel a session's reminder to reflect (no passphrase needed).",
      discussion: """
        The reminder repeats every 24 h (JOURNAL_REMINDER_REPEAT) until the session is \
        reflected on, deleted, or the reminder cancelled.
        """)

    @OptionGroup var options: GlobalOptions

    @Argument(
      help: "The session's id, or any unique start of it.", completion: Completions.sessionIDs)
    var id: String

    @Option(
      name: .customLong("in"),
      help: ArgumentHelp("After this long: 3h, 90m, 2d.", valueName: "duration"))
    var after: String?
    @Flag(help: "Tomorrow at 09:00 (JOURNAL_REMINDER_TIME).")
    var tomorrow = false
    @Option(help: ArgumentHelp(#"At this time: "2026-12-01 18:00", "20:00"."#, valueName: "time"))
    var at: String?
    @Flag(help: "Cancel the reminder.")
    var cancel = false

    func validate() throws {
      let chosen = [after != nil, tomorrow, at != nil, cancel].filter { $0 }.count
      guard chosen == 1 else {
        throw ValidationError("choose one of --in, --tomorrow, --at or --cancel")
      }
    }

    func run() throws {
      let runtime = try Runtime(options)
      let choice: ReminderChoice
      if let after {
        guard let interval = DurationText.parse(after) else {
          throw AppError.badSetting(name: "--in", expected: #"a duration such as "3h" or "90m""#)
        }
        choice = .after(interval)
      } else if tomorrow {
        choice = .tomorrow
      } else if let at {
        let date = try DateInput(timeZone: runtime.context.timeZone).parseInstant(
          at, now: runtime.context.now())
        choice = .at(date)
      } else {
        choice = .none
      }
      let (short, due, hadOne) = try ReminderCommands.set(id, choice, runtime)
      if let due {
        let format = DisplayFormat(timeZone: runtime.context.timeZone)
        Report.note("session \(short) will remind you \(format.dateTime(due))")
      } else if hadOne {
        Report.note("the reminder for session \(short) is cancelled")
      } else {
        Report.note("session \(short) had no reminder; nothing was changed")
      }
    }
  }

  /// `journal reminders`: pending reminders, and their delivery.
  struct Reminders: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "reminders",
      abstract: "List pending reminders, or deliver them (run, daemon, install).",
      subcommands: [ListReminders.self, Run.self, Daemon.self, Install.self, Answer.self],
      defaultSubcommand: ListReminders.self)

    struct ListReminders: ParsableCommand {
      static let configuration = CommandConfiguration(
        commandName: "list", abstract: "Pending reminders: session id and when (no content).")

      @OptionGroup var options: GlobalOptions

      func run() throws {
        let runtime = try Runtime(options)
        let format = DisplayFormat(timeZone: runtime.context.timeZone)
        let reminders = try ReminderCommands.pending(runtime)
        if reminders.isEmpty { Report.note("no reminders are set") }
        for reminder in reminders {
          let hours = reminder.repeatInterval / 3600
          let repeats =
            hours == 24
            ? "daily"
            : "every \(hours == hours.rounded() ? "\(Int(hours)) h" : "\(Int(reminder.repeatInterval / 60)) min")"
          try Runtime.output(
            "\(reminder.shortID)  \(format.dateTime(reminder.due))  repeats \(repeats)\n")
        }
        try ReminderCommands.refuseDamaged(runtime)
      }
    }

    struct Run: ParsableCommand {
      static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Deliver the reminders that are due, once (for cron or a systemd timer).")

      @OptionGroup var options: GlobalOptions

      func run() throws {
        let runtime = try Runtime(options)
        try ReminderCommands.deliverDue(runtime) { Report.note($0) }
      }
    }

    /// Shows one reminder as a notification that can be answered, and carries out the
    /// answer (started by a delivery; not for people to run).
    struct Answer: ParsableCommand {
      static let configuration = CommandConfiguration(
        commandName: "answer", abstract: "Show a reminder that can be answered.",
        shouldDisplay: false)

      @OptionGroup var options: GlobalOptions

      @Argument var id: String

      func run() throws {
        try ReminderCommands.answer(id, try Runtime(options)) { Report.note($0) }
      }
    }

    struct Daemon: ParsableCommand {
      static let configuration = CommandConfiguration(
        commandName: "daemon",
        abstract:
          "Stay in the foreground, delivering reminders as they fall due; stop with SIGTERM.")

      @OptionGroup var options: GlobalOptions

      func run() throws {
        try ReminderCommands.daemon(try Runtime(options)) { Report.note($0) }
      }
    }

    struct Install: ParsableCommand {
      static let configuration = CommandConfiguration(
        commandName: "install",
        abstract: "Set up a systemd user timer (or print a crontab line) that runs the reminders.")

      @OptionGroup var options: GlobalOptions

      func run() throws {
        switch try ReminderInstall.run(try Runtime(options)) {
        case .cron(let line):
          Report.note("systemd is not running here; add this line to your crontab (crontab -e):")
          Report.note(
            "cron has no desktop session: put JOURNAL_NOTIFY_COMMAND=… at the top of the crontab")
          try Runtime.output(line + "\n")
        case .systemd(let directory, let enable):
          Report.note(
            "wrote \(directory)/journal-reminders.service and .timer; to turn them on, run:")
          try Runtime.output(enable + "\n")
        case .packaged(let directory, let enable):
          Report.note(
            "the package installed \(directory)/journal-reminders.service and .timer; "
              + "to turn them on, run:")
          try Runtime.output(enable + "\n")
        }
      }
    }
  }
}
