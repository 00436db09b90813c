import Foundation
import JournalCore
import JournalTerminal
import JournalTestSupport
import Testing

/// `journal trends`: the figures, and the text in both modes (golden).
struct TrendsTests {
  private static let day: TimeInterval = 86_400

  /// Six sessions over two months, two treatments, one without a mood after.
  private static let sessions: [SessionSummary] = [
    (0, Treatment.psilocybin, 3, Int?(7)), (10, .psilocybin, 4, 6), (20, .mdma, 5, 8),
    (35, .psilocybin, 4, 8), (40, .mdma, 6, nil), (50, .psilocybin, 2, 5),
  ].enumerated().map { index, item in
    let (offset, treatment, before, after) = item
    let date = TestClock.reference.addingTimeInterval(Double(offset) * day)
    return SessionSummary(
      id: SessionID(randomBytes: [UInt8](repeating: UInt8(index), count: 16)), date: date,
      treatment: treatment, moodBefore: Mood(before),
      moodAfter: after.flatMap(Mood.init), status: after == nil ? .needsReflection : .complete,
      created: date, updated: date)
  }

  @Test func figuresPerMonthAndTreatment() {
    // Given the sessions in an order of the run's seed (JOURNAL_TEST_SEED replays it)
    var order = SeededGenerator(seed: SeededGenerator.runSeed)
    let trends = Trends(Self.sessions.shuffled(using: &order), timeZone: .gmt)
    #expect(trends.months.map(\.name) == ["2026-11", "2026-12", "2027-01"])
    #expect(trends.moods.map(\.before) == [3, 4, 5, 4, 6, 2])
    let psilocybin = trends.treatments[0]
    #expect(psilocybin.name == "Psilocybin")
    #expect(psilocybin.sessions == 4)
    #expect(psilocybin.averageBefore == 3.25)
    #expect(psilocybin.averageAfter == 6.5)
    #expect(psilocybin.averageChange == 3.25)
    let mdma = trends.treatments[1]
    #expect(mdma.withAfter == 1)
    #expect(mdma.averageChange == 3)
  }

  /// A session whose mood before was not recorded (imported from jrnl).
  private static let unrecorded = SessionSummary(
    id: SessionID(randomBytes: [UInt8](repeating: 0xEE, count: 16)),
    date: TestClock.reference.addingTimeInterval(-day), treatment: .other("not recorded"),
    moodBefore: nil, moodAfter: Mood(9), status: .complete,
    created: TestClock.reference, updated: TestClock.reference)

  /// A mood before that was not recorded is left out of "before" and "change", and counted:
  /// each row says how many sessions its "before" rests on; none is not a number.
  @Test func moodBeforeNotRecorded() {
    let trends = Trends(Self.sessions + [Self.unrecorded], timeZone: .gmt)
    #expect(trends.overall.sessions == 7)
    #expect(trends.overall.withBefore == 6)
    #expect(trends.overall.averageBefore == 4)
    #expect(trends.overall.withAfter == 6)
    #expect(trends.overall.averageChange == 3.2)
    #expect(trends.moods.first?.before == nil)
    let alone = Trends([Self.unrecorded], timeZone: .gmt).overall
    #expect(alone.withBefore == 0 && alone.averageBefore == nil && alone.averageChange == nil)
  }

  /// With a mood before not recorded, the sparkline leaves its place empty and says how many,
  /// the tables gain a "with before" column (a sentence at 40 columns), the note says what
  /// each average rests on.
  @Test func notRecordedGolden() {
    let trends = Trends(Self.sessions + [Self.unrecorded], timeZone: .gmt)
    let wide = TrendsView(
      trends, presentation: Presentation(plain: false, colour: false, width: 80))
    let narrow = TrendsView(
      trends, presentation: Presentation(plain: true, colour: false, width: 40))
    #expect(
      wide.text == """
        Mood before and after: 7 sessions, November 2026 to January 2027

        Over time, each session, oldest first
          before  \u{A0}▂▃▄▃▅▁  average 4.0 (1 not recorded)
          after   ▇▅▅▆▆\u{A0}▄  average 7.2 (1 without one yet)

        By month
          month    sessions  with before  before  with after  after  change
          2026-11         2            1     3.0           2    8.0    +4.0
          2026-12         4            4     4.8           3    7.3    +3.0
          2027-01         1            1     2.0           1    5.0    +3.0

        By treatment
          treatment     sessions  with before  before  with after  after  change
          Psilocybin           4            4     3.2           4    6.5    +3.2
          MDMA                 2            2     5.5           1    8.0    +3.0
          not recorded         1            0    none           1    9.0    none

        "before" averages the sessions with a mood before, "after" those with a mood
        after, and "change" (after − before) those with both; a mood not recorded is
        left out.

        """)
    #expect(
      narrow.text.hasPrefix(
        """
        Mood before and after: 7 sessions,
            November 2026 to January 2027

        By month
          2026-11: 2 sessions, 1 with a mood
            before, before 3.0; 2 with a mood
            after, after 8.0, change +4.0
        """))
    #expect(narrow.text.split(separator: "\n").allSatisfy { Wrap.columns($0) <= 40 })
  }

  @Test func sparklinesAndTablesGolden() {
    let view = TrendsView(
      Trends(Self.sessions, timeZone: .gmt),
      presentation: Presentation(plain: false, colour: false, width: 80))
    #expect(
      view.text == """
        Mood before and after: 6 sessions, November 2026 to January 2027

        Over time, each session, oldest first
          before  ▂▃▄▃▅▁  average 4.0
          after   ▅▅▆▆\u{A0}▄  average 6.8 (1 without one yet)

        By month
          month    sessions  before  with after  after  change
          2026-11         1     3.0           1    7.0    +4.0
          2026-12         4     4.8           3    7.3    +3.0
          2027-01         1     2.0           1    5.0    +3.0

        By treatment
          treatment   sessions  before  with after  after  change
          Psilocybin         4     3.2           4    6.5    +3.2
          MDMA               2     5.5           1    8.0    +3.0

        "before" averages every session; "after" and "change" (after − before) only the
        sessions with a mood after.

        """)
  }

  /// Plain mode: tables only, no block characters, no escape sequences; at 40 columns the
  /// rows become short paragraphs and nothing is cut.
  @Test func plainAtFortyColumnsGolden() {
    let view = TrendsView(
      Trends(Self.sessions, timeZone: .gmt),
      presentation: Presentation(plain: true, colour: false, width: 40))
    #expect(
      view.text == """
        Mood before and after: 6 sessions,
            November 2026 to January 2027

        By month
          2026-11: 1 session, before 3.0; 1 with
            a mood after, after 7.0, change +4.0
          2026-12: 4 sessions, before 4.8; 3
            with a mood after, after 7.3, change
            +3.0
          2027-01: 1 session, before 2.0; 1 with
            a mood after, after 5.0, change +3.0

        By treatment
          Psilocybin: 4 sessions, before 3.2; 4
            with a mood after, after 6.5, change
            +3.2
          MDMA: 2 sessions, before 5.5; 1 with a
            mood after, after 8.0, change +3.0

        "before" averages every session; "after"
        and "change" (after − before) only the
        sessions with a mood after.

        """)
    #expect(view.text.split(separator: "\n").allSatisfy { Wrap.columns($0) <= 40 })
  }
}
