import Foundation
import JournalAgent
import JournalTestSupport
import Testing

/// The agent's time rules as a pure value: idle expiry, activity, the maximum lifetime.
struct AgentLifetimeTests {
  let start = TestClock.reference

  /// Without a request the key goes after the idle time.
  @Test func idleExpiry() {
    let lifetime = AgentLifetime(started: start, idle: 600, maximum: 7200)
    #expect(!lifetime.isOver(at: start + 599))
    #expect(lifetime.isOver(at: start + 600))
    #expect(lifetime.remaining(at: start + 100) == (idle: 500, lifetime: 7100))
  }

  /// A request starts the idle time again.
  @Test func activityExtendsIdle() {
    var lifetime = AgentLifetime(started: start, idle: 600, maximum: 7200)
    lifetime.used(at: start + 500)
    #expect(!lifetime.isOver(at: start + 1099))
    #expect(lifetime.isOver(at: start + 1100))
  }

  /// However busy, the agent ends at its maximum lifetime: activity never moves it.
  @Test func maximumLifetimeIsNeverExtended() {
    var lifetime = AgentLifetime(started: start, idle: 600, maximum: 1000)
    for minute in stride(from: 0.0, through: 990, by: 60) { lifetime.used(at: start + minute) }
    #expect(!lifetime.isOver(at: start + 999))
    #expect(lifetime.isOver(at: start + 1000))
    #expect(lifetime.deadline == start + 1000)
    #expect(lifetime.remaining(at: start + 990) == (idle: 10, lifetime: 10))
  }

  /// An idle time longer than the lifetime is cut to it.
  @Test func idleWithinLifetime() {
    let lifetime = AgentLifetime(started: start, idle: 3600, maximum: 60)
    #expect(lifetime.deadline == start + 60)
  }
}
