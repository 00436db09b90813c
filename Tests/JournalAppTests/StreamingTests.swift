import Foundation
import JournalCore
import JournalTerminal
import JournalTestSupport
import Testing

@testable import JournalApp

/// The commands that read every session write each as it is read (issue 18). Their JSON must
/// stay byte for byte what JSONEncoder wrote when the whole document was encoded at once
/// (the schema is a promise to scripts), and the reads hand sessions over in order.
@Suite struct StreamingTests {
  /// The documents as they were encoded whole, before streaming: the reference.
  struct ExportDocument: Encodable {
    let format: String
    let version: Int
    let exported: String
    let sessions: [SessionDocument]
  }

  struct ListDocument: Encodable {
    let schema_version: Int
    let sessions: [SessionDocument]
    let damaged: [String]
  }

  /// Texts that need every kind of escaping JSON has, and some that need none.
  static let awkward = [
    "plain", "quote \" and backslash \\ and slash /", "tab\tnew\nline\r\nreturn",
    "bell \u{7} escape \u{1B} unit \u{1F} delete \u{7F}", "é, 😀, \u{2028}\u{2029}, \u{85}",
    "", "   spaces   ", "=formula", "{\"json\": [1, 2]}",
  ]

  static func sessions(_ count: Int) -> [Session] {
    var generator = SeededGenerator(seed: 18)
    return (0..<count).map { index in
      let text = awkward[index % awkward.count]
      let reflected = index % 3 != 0
      return Session(
        id: SessionID(
          randomBytes: (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }),
        date: Date(timeIntervalSince1970: 1_790_000_000 + Double(index % 4) * 86_400),
        treatment: index % 4 == 0 ? .other("San Pedro \(text)") : .psilocybin,
        dose: index % 2 == 0 ? "2 g \(text)" : nil, intention: "intention \(index) \(text)",
        moodBefore: index % 5 == 0 ? nil : Mood(1 + index % 10),
        environment: index % 2 == 1 ? text : nil, music: index % 3 == 1 ? "music \(text)" : nil,
        moodAfter: reflected ? Mood(10 - index % 10) : nil,
        reflection: reflected ? "reflection \(text)" : nil,
        created: Date(timeIntervalSince1970: 1_790_000_000.123),
        updated: Date(timeIntervalSince1970: 1_790_000_500.5),
        status: reflected ? .complete : .needsReflection)
    }
  }

  @Test(arguments: [0, 1, 2, 17])
  func exportJSONIsTheEncodersByteForByte(count: Int) {
    let sessions = Self.sessions(count)
    let exported = Date(timeIntervalSince1970: 1_800_000_000)
    let ordered = sessions.sorted { $0.date != $1.date ? $0.date < $1.date : $0.id < $1.id }
    let reference = SessionDocument.text(
      ExportDocument(
        format: Export.formatName, version: Export.version, exported: ISO8601.string(exported),
        sessions: ordered.map { SessionDocument($0, shortID: false) }))
    let streamed = Export.render(sessions, as: .json, exported: exported, timeZone: .gmt)
    #expect(streamed == reference)
    #expect(Array(streamed.utf8) == Array(reference.utf8))
  }

  @Test(arguments: [0, 1, 17])
  func listJSONIsTheEncodersByteForByte(count: Int) {
    let summaries = Self.sessions(count).map(\.summary)
    for damaged in [[], summaries.prefix(2).map(\.id)] {
      let reference = SessionDocument.text(
        ListDocument(
          schema_version: 1, sessions: summaries.map { SessionDocument($0, shortID: true) },
          damaged: damaged.map(\.hex)))
      #expect(Render.json(list: summaries, damaged: damaged) == reference)
    }
  }

  /// CSV cells made by bytes are the cells the earlier Character-by-Character code made.
  @Test func csvCellsAsBefore() {
    func reference(_ text: String) -> String {
      var value = text
      if let first = value.unicodeScalars.first, ["=", "+", "-", "@", "\t", "\r"].contains(first) {
        value = "'" + value
      }
      guard
        value.contains(where: {
          $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" || $0 == "\r\n"
        })
      else { return value }
      return "\"" + value.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
    let texts =
      Self.awkward + [
        "=1+1", "+cmd", "-2", "@SUM(A1)", "a,b", "say \"hi\"", "\tx", "\r\nline", "é,\"",
        "=\"a\",b", "x\r\ny", "ü", "-", "\"",
      ]
    for text in texts { #expect(Export.csvCell(text) == reference(text), "\(text)") }
  }

  /// Every control character, one at a time, escaped as JSONEncoder escapes it.
  @Test func everyControlCharacter() {
    for scalar in (0..<0x80).compactMap(Unicode.Scalar.init) {
      let text = "a\(Character(scalar))b"
      var writer = JSONWriter()
      writer.beginArray()
      writer.value(text)
      writer.endArray()
      let reference = SessionDocument.text([text])
      #expect(String(decoding: writer.bytes, as: UTF8.self) + "\n" == reference, "\(scalar.value)")
    }
  }

  /// Export hands sessions over oldest first, after saying how many; list newest first;
  /// the filter is applied to the summaries before any body is opened.
  @Test func readsInOrder() throws {
    let f = try AppFixture()
    let sessions = Self.sessions(12)
    _ = try f.journal.importSessions(sessions, dryRun: false)
    var told: [Int] = []
    var seen: [SessionID] = []
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    let damaged = try f.journal.export(SessionFilter(now: now)) {
      told.append($0)
    } _: {
      seen.append($0.id)
    }
    let oldestFirst = sessions.sorted { $0.date != $1.date ? $0.date < $1.date : $0.id < $1.id }
    #expect(damaged.isEmpty)
    #expect(told == [12])
    #expect(seen == oldestFirst.map(\.id))

    var listed: [SessionID] = []
    _ = try f.journal.streamList(SessionFilter(now: now)) { listed.append($0.id) }
    #expect(listed == oldestFirst.reversed().map(\.id))
    listed = []
    let waiting = SessionFilter(now: now, standing: .status(.needsReflection))
    _ = try f.journal.streamList(waiting) { listed.append($0.id) }
    #expect(listed == oldestFirst.reversed().filter { $0.status == .needsReflection }.map(\.id))

    var filter = SessionFilter(now: now, standing: .status(.complete), treatment: "other")
    filter.until = Date(timeIntervalSince1970: 1_790_000_000 + 86_400)
    told = []
    seen = []
    _ = try f.journal.export(filter) {
      told.append($0)
    } _: {
      seen.append($0.id)
    }
    let wanted = oldestFirst.filter { filter.includes($0.summary) }
    #expect(!wanted.isEmpty && wanted.count < 12)
    #expect(told == [wanted.count])
    #expect(seen == wanted.map(\.id))
  }

  /// One filter, one meaning: `list` (held and streamed) and `export` take the same sessions
  /// for every filter, `-n` the newest of them, each in its own order.
  @Test func filtersSharedByListAndExport() throws {
    let f = try AppFixture()
    let sessions = Self.sessions(17)
    _ = try f.journal.importSessions(sessions, dryRun: false)
    func filter(
      _ since: Double? = nil, _ until: Double? = nil, _ status: SessionStatus? = nil,
      _ treatment: String? = nil, name: String? = nil, limit: Int? = nil,
      standing: SessionFilter.Standing? = nil, now: Double = 10_000
    ) -> SessionFilter {
      var filter = SessionFilter(
        now: Date(timeIntervalSince1970: 1_790_000_000 + now * 86_400),
        since: since.map { Date(timeIntervalSince1970: 1_790_000_000 + $0 * 86_400) },
        until: until.map { Date(timeIntervalSince1970: 1_790_000_000 + $0 * 86_400) },
        standing: standing ?? status.map { .status($0) }, treatment: treatment)
      filter.treatmentName = name
      filter.limit = limit
      return filter
    }
    let table: [(SessionFilter, Int)] = [
      (filter(), 17), (filter(1), 12), (filter(nil, 1), 9), (filter(1, 2), 8),
      (filter(nil, nil, .complete), 11), (filter(nil, nil, .needsReflection), 6),
      (filter(nil, nil, nil, "psilocybin"), 12), (filter(nil, nil, nil, "other"), 5),
      (filter(nil, nil, nil, "other", name: "SAN PEDRO plain"), 1),
      (filter(nil, nil, .complete, "psilocybin", limit: 3), 3), (filter(limit: 100), 17),
      (filter(5), 0),
      // Planned: waiting, dated after now (here the second day of the sessions); happened:
      // dated now or before, whatever the status.
      (filter(standing: .planned, now: 1.2), 3), (filter(nil, nil, .needsReflection, now: 1.2), 3),
      (filter(standing: .happened, now: 1.2), 9), (filter(standing: .planned), 0),
      (filter(standing: .happened), 17),
    ]
    let newestFirst = sessions.sorted { $0.date != $1.date ? $0.date > $1.date : $0.id > $1.id }
    for (index, (filter, count)) in table.enumerated() {
      var wanted = newestFirst.filter { filter.includes($0.summary) }
      if let limit = filter.limit { wanted = Array(wanted.prefix(limit)) }
      #expect(wanted.count == count, "row \(index)")
      #expect(try f.journal.list(filter).rows.rows.map(\.id) == wanted.map(\.id), "row \(index)")
      var streamed: [SessionID] = []
      _ = try f.journal.streamList(filter) { streamed.append($0.id) }
      #expect(streamed == wanted.map(\.id), "row \(index)")
      var exported: [SessionID] = []
      _ = try f.journal.export(filter) { _ in
      } _: {
        exported.append($0.id)
      }
      #expect(exported == wanted.reversed().map(\.id), "row \(index)")
    }
  }

  /// Trends counted a session at a time give the figures counted from the whole list, and
  /// keep only the latest moods for the sparkline.
  @Test func trendsTallied() throws {
    let summaries = Self.sessions(40).map(\.summary)
    let whole = Trends(summaries, timeZone: .gmt)
    var tally = Trends.Tally(timeZone: .gmt)
    for summary in summaries.sorted(by: {
      $0.date != $1.date ? $0.date < $1.date : $0.id < $1.id
    }) {
      tally.add(summary)
    }
    let streamed = Trends(tally)
    #expect(streamed.overall == whole.overall)
    #expect(streamed.months == whole.months)
    #expect(streamed.treatments == whole.treatments)
    #expect(streamed.overall.sessions == 40)

    var many = Trends.Tally(timeZone: .gmt)
    let mood = Mood(3)
    for index in 0..<(Trends.Tally.latest + 5) {
      many.add(
        SessionSummary(
          id: SessionID(randomBytes: [UInt8](repeating: UInt8(index % 256), count: 16)),
          date: Date(timeIntervalSince1970: Double(index)), treatment: .mdma,
          moodBefore: index == Trends.Tally.latest + 4 ? Mood(9) : mood, moodAfter: nil,
          status: .needsReflection, created: .now, updated: .now))
    }
    let latest = Trends(many)
    #expect(latest.moods.count == Trends.Tally.latest)
    #expect(latest.moods.last?.before == 9)
    #expect(latest.overall.sessions == Trends.Tally.latest + 5)
  }
}
