import Foundation
import JournalCore
import Testing

/// The pause after a session, as a rule over instants handed to it.
struct CoolingOffTests {
  // Whole seconds from the reference date, so that the sums below are exact.
  let now = Date(timeIntervalSinceReferenceDate: 816_000_000)
  let hour: TimeInterval = 3600
  let day: TimeInterval = 86400

  /// The most recent session within the window is the one measured.
  @Test func measuresTheMostRecentSession() {
    // Given sessions a week, a day and three hours ago, in no order
    let dates = [now - 3 * hour, now - 7 * day, now - day]
    // When the window is a day
    let since = CoolingOff.sinceLastSession(dates, now: now, window: day)
    // Then the one three hours ago counts
    #expect(since == 3 * hour)
  }

  /// A session exactly as old as the window no longer counts; a moment younger still does.
  @Test func exactlyAtTheWindowIsOutside() {
    #expect(CoolingOff.sinceLastSession([now - day], now: now, window: day) == nil)
    #expect(CoolingOff.sinceLastSession([now - day + 1], now: now, window: day) == day - 1)
  }

  /// A session dated this very instant has happened: no time since it.
  @Test func aSessionNowCounts() {
    #expect(CoolingOff.sinceLastSession([now], now: now, window: day) == 0)
  }

  /// A window of 0 turns the pause off, however recent the session.
  @Test func windowZeroIsOff() {
    #expect(CoolingOff.sinceLastSession([now - 1, now], now: now, window: 0) == nil)
  }

  /// A session dated ahead (planned) has not happened: it neither counts nor hides the last
  /// one that has.
  @Test func futureSessionsDoNotCount() {
    // Given a session planned for tomorrow and one five hours ago
    let planned = now + day, past = now - 5 * hour
    // Then only the past one is measured; alone, the planned one gives no pause
    #expect(CoolingOff.sinceLastSession([planned, past], now: now, window: day) == 5 * hour)
    #expect(CoolingOff.sinceLastSession([planned], now: now, window: day) == nil)
    #expect(CoolingOff.sinceLastSession([now + 1], now: now, window: day) == nil)
  }

  /// An empty journal gives no pause.
  @Test func emptyJournal() {
    #expect(CoolingOff.sinceLastSession([Date](), now: now, window: day) == nil)
  }
}
