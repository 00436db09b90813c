import Foundation
import JournalCore

/// `journal reminders daemon`: delivers reminders as they fall due until asked to stop.
///
/// A loop over injected effects (deliver, the clock, sleep, the stop request), so its timing
/// is tested by moving a clock: it delivers, then sleeps until the next reminder falls due,
/// but never longer than `poll` (so one set or cancelled meanwhile is noticed), and never
/// less than 50 ms (a reminder due in the past is not a busy loop).
public struct ReminderDaemon {
  /// Delivers what is due at the moment; returns when the next reminder falls due, if any.
  public var deliver: () throws -> Date?
  public var now: Now
  /// Sleeps up to this long, waking early when a stop is asked for.
  public var sleep: (TimeInterval) -> Void
  public var stopRequested: () -> Bool
  /// The longest sleep between looks.
  public var poll: TimeInterval

  public init(
    deliver: @escaping () throws -> Date?, now: Now, sleep: @escaping (TimeInterval) -> Void,
    stopRequested: @escaping () -> Bool, poll: TimeInterval
  ) {
    self.deliver = deliver
    self.now = now
    self.sleep = sleep
    self.stopRequested = stopRequested
    self.poll = poll
  }

  /// How long to sleep at `now` when the next reminder falls due at `next`.
  public static func wait(now: Date, next: Date?, poll: TimeInterval) -> TimeInterval {
    min(poll, max(0.05, (next ?? now.addingTimeInterval(poll)).timeIntervalSince(now)))
  }

  public func run() throws {
    while !stopRequested() {
      let next = try deliver()
      sleep(Self.wait(now: now(), next: next, poll: poll))
    }
  }
}
