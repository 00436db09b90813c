import Foundation
import JournalApp
import JournalCore
import JournalDiagnostics
import JournalStore
import JournalTestSupport
import Testing

struct ReminderServiceTests {
  func service(_ f: AppFixture) -> ReminderService {
    ReminderService(
      vault: f.journal.file, schedule: ReminderSchedule(timeZone: .gmt), now: { f.clock.read() })
  }

  func recorder() -> (Notifier, () -> [String]) {
    final class Box: @unchecked Sendable { var lines: [String] = [] }
    let box = Box()
    let directory = TemporaryDirectory()
    let file = directory.file("notes")
    let notifier = Notifier(
      environment: ["JOURNAL_NOTIFY_COMMAND": "printf '%s\\n' \"$1\" >> '\(file)'"],
      report: { box.lines.append("report: " + $0) })
    return (
      notifier,
      {
        _ = directory
        let text = (try? String(contentsOfFile: file, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").map(String.init) + box.lines
      }
    )
  }

  /// A reminder fires once when due, idempotently, and comes back after the interval it was
  /// set with, whatever the environment of the run that fires it.
  @Test func firesOnceAndRepeats() throws {
    let f = try AppFixture()
    let s = service(f)
    let session = try f.saved()
    let due = try #require(try s.set(session.id, .inThreeHours))
    #expect(due == f.clock.read() + 3 * 3600)
    let (notifier, delivered) = recorder()
    #expect(try s.run(notifier: notifier) == 0)
    #expect(try s.banner() == nil)
    f.clock.advance(by: 3 * 3600)
    #expect(try s.run(notifier: notifier) == 1)
    #expect(try s.run(notifier: notifier) == 0, "a second run at the same moment fires nothing")
    #expect(delivered() == ["A session is waiting for your reflections, whenever you are ready."])
    #expect(try f.journal.file.reminders().first?.due == due + 86400)
    #expect(
      try s.banner()
        == "1 session is waiting for your reflections — "
        + #""journal reflect \#(session.id.short)" now, "#
        + #""journal remind \#(session.id.short) --tomorrow" tomorrow, or "#
        + #""journal close \#(session.id.short)" to leave it there"#)
  }

  /// Completing the session clears its reminder; so does cancelling.
  @Test func completeAndCancelClear() throws {
    let f = try AppFixture()
    let s = service(f)
    let a = try f.saved(), b = try f.saved()
    try s.set(a.id, .tomorrow)
    try s.set(b.id, .tomorrow)
    try f.journal.apply(.reflection("done"), to: a.id)
    #expect(try f.journal.file.reminders().map(\.id) == [b.id])
    try s.set(b.id, .none)
    #expect(try f.journal.file.reminders().isEmpty)
    #expect(throws: AppError.lifecycle(.alreadyComplete, id: a.id.short)) {
      try s.set(a.id, .tomorrow)
    }
  }

  /// Deleting cancels the reminder; undo brings it back as it was; a purge drops it.
  @Test func deleteAndUndo() throws {
    let f = try AppFixture()
    let s = service(f)
    let session = try f.saved()
    try s.set(session.id, .at(f.clock.read() + 600))
    let before = try f.journal.file.reminders()
    let first = try f.journal.delete([session.id], window: 10)
    #expect(try f.journal.file.reminders().isEmpty)
    #expect(try f.journal.undo(first) != nil)
    #expect(try f.journal.file.reminders() == before)
    let second = try f.journal.delete([session.id], window: 10)
    f.clock.advance(by: 10)
    try f.journal.purgeExpired()
    #expect(try f.journal.undo(second) == nil)
    #expect(try f.journal.file.reminders().isEmpty)
  }

  /// The reminder's words reveal nothing of the session.
  @Test func calmWords() {
    #expect(
      Notifier.message(count: 1)
        == "A session is waiting for your reflections, whenever you are ready.")
    #expect(
      Notifier.message(count: 3)
        == "3 sessions are waiting for your reflections, whenever you are ready.")
  }

  /// A failing notifier is reported in one line and changes nothing: the reminder stays due,
  /// for the next run to try again.
  @Test func failingNotifier() throws {
    let f = try AppFixture()
    let s = service(f)
    let session = try f.saved()
    try s.set(session.id, .after(0))
    final class Box: @unchecked Sendable { var lines: [String] = [] }
    let box = Box()
    let notifier = Notifier(environment: ["JOURNAL_NOTIFY_COMMAND": "exit 7"]) {
      box.lines.append($0)
    }
    #expect(try s.run(notifier: notifier) == 0)
    #expect(box.lines == ["the notifier ended with exit status 7; the reminder stays"])
    #expect(try f.journal.file.dueReminders(now: f.clock.read()).map(\.id) == [session.id])
    let none = Notifier(environment: [:]) { box.lines.append($0) }
    #expect(try s.run(notifier: none) == 0)
    #expect(try f.journal.file.dueReminders(now: f.clock.read()).count == 1)
  }
}
