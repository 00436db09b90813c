import Foundation
import JournalCore

/// Mood before and after, over time and per treatment: averages with the counts they rest
/// on, and the moods session by session for sparklines. Only description: no streaks, no
/// scores, no judgement of a session or a month. A mood that was not recorded (a session
/// imported from jrnl has no mood before) is left out of every average, never counted as a
/// number, and each average says how many sessions it rests on.
public struct Trends: Sendable {
  /// One group's figures (a month, a treatment).
  public struct Row: Sendable, Equatable {
    public let name: String
    public let sessions: Int
    /// The average of the moods before, over the sessions that have one; nil when none has.
    public let averageBefore: Double?
    /// How many sessions have a mood before.
    public let withBefore: Int
    /// The average of the moods after, over the sessions that have one; nil when none has.
    public let averageAfter: Double?
    /// How many sessions have a mood after.
    public let withAfter: Int
    /// The average of (after − before) over the sessions that have both; nil when none has.
    public let averageChange: Double?
  }

  /// The latest sessions (at most `Tally.latest`), oldest first, as (before, after) pairs,
  /// for the sparklines; `overall.sessions` says how many there are in all.
  public let moods: [(before: Int?, after: Int?)]
  /// By month ("2026-11"), oldest first.
  public let months: [Row]
  public let treatments: [Row]
  public let overall: Row
  /// How many of the sessions were closed without a reflection.
  public let closed: Int
  /// The moods of integration notes by how long after their session they were written:
  /// only the periods some note with a mood falls in, in order.
  public let afterSessions: [AfterRow]

  /// Notes' moods in one period after a session.
  public struct AfterRow: Sendable, Equatable {
    public let period: String
    public let notes: Int
    public let average: Double
  }

  /// The periods after a session, by the days since it: (last day, name).
  static let periods: [(last: Int, name: String)] = [
    (0, "the first day"), (6, "the first week"), (13, "week 2"), (20, "week 3"),
    (27, "week 4"), (55, "weeks 5 to 8"), (83, "weeks 9 to 12"), (Int.max, "later"),
  ]

  public init(_ sessions: [SessionSummary], timeZone: TimeZone) {
    var tally = Tally(timeZone: timeZone)
    for summary in sessions.sorted(by: { $0.date != $1.date ? $0.date < $1.date : $0.id < $1.id }) {
      tally.add(summary)
    }
    self.init(tally)
  }

  /// The figures of what `tally` counted.
  public init(_ tally: Tally) {
    moods = Array(tally.moods[tally.start...] + tally.moods[..<tally.start])
    months = tally.months.keys.sorted().map { tally.months[$0, default: Sums()].row($0) }
    treatments = tally.treatments.sorted {
      $0.value.sessions != $1.value.sessions
        ? $0.value.sessions > $1.value.sessions : $0.key < $1.key
    }.map { $0.value.row($0.key) }
    overall = tally.overall.row("all")
    closed = tally.closed
    afterSessions = Self.periods.indices.compactMap { index in
      let (count, sum) = tally.after[index]
      guard count > 0 else { return nil }
      return AfterRow(
        period: Self.periods[index].name, notes: count, average: Double(sum) / Double(count))
    }
  }

  /// Counts sessions handed over one at a time, oldest first, keeping sums per month and
  /// treatment and the latest moods: what it holds does not grow with the journal.
  public struct Tally {
    /// The most sessions a sparkline shows (wider than any terminal).
    public static let latest = 1024
    let format: DisplayFormat
    var moods: [(before: Int?, after: Int?)] = []
    /// Where the oldest of `moods` is, once it is full and wraps around.
    var start = 0
    var months: [String: Sums] = [:]
    var treatments: [String: Sums] = [:]
    var overall = Sums()
    var closed = 0
    /// Per period after a session (`Trends.periods`): how many note moods, and their sum.
    var after = [(count: Int, sum: Int)](repeating: (0, 0), count: Trends.periods.count)

    public init(timeZone: TimeZone) {
      format = DisplayFormat(timeZone: timeZone)
    }

    /// Counts the next session (each later than or as late as the one before).
    public mutating func add(_ s: SessionSummary) {
      let pair = (before: s.moodBefore?.value, after: s.moodAfter?.value)
      if moods.count < Self.latest {
        moods.append(pair)
      } else {
        moods[start] = pair
        start = (start + 1) % Self.latest
      }
      months[format.month(s.date), default: Sums()].add(pair)
      treatments[s.treatment.displayName, default: Sums()].add(pair)
      overall.add(pair)
      if s.status == .closed { closed += 1 }
      for item in s.noteMoods {
        let index =
          Trends.periods.firstIndex { Int(item.days) <= $0.last } ?? Trends.periods.count - 1
        after[index].count += 1
        after[index].sum += item.mood.value
      }
    }
  }

  /// One group's running sums (moods are whole numbers, so the sums are exact).
  struct Sums {
    var sessions = 0
    var before = 0, withBefore = 0
    var after = 0, withAfter = 0
    var change = 0, withChange = 0

    mutating func add(_ pair: (before: Int?, after: Int?)) {
      sessions += 1
      if let value = pair.before {
        before += value
        withBefore += 1
      }
      if let value = pair.after {
        after += value
        withAfter += 1
      }
      if let first = pair.before, let last = pair.after {
        change += last - first
        withChange += 1
      }
    }

    func row(_ name: String) -> Row {
      func average(_ sum: Int, _ count: Int) -> Double? {
        count == 0 ? nil : Double(sum) / Double(count)
      }
      return Row(
        name: name, sessions: sessions, averageBefore: average(before, withBefore),
        withBefore: withBefore, averageAfter: average(after, withAfter), withAfter: withAfter,
        averageChange: average(change, withChange))
    }
  }
}

/// The text of `journal trends`: sparklines and tables, or tables only in plain mode.
public struct TrendsView {
  let trends: Trends
  let presentation: Presentation

  public init(_ trends: Trends, presentation: Presentation) {
    self.trends = trends
    self.presentation = presentation
  }

  /// The eight block heights for moods 1–10.
  static let blocks: [Character] = ["▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"]

  public var text: String {
    var out = heading + "\n"
    if !presentation.plain {
      out += "\n" + sparklines
    }
    out += "\n" + table("By month", first: "month", trends.months)
    out += "\n" + table("By treatment", first: "treatment", trends.treatments)
    if !trends.afterSessions.isEmpty { out += "\n" + afterTable }
    let note =
      unrecorded
      ? "\"before\" averages the sessions with a mood before, \"after\" those with a mood "
        + "after, and \"change\" (after − before) those with both; a mood not recorded is "
        + "left out."
      : "\"before\" averages every session; \"after\" and \"change\" (after − before) only "
        + "the sessions with a mood after."
    out +=
      "\n"
      + (presentation.width.map { Wrap.lines(note, width: $0) } ?? [note])
      .joined(separator: "\n") + "\n"
    return out
  }

  /// Whether some session has no mood before: then the tables say how many have one.
  private var unrecorded: Bool { trends.overall.withBefore < trends.overall.sessions }

  private var heading: String {
    let count = trends.overall.sessions
    var text = "Mood before and after: \(count) session\(count == 1 ? "" : "s")"
    if let first = trends.months.first, let last = trends.months.last {
      let a = Self.monthName(first.name)
      let b = Self.monthName(last.name)
      text += a == b ? ", \(a)" : ", \(a) to \(b)"
    }
    if trends.closed > 0 {
      text += " (\(trends.closed) of them closed without a reflection)"
    }
    return wrap(text)
  }

  /// One mark a session, oldest first; as many of the latest as fit the width.
  private var sparklines: String {
    let width = presentation.width ?? 80
    let room = max(10, width - 2 - 8 - 22)
    let shown = trends.moods.suffix(room)
    let label = shown.count < trends.overall.sessions ? "the latest \(shown.count)" : "each session"
    var out = wrap("Over time, \(label), oldest first") + "\n"
    let beforeMarks = String(shown.map { $0.before.map(Self.block) ?? "\u{A0}" })
    // A no-break space where there is no mood after: wrapping never splits the marks.
    let afterMarks = String(shown.map { $0.after.map(Self.block) ?? "\u{A0}" })
    var before =
      "  before  \(beforeMarks)  average \(trends.overall.averageBefore.map(number) ?? "none")"
    let notRecorded = trends.overall.sessions - trends.overall.withBefore
    if notRecorded > 0 { before += " (\(notRecorded) not recorded)" }
    out += wrap(before) + "\n"
    var after =
      "  after   \(afterMarks)  average \(trends.overall.averageAfter.map(number) ?? "none")"
    let missing = trends.overall.sessions - trends.overall.withAfter
    if missing > 0 { after += " (\(missing) without one yet)" }
    return out + wrap(after) + "\n"
  }

  private func table(_ title: String, first: String, _ rows: [Trends.Row]) -> String {
    // The "with before" column only when some mood before was not recorded: otherwise it
    // would repeat "sessions" on every row.
    let counted = unrecorded
    var header = [first, "sessions", "before", "with after", "after", "change"]
    if counted { header.insert("with before", at: 2) }
    let body = rows.map { row in
      var cells = [
        row.name, String(row.sessions), row.averageBefore.map(number) ?? "none",
        String(row.withAfter), row.averageAfter.map(number) ?? "none",
        row.averageChange.map(signed) ?? "none",
      ]
      if counted { cells.insert(String(row.withBefore), at: 2) }
      return cells
    }
    let widths = header.indices.map { column in
      ([header] + body).map { Wrap.columns($0[column]) }.max() ?? 0
    }
    func line(_ cells: [String]) -> String {
      var text = "  "
      for (index, cell) in cells.enumerated() {
        let pad = String(repeating: " ", count: widths[index] - Wrap.columns(cell))
        text += index == 0 ? cell + pad : "  " + pad + cell
      }
      return text
    }
    let total = widths.reduce(2, +) + 2 * (widths.count - 1)
    if let width = presentation.width, total > width {
      // Too narrow for columns: one short paragraph a row, nothing cut.
      return title + "\n"
        + body.map { full in
          var cells = full
          let withBefore = counted ? "\(cells.remove(at: 2)) with a mood before, " : ""
          return wrap(
            "  \(cells[0]): \(cells[1]) session\(cells[1] == "1" ? "" : "s"), \(withBefore)"
              + "before \(cells[2]); \(cells[3]) with a mood after, after \(cells[4]), "
              + "change \(cells[5])")
        }.joined(separator: "\n") + "\n"
    }
    return title + "\n" + ([line(header)] + body.map(line)).joined(separator: "\n") + "\n"
  }

  /// The moods of notes in the weeks after a session: a period, how many notes, their
  /// average.
  private var afterTable: String {
    let rows = trends.afterSessions
    let names = rows.map(\.period)
    let width = (names + ["after a session"]).map(Wrap.columns).max() ?? 0
    var out = wrap("After a session, from the moods of your notes") + "\n"
    for row in rows {
      let pad = String(repeating: " ", count: width - Wrap.columns(row.period))
      out +=
        wrap(
          "  \(row.period)\(pad)  \(number(row.average))  "
            + "(\(row.notes) note\(row.notes == 1 ? "" : "s"))") + "\n"
    }
    return out
  }

  private func wrap(_ text: String) -> String {
    guard let width = presentation.width else { return text }
    return Wrap.lines(text, width: width, indent: "    ").joined(separator: "\n")
  }

  /// "2026-11" as "November 2026".
  static func monthName(_ key: String) -> String {
    let names = [
      "January", "February", "March", "April", "May", "June", "July", "August", "September",
      "October", "November", "December",
    ]
    let month = Int(key.suffix(2)) ?? 1
    return "\(names[min(12, max(1, month)) - 1]) \(key.prefix(4))"
  }

  private func number(_ value: Double) -> String { String(format: "%.1f", value) }

  private func signed(_ value: Double) -> String {
    let text = number(value)
    return value >= 0.05 ? "+" + text : (text == "-0.0" ? "0.0" : text)
  }

  static func block(_ mood: Int) -> Character {
    blocks[min(7, max(0, (mood - 1) * 8 / 10))]
  }
}
