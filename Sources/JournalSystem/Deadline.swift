/// A moment on the monotonic clock that a wait must not outlast. Every bounded wait of
/// journal's own (a subprocess, the agent's socket, the notifier, a passphrase command) is
/// measured on it, never on the wall clock: a clock set back by NTP or by hand, or a
/// suspend, must neither lengthen a wait nor cut one short.
///
/// The clock is injected (`now`), so a wait's logic can be tested by moving it.
public struct Deadline: Sendable {
  private let end: ContinuousClock.Instant
  private let now: @Sendable () -> ContinuousClock.Instant

  /// `seconds` from now on `now` (the monotonic clock unless a test hands another).
  public init(
    in seconds: Double,
    now: @escaping @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now }
  ) {
    self.now = now
    end = now() + .milliseconds(Int64((max(0, seconds) * 1000).rounded()))
  }

  /// Whether the moment has come.
  public var hasPassed: Bool { now() >= end }

  /// What is left, in whole milliseconds (0 once passed), for poll(2) and the like.
  public var millisecondsLeft: Int32 {
    let left = now().duration(to: end)
    guard left > .zero else { return 0 }
    let (seconds, attoseconds) = left.components
    return Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000)
  }
}
