import Foundation
import JournalApp
import JournalCore
import JournalTerminal
import JournalTestSupport
import Testing

/// The day, week and month prompts: which sessions, on which day, in which words.
struct IntegrationArcTests {
  /// "Now" for reading the test's dates, late enough that none is in the future.
  private static let later = TestClock.reference.addingTimeInterval(400 * 86_400)

  private func session(_ date: String, zone: TimeZone = .gmt) throws -> SessionSummary {
    let instant = try DateInput(timeZone: zone).parse(date, now: Self.later)
    return SessionSummary(
      id: SessionID(
        randomBytes: Array((Array(date.utf8) + [UInt8](repeating: 1, count: 16)).prefix(16))),
      date: instant, treatment: .psilocybin, moodBefore: .middle, moodAfter: nil,
      status: .needsReflection, created: instant, updated: instant)
  }

  @Test func aDayAWeekAndAMonthAfter() throws {
    let sessions = try ["2026-11-20 22:00", "2026-11-14 09:00", "2026-10-21 18:00"].map {
      try session($0)
    }
    let today = TestClock.reference  // Sat 2026-11-21 18:30 UTC
    var order = SeededGenerator(seed: SeededGenerator.runSeed)  // JOURNAL_TEST_SEED replays it
    let due = IntegrationArc.due(
      sessions.shuffled(using: &order), today: today, timeZone: .gmt)
    #expect(due.map(\.milestone) == [.month, .week, .day])
    #expect(due.map(\.session.date) == [sessions[2].date, sessions[1].date, sessions[0].date])
  }

  @Test func otherDaysShowNothing() throws {
    let sessions = try ["2026-11-19 22:00", "2026-11-13 09:00", "2026-11-21 08:00"].map {
      try session($0)
    }
    #expect(IntegrationArc.due(sessions, today: TestClock.reference, timeZone: .gmt).isEmpty)
  }

  /// A planned session (dated ahead) brings no prompt until it has happened; a day after its
  /// date, the day's prompt comes as for any other.
  @Test func aPlannedSessionWaitsForItsDate() throws {
    let planned = try session("2026-11-28 10:00")
    #expect(IntegrationArc.due([planned], today: TestClock.reference, timeZone: .gmt).isEmpty)
    let dayAfter = try DateInput(timeZone: .gmt).parse("2026-11-29 09:00", now: Self.later)
    #expect(
      IntegrationArc.due([planned], today: dayAfter, timeZone: .gmt).map(\.milestone) == [.day])
  }

  /// Days are the person's calendar days: across a DST change a week is still seven days.
  @Test func followsTheLocalCalendarAcrossDaylightSaving() throws {
    let berlin = try #require(TimeZone(identifier: "Europe/Berlin"))
    let before = try session("2026-10-20 23:30", zone: berlin)
    let today = try DateInput(timeZone: berlin).parse("2026-10-27 00:10", now: Self.later)
    let due = IntegrationArc.due([before], today: today, timeZone: berlin)
    #expect(due.map(\.milestone) == [.week])
  }

  @Test func aMonthFromTheThirtyFirstEndsAtTheMonthsEnd() throws {
    let january = try session("2027-01-31 10:00")
    let today = try DateInput(timeZone: .gmt).parse("2027-02-28 12:00", now: Self.later)
    #expect(
      IntegrationArc.due([january], today: today, timeZone: .gmt).map(\.milestone) == [.month])
  }

  @Test func theLineNamesTheDayAndTheCommandButNoText() throws {
    let s = try session("2026-11-14 09:00")
    let line = IntegrationArc.line(s, .week, format: DisplayFormat(timeZone: .gmt))
    #expect(
      line
        == "a week since the session of Sat 2026-11-14; its intention is there to revisit "
        + "(journal show \(s.id.short)), and what has come up since can go in a note: "
        + "journal note \(s.id.short)")
  }

  @Test func offUnlessAskedFor() throws {
    #expect(try IntegrationArc.isOn(environment: [:]) == false)
    #expect(try IntegrationArc.isOn(environment: ["JOURNAL_INTEGRATION_PROMPTS": "on"]))
  }
}
