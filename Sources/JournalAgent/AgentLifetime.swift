import Foundation

/// When the agent wipes its key: after `idle` without a request for the key, and at the end
/// of its maximum lifetime whatever happens. A pure value over the instants it is handed,
/// so that its rules are tested by moving a clock, not by waiting.
public struct AgentLifetime: Sendable, Equatable {
  /// How long the key is kept without a request for it.
  public let idle: TimeInterval
  /// The end of the agent's life: never moved.
  public let ends: Date
  /// The end of the current idle period: moved by each request, never past `ends`.
  public private(set) var idleEnds: Date

  public init(started: Date, idle: TimeInterval, maximum: TimeInterval) {
    self.idle = idle
    self.ends = started.addingTimeInterval(maximum)
    self.idleEnds = min(ends, started.addingTimeInterval(idle))
  }

  /// The moment the key is wiped unless a request comes first.
  public var deadline: Date { min(idleEnds, ends) }

  /// A request for the key at `now`: the idle period starts again (within the lifetime).
  public mutating func used(at now: Date) {
    idleEnds = min(ends, now.addingTimeInterval(idle))
  }

  /// Whether the key must be gone at `now`.
  public func isOver(at now: Date) -> Bool { now >= deadline }

  /// Whole seconds left at `now` until the idle end and the lifetime's end (0 when past).
  public func remaining(at now: Date) -> (idle: UInt32, lifetime: UInt32) {
    func seconds(_ end: Date) -> UInt32 {
      UInt32(clamping: Int(max(0, end.timeIntervalSince(now)).rounded(.down)))
    }
    return (seconds(deadline), seconds(ends))
  }
}
