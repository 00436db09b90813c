import Foundation
import Glibc
import JournalTestSupport
import Testing

/// Reminders to reflect, delivered by real processes, without the passphrase.
@Suite(.serialized) struct ReminderTests {

  /// `new --remind`, then `reminders run` with a recording notifier: the exact calm words,
  /// nothing of the session, once; then every command shows the gentle line.
  @Test func runDeliversCalmWords() throws {
    let f = CLIFixture().initialise()
    let log = f.home.file("notified")
    let notify = ["JOURNAL_NOTIFY_COMMAND": "printf '%s|%s\\n' \"$#\" \"$1\" >> '\(log)'"]
    let id = f.new(
      "--treatment", "mdma", "--dose", "DOSEWORD", "--intention", "INTENTWORD", "--remind", "0s")
    let listed = f.run("reminders", extra: ["JOURNAL_PASSPHRASE_FILE": ""])
    #expect(listed.status == 0)
    #expect(listed.stdout.hasPrefix("\(id)  "))
    #expect(listed.stdout.hasSuffix("  repeats daily\n"))
    let run = f.run(
      "reminders", "run", extra: notify.merging(["JOURNAL_PASSPHRASE_FILE": ""]) { $1 })
    #expect(run.status == 0, "\(run)")
    let again = f.run("reminders", "run", extra: notify)
    #expect(again.status == 0)
    let delivered = try String(contentsOfFile: log, encoding: .utf8)
    #expect(delivered == "1|A session is waiting for your reflections, whenever you are ready.\n")
    for word in ["DOSEWORD", "INTENTWORD", "MDMA", "mdma", "2026"] {
      #expect(!delivered.contains(word))
    }
    f.forgetReminderNote()
    let list = f.run("list")
    #expect(
      list.stderr
        == "journal: 1 session is waiting for your reflections — "
        + #""journal reflect \#(id)" now, "journal remind \#(id) --tomorrow" tomorrow, or "#
        + #""journal close \#(id)" to leave it there"# + "\n")
    f.run("reflect", id, "--reflection", "done")
    #expect(f.run("list").stderr == "")
    #expect(f.run("reminders").stderr == "journal: no reminders are set\n")
  }

  /// The banner, the notification and `status` count the same sessions: every one waiting
  /// for reflection, not only those a reminder is due for.
  @Test func bannerCountsWhatStatusCounts() throws {
    let f = CLIFixture().initialise()
    let log = f.home.file("notified")
    let first = f.new("--remind", "0s")
    f.forgetReminderNote()
    #expect(
      f.run("list").stderr
        == "journal: 1 session is waiting for your reflections — "
        + #""journal reflect \#(first)" now, "journal remind \#(first) --tomorrow" tomorrow, or "#
        + #""journal close \#(first)" to leave it there"# + "\n")
    let second = f.new("--remind", "none")
    #expect(f.run("status").stdout.hasPrefix("2 to reflect"))
    let run = f.run(
      "reminders", "run", extra: ["JOURNAL_NOTIFY_COMMAND": "printf '%s\\n' \"$1\" >> '\(log)'"])
    #expect(run.status == 0, "\(run)")
    #expect(
      try String(contentsOfFile: log, encoding: .utf8)
        == "2 sessions are waiting for your reflections, whenever you are ready.\n")
    f.forgetReminderNote()
    #expect(
      f.run("list").stderr
        == "journal: 2 sessions are waiting for your reflections; a reminder is due for \(first) — "
        + #""journal reflect \#(first)" now, "journal remind \#(first) --tomorrow" tomorrow, or "#
        + #""journal close \#(first)" to leave it there"# + "\n"
    )
    f.run("remind", second, "--in", "0s")
    _ = f.new("--remind", "none")
    f.forgetReminderNote()
    #expect(
      f.run("list").stderr
        == #"journal: 3 sessions are waiting for your reflections, 2 with a reminder due — "journal list --needs-reflection""#
        + "\n"
    )
    #expect(f.run("status").stdout.hasPrefix("3 to reflect"))
  }

  /// The line before commands comes once a day: the first command of the day shows it, the
  /// next ones that day do not, the first of the next day does again.
  @Test func reminderNoteOnceADay() {
    let f = CLIFixture().initialise()
    let id = f.new("--remind", "0s")
    let first = f.run("list")
    #expect(first.stderr.hasPrefix("journal: 1 session is waiting"), "\(first)")
    #expect(first.stderr.contains(#""journal reflect \#(id)" now"#))
    #expect(f.run("list").stderr == "", "shown once today")
    #expect(f.run("show", id).stderr == "")
    let tomorrow = ISO8601DateFormatter().string(from: Date().addingTimeInterval(86_400))
    let next = f.run("list", extra: ["JOURNAL_DEBUG_NOW": tomorrow])
    #expect(next.stderr.hasPrefix("journal: 1 session is waiting"), "\(next)")
  }

  /// A notifier given as a script path (or a command with arguments of its own) gets the
  /// words as its last argument; one that uses "$1" itself gets them there. A notifier that
  /// exits non-zero delivers nothing: the reminder stays due.
  @Test func scriptNotifierGetsTheWords() throws {
    let f = CLIFixture().initialise()
    let log = f.home.file("notified")
    let script = f.home.file("notify.sh")
    try "#!/bin/sh\nprintf '%s|%s\\n' \"$#\" \"$*\" >> '\(log)'\n"
      .write(toFile: script, atomically: true, encoding: .utf8)
    chmod(script, 0o700)
    let id = f.new("--remind", "0s")
    let words = "A session is waiting for your reflections, whenever you are ready."
    for (command, expected) in [
      (script, "1|\(words)"), ("\(script) --urgent", "2|--urgent \(words)"),
      ("'\(script)' \"$1\"", "1|\(words)"),
    ] {
      f.run("remind", id, "--in", "0s")
      let run = f.run("reminders", "run", extra: ["JOURNAL_NOTIFY_COMMAND": command])
      #expect(run.status == 0, "\(run)")
      let delivered = try String(contentsOfFile: log, encoding: .utf8)
      #expect(delivered == expected + "\n", "\(command)")
      try FileManager.default.removeItem(atPath: log)
    }
    f.run("remind", id, "--in", "0s")
    let failing = f.run("reminders", "run", extra: ["JOURNAL_NOTIFY_COMMAND": "false"])
    #expect(
      failing.stderr
        == "journal: error: the notifier ended with exit status 1; the reminder stays\n")
    // A failed delivery fails the run, so that cron or a systemd timer sees it
    #expect(failing.status == 11, "\(failing)")
    let none = f.run("reminders", "run", extra: ["DBUS_SESSION_BUS_ADDRESS": ""])
    #expect(none.status == 11, "\(none)")
    #expect(none.stderr.contains("no notifier"), "\(none)")
    let retried = f.run("reminders", "run", extra: ["JOURNAL_NOTIFY_COMMAND": script])
    #expect(retried.status == 0, "\(retried)")
    #expect(try String(contentsOfFile: log, encoding: .utf8) == "1|\(words)\n")
  }

  /// `remind`: set, list, cancel; refused for a complete session; no passphrase needed.
  @Test func remindCommand() {
    // journal's clock (debug builds) at Saturday 2026-11-21 20:00 UTC
    let f = CLIFixture(extra: ["JOURNAL_DEBUG_NOW": "2026-11-21T20:00:00Z"]).initialise()
    let id = f.new()
    let locked = ["JOURNAL_PASSPHRASE_FILE": ""]
    let set = f.run("remind", id, "--at", "2026-12-01 18:00", extra: locked)
    #expect(set.status == 0)
    #expect(set.stderr == "journal: session \(id) will remind you Tue 2026-12-01 18:00\n")
    #expect(
      f.run("reminders", extra: locked).stdout == "\(id)  Tue 2026-12-01 18:00  repeats daily\n")
    let cancelled = f.run("remind", id, "--cancel", extra: locked)
    #expect(cancelled.stderr == "journal: the reminder for session \(id) is cancelled\n")
    let tomorrow = f.run("remind", id, "--tomorrow", extra: locked)
    #expect(tomorrow.stderr == "journal: session \(id) will remind you Sun 2026-11-22 09:00\n")
    let both = f.run("remind", id, "--tomorrow", "--cancel")
    #expect(both.status == 2)
    f.run("reflect", id, "--reflection", "done")
    let complete = f.run("remind", id, "--tomorrow")
    #expect(complete.status == 7)
  }

  /// Deleting cancels a reminder, and undo restores it.
  @Test func deleteAndUndo() {
    let f = CLIFixture().initialise()
    let id = f.new("--remind", "tomorrow")
    let before = f.run("reminders").stdout
    #expect(!before.isEmpty)
    f.run("delete", id, "--yes")
    #expect(f.run("reminders").stdout == "")
    f.run("undo")
    #expect(f.run("reminders").stdout == before)
  }

  /// The daemon picks up a reminder set after it started, and stops cleanly on SIGTERM.
  @Test func daemon() throws {
    let f = CLIFixture().initialise()
    let id = f.new()
    let log = f.home.file("daemon-notified")
    let environment = [
      "JOURNAL_NOTIFY_COMMAND": "printf '%s\\n' \"$1\" >> '\(log)'", "JOURNAL_DAEMON_POLL": "1s",
      "JOURNAL_PASSPHRASE_FILE": "",
    ]
    let daemon = f.cli.interactive(["reminders", "daemon"], extra: environment)
    // Started: it says so before its first look
    #expect(eventually { daemon.stderrText.contains("journal: delivering reminders") })
    #expect(f.run("remind", id, "--in", "0s").status == 0)
    #expect(eventually { FileManager.default.fileExists(atPath: log) })
    daemon.signal(SIGTERM)
    let result = daemon.wait(timeout: 20)
    #expect(result.status == 0, "\(result)")
    #expect(result.stderr.hasSuffix("journal: stopped\n"))
    #expect(
      try String(contentsOfFile: log, encoding: .utf8)
        == "A session is waiting for your reflections, whenever you are ready.\n")
  }

  /// After a guided save, one key chooses the reminder: 2 is tomorrow.
  @Test func promptAfterSaving() {
    let f = CLIFixture().initialise()
    let process = f.cli.interactive([
      "new", "--intention", "to rest", "--mood-before", "4", "--date", "now", "--treatment", "lsd",
      "--dose", "50 µg",
    ])
    #expect(process.expect("Would you like a reminder to add reflections later?"))
    #expect(process.expect("No thanks [3] "))
    process.write("2")
    #expect(process.expect("A gentle reminder will come "))
    #expect(process.expect("Add them now? [y/N] "))
    process.write("\n")
    let result = process.wait()
    #expect(result.status == 0, "\(result)")
    #expect(f.run("reminders").stdout.contains(" 09:00  repeats daily"))
  }

  /// Without systemd, install prints the crontab line.
  @Test func installWithoutSystemd() {
    let f = CLIFixture().initialise()
    let result = f.run("reminders", "install")
    #expect(result.status == 0)
    if !FileManager.default.fileExists(atPath: "/run/systemd/system") {
      #expect(result.stdout.hasPrefix("*/15 * * * * '/"))
      #expect(result.stdout.hasSuffix(" reminders run --vault '\(f.vaultPath)'\n"))
    }
  }

  /// A reminder row with a number out of range (an edited file) is damage, named in one
  /// line with exit 5, never a trap: before, `reminders run` ended with SIGILL every time.
  @Test func outOfRangeReminderIsDamage() throws {
    let f = CLIFixture().initialise()
    let id = f.new("--remind", "3h")
    try f.tamper("UPDATE reminder SET repeat_seconds = 9223372036854775, due = 0")
    for command in [["reminders", "run"], ["reminders", "list"]] {
      let result = f.cli.run(command, extra: ["JOURNAL_NOTIFY_COMMAND": "true"])
      #expect(result.status == 5, "\(command): \(result)")
      #expect(
        result.stderr.contains(
          #"journal: error: the reminder of session "\#(id)" is damaged and cannot be used"#),
        "\(result.stderr)")
    }
    // The rest of the journal is unaffected
    #expect(f.run("show", id).status == 0)
  }
}
