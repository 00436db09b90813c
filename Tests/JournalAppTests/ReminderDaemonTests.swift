import Foundation
import JournalApp
import JournalCore
import JournalTestSupport
import Testing

/// The reminder daemon's loop, with a clock that its sleep moves: when it looks, and that it
/// stops when asked.
struct ReminderDaemonTests {
  /// It looks at once, then as the next reminder falls due, and at most `poll` apart.
  @Test func looksWhenRemindersFallDue() throws {
    // Given reminders due 45 s and 100 s from the start, and a 30 s poll
    let clock = TestClock(TestClock.reference)
    let start = clock.read()
    var due = [start + 45, start + 100]
    var looks: [TimeInterval] = []
    let daemon = ReminderDaemon(
      deliver: {
        let now = clock.read()
        looks.append(now.timeIntervalSince(start))
        due.removeAll { $0 <= now }
        return due.first
      },
      now: clock.now, sleep: { clock.advance(by: $0) },
      stopRequested: { looks.count >= 6 }, poll: 30)
    // When it runs
    try daemon.run()
    // Then it looked at 0, 30, 45 (the first is due), 75, 100 (the second), 130
    #expect(looks == [0, 30, 45, 75, 100, 130])
    #expect(due.isEmpty)
  }

  /// A reminder already past due is delivered, and the next look is not a busy loop.
  @Test func pastDueIsNotABusyLoop() {
    let now = TestClock.reference
    #expect(ReminderDaemon.wait(now: now, next: now - 60, poll: 30) == 0.05)
    #expect(ReminderDaemon.wait(now: now, next: nil, poll: 30) == 30)
    #expect(ReminderDaemon.wait(now: now, next: now + 10, poll: 30) == 10)
  }

  /// Asked to stop before it starts, it delivers nothing.
  @Test func stopsWhenAsked() throws {
    var delivered = 0
    try ReminderDaemon(
      deliver: {
        delivered += 1
        return nil
      }, now: .unimplemented, sleep: { _ in Issue.record("slept") },
      stopRequested: { true }, poll: 30
    ).run()
    #expect(delivered == 0)
  }
}
