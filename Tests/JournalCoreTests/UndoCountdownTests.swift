import Foundation
import JournalCore
import Testing

/// The undo countdown, driven by a clock moved by hand.
struct UndoCountdownTests {
  let start = Date(timeIntervalSince1970: 1_795_285_800)

  /// Each whole second left is shown once, then the machine waits for the next one; at the
  /// end of the window it purges.
  @Test func countsDownAndPurges() {
    var countdown = UndoCountdown(deadline: start + 10)
    #expect(countdown.tick(at: start) == .show(secondsLeft: 10))
    #expect(countdown.tick(at: start) == .wait(until: start + 1))
    #expect(countdown.tick(at: start + 0.5) == .wait(until: start + 1))
    #expect(countdown.tick(at: start + 1) == .show(secondsLeft: 9))
    #expect(countdown.tick(at: start + 9.2) == .show(secondsLeft: 1))
    #expect(countdown.tick(at: start + 9.9) == .wait(until: start + 10))
    #expect(countdown.tick(at: start + 10) == .purge)
    #expect(countdown.tick(at: start + 60) == .purge)
  }

  /// A window already closed (the machine was asleep) purges at once.
  @Test func lateStartPurges() {
    var countdown = UndoCountdown(deadline: start)
    #expect(countdown.tick(at: start + 3) == .purge)
  }

  /// u undoes; Enter, Esc, q, any other key and a paste leave (a command typed meanwhile,
  /// its first letter, never reaches a u; a pasted `uptime` is no u).
  @Test func keys() {
    let countdown = UndoCountdown(deadline: start + 10)
    #expect(countdown.key([0x75]) == .undo)
    #expect(countdown.key([0x55]) == .undo)
    let others: [[UInt8]] = [
      [0x0D], [0x0A], [0x1B], [0x71], [0x6A], [0x1B, 0x5B, 0x41], [], Array("uptime".utf8),
    ]
    for key in others { #expect(countdown.key(key) == .leave) }
  }
}
