import JournalSystem
import Synchronization
import Testing

/// Every bounded wait is measured on the monotonic clock, injected here and moved by hand.
struct DeadlineTests {
  /// A clock a test moves: starts at the real now, then only where it is told.
  final class HandClock: Sendable {
    private let instant = Mutex(ContinuousClock.now)
    func move(by seconds: Double) {
      instant.withLock { $0 = $0 + .milliseconds(Int64(seconds * 1000)) }
    }
    var now: ContinuousClock.Instant { instant.withLock { $0 } }
  }

  /// A deadline passes exactly when its clock reaches it, and says how long is left in
  /// whole milliseconds until then (none after).
  @Test func passesWithItsClock() {
    let clock = HandClock()
    let deadline = Deadline(in: 2) { clock.now }
    #expect(!deadline.hasPassed)
    #expect(deadline.millisecondsLeft == 2000)
    clock.move(by: 1.5)
    #expect(!deadline.hasPassed)
    #expect(deadline.millisecondsLeft == 500)
    clock.move(by: 0.5)
    #expect(deadline.hasPassed)
    #expect(deadline.millisecondsLeft == 0)
    clock.move(by: 3600)
    #expect(deadline.millisecondsLeft == 0)
  }

  /// A negative or zero time has already passed.
  @Test func nothingLeft() {
    #expect(Deadline(in: 0).hasPassed)
    #expect(Deadline(in: -5).millisecondsLeft == 0)
  }
}
