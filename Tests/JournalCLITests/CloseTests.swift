import Foundation
import GRDB
import JournalTestSupport
import Testing

/// Closing a session without a reflection, reopening it, and answering a reminder where it
/// appears (issue 21).
@Suite struct CloseTests {
  /// Close, with its reminder cleared and every view saying so; close again refused; reopen
  /// with the reminder back; a reflection after closing completes it.
  @Test func closeAndReopen() throws {
    let f = CLIFixture().initialise()
    let id = f.new("--remind", "3h")
    #expect(f.run("reminders").stdout.contains(id))

    let closed = f.run("close", id)
    #expect(closed.status == 0, "\(closed)")
    #expect(
      closed.stderr
        == "journal: session \(id) is closed, without a reflection; \"journal reopen \(id)\" undoes it\n"
    )
    #expect(f.show(id)["status"] as? String == "closed")
    #expect(f.sessions().first?["status"] as? String == "closed")
    #expect(f.run("list").stdout.contains("closed, no reflection"))
    #expect(f.run("show", id).stdout.contains("closed, no reflection"))
    #expect(
      f.run("list", "--needs-reflection", "--json").stdout.contains("\"sessions\" : [\n\n  ]"))
    #expect(f.run("reminders").stderr == "journal: no reminders are set\n")
    #expect(f.run("status").stdout.hasPrefix("nothing to reflect"))
    let trends = f.run("trends", "--json").stdout
    #expect(trends.contains("\"closed_without_reflection\" : 1"))
    #expect(f.run("trends").stdout.contains("(1 of them closed without a reflection)"))
    // The clear column says no more than before: complete.
    #expect(try f.clearStatus(id) == "complete")

    let again = f.run("close", id)
    #expect(again.status == 7)
    #expect(again.stderr.hasPrefix("journal: error: session \"\(id)\" is already closed"))

    let reopened = f.run("reopen", id)
    #expect(reopened.status == 0, "\(reopened)")
    #expect(
      reopened.stderr.hasPrefix(
        "journal: session \(id) waits for your reflection again; a reminder comes "))
    #expect(f.show(id)["status"] as? String == "needs_reflection")
    #expect(f.run("reminders").stdout.contains(id))
    #expect(f.run("reopen", id).status == 7)

    // Closed, then reflected on after all: complete, with the reflection.
    #expect(f.run("close", id).status == 0)
    let reflected = f.run("reflect", id, "--reflection", "it came later")
    #expect(reflected.status == 0, "\(reflected)")
    #expect(f.show(id)["status"] as? String == "complete")
    #expect(f.show(id)["reflection"] as? String == "it came later")
    #expect(f.run("reopen", id).status == 7)
  }

  /// A closed session goes out and comes back as closed; an export that says "closed" for a
  /// session with a reflection is refused.
  @Test func exportAndImport() throws {
    let f = CLIFixture().initialise()
    let id = f.new()
    #expect(f.run("close", id).status == 0)
    let export = f.run("export").stdout
    #expect(export.contains("\"status\" : \"closed\""))
    #expect(f.run("export", "--status", "closed").stdout.contains(id))
    #expect(!f.run("export", "--status", "complete").stdout.contains(id))

    let other = CLIFixture().initialise()
    let file = other.home.write("in.json", export)
    let imported = other.run("import", file)
    #expect(imported.status == 0, "\(imported)")
    #expect(other.sessions().first?["status"] as? String == "closed")
    let wrong = other.home.write(
      "wrong.json",
      export.replacingOccurrences(of: "\"reflection\" : null", with: "\"reflection\" : \"words\""))
    let refused = other.run("import", wrong)
    #expect(refused.status == 2)
    #expect(refused.stderr.contains("sessions[0].status does not match the reflection"))
  }

  /// The guided reflect's last step, when the reflection is skipped: "Leave it here for now".
  @Test func leaveItHereForNow() {
    let f = CLIFixture().initialise()
    let id = f.new("--remind", "3h")
    let process = f.cli.interactive(["reflect", id], extra: ReflectFormTests.terminal)
    #expect(process.expect("Mood after"))
    process.write("\r")
    #expect(process.expect("Reflection — what stays with you"))
    process.write("\r")
    #expect(process.expect("Environment — where, and with whom "))
    process.write("\r")
    #expect(process.expect("Music notes "))
    process.write("\r")
    #expect(process.expect("Leave it here for now? [y/N]"))
    process.write("y\r")
    let result = process.wait()
    #expect(result.status == 0, "\(result)")
    #expect(
      result.stderr.contains("is left here, without a reflection")
        || process.screenText.contains("is left here, without a reflection"))
    #expect(f.show(id)["status"] as? String == "closed")
    #expect(f.run("reminders").stderr == "journal: no reminders are set\n")
  }

  /// A fake notify-send on PATH, as a desktop has it: `--help` names `--action` when
  /// `actions` (libnotify 0.7.10 and later); a notification logs its arguments and prints
  /// the answer in $FAKE_ANSWER, as notify-send prints the action chosen.
  static func fakeDesktop(_ f: CLIFixture, actions: Bool) -> [String: String] {
    let bin = f.home.file("bin")
    try? FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
    let log = f.home.file("notify.log")
    let help =
      actions
      ? "  -A, --action=[NAME=]Text...  Specifies the actions to display" : "  -u, --urgency=LEVEL"
    let script = """
      #!/bin/sh
      if [ "$1" = "--help" ]; then echo "Usage: notify-send [OPTION…] <SUMMARY> [BODY]"; echo '\(help)'; exit 0; fi
      printf '%s\\n' "$*" >> '\(log)'
      [ -n "$FAKE_ANSWER" ] && printf '%s\\n' "$FAKE_ANSWER"
      exit 0
      """
    writeFile(bin + "/notify-send", script, mode: 0o755)
    let terminal = """
      #!/bin/sh
      printf '%s\\n' "$*" >> '\(f.home.file("terminal.log"))'
      """
    writeFile(bin + "/fake-terminal", terminal, mode: 0o755)
    return [
      "PATH": bin + ":/usr/bin:/bin", "DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent",
      "TERMINAL": "fake-terminal",
    ]
  }

  /// Each answer is carried out without the passphrase: Tomorrow moves the reminder, No more
  /// reminders cancels it (the session still waits; "leave it" means closing it, elsewhere),
  /// Reflect now opens a terminal running reflect; the notification's words say nothing of
  /// the session.
  @Test(arguments: ["tomorrow", "stop", "reflect", ""])
  func answers(answer: String) throws {
    let f = CLIFixture().initialise()
    let id = f.new("--remind", "0s", "--intention", "INTENTWORD")
    var desktop = Self.fakeDesktop(f, actions: true)
    desktop["FAKE_ANSWER"] = answer
    desktop["JOURNAL_PASSPHRASE_FILE"] = "/nonexistent"
    let run = f.run("reminders", "run", extra: desktop)
    #expect(run.status == 0, "\(run)")
    let log = f.home.file("notify.log")
    #expect(eventually { FileManager.default.fileExists(atPath: log) })
    let shown = try String(contentsOfFile: log, encoding: .utf8)
    #expect(shown.contains("--action=reflect=Reflect now"))
    #expect(shown.contains("--action=tomorrow=Tomorrow"))
    #expect(shown.contains("--action=stop=No more reminders"))
    #expect(!shown.contains("Leave it"))
    #expect(shown.contains("A session is waiting for your reflections, whenever you are ready."))
    #expect(!shown.contains("INTENTWORD"))
    switch answer {
    case "tomorrow":
      #expect(eventually { f.run("reminders").stdout.contains("09:00") })
    case "stop":
      #expect(eventually { f.run("reminders").stderr == "journal: no reminders are set\n" })
      #expect(f.run("status").stdout.hasPrefix("1 to reflect"))
    case "reflect":
      let opened = f.home.file("terminal.log")
      #expect(eventually { FileManager.default.fileExists(atPath: opened) })
      let line = try String(contentsOfFile: opened, encoding: .utf8)
      #expect(line.hasPrefix("-e /"))
      #expect(line.contains(" reflect \(try f.fullID(id)) --vault \(f.vaultPath)"))
    default:
      // Closed unanswered: delivered, and the reminder moves on as after any delivery.
      #expect(eventually { f.run("reminders").stdout.contains(id) })
    }
  }

  /// A notify-send without actions gets today's plain notification, and delivery counts.
  @Test func withoutActions() throws {
    let f = CLIFixture().initialise()
    let id = f.new("--remind", "0s")
    let run = f.run("reminders", "run", extra: Self.fakeDesktop(f, actions: false))
    #expect(run.status == 0, "\(run)")
    let shown = try String(contentsOfFile: f.home.file("notify.log"), encoding: .utf8)
    #expect(!shown.contains("--action"))
    #expect(shown.contains("A session is waiting for your reflections"))
    // Delivered: the reminder moved on to its next time (tomorrow's, 24 h on).
    #expect(f.run("reminders").stdout.contains(id))
    #expect(f.run("reminders", "run", extra: Self.fakeDesktop(f, actions: false)).status == 0)
    let twice = try String(contentsOfFile: f.home.file("notify.log"), encoding: .utf8)
    #expect(twice == shown, "not delivered again at once")
  }
}

extension CLIFixture {
  /// The clear status column of a session, as anyone who can read the file sees it.
  func clearStatus(_ short: String) throws -> String? {
    let queue = try GRDB.DatabaseQueue(path: vaultPath)
    defer { try? queue.close() }
    return try queue.read { db in
      try String.fetchOne(
        db, sql: "SELECT status FROM session WHERE id LIKE ?", arguments: [short + "%"])
    }
  }

  /// The full id of the session shown as `short`.
  func fullID(_ short: String) throws -> String {
    try #require(show(short)["id"] as? String)
  }
}
