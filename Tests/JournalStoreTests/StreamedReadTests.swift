import Foundation
import GRDB
import JournalCore
import JournalCrypto
import JournalStorage
import JournalTestSupport
import Synchronization
import Testing

@testable import JournalStore

/// Streamed reads (issue 18) hand every readable session over once, in order, whichever way
/// they take: holding the summaries (up to `holdAll`), or their places and then a chunk at a
/// time. Damaged rows are named, never handed over, and do not stop the rest.
struct StreamedReadTests {
  /// Twelve sessions on six dates (two a day, so the id decides within a day), half
  /// waiting for reflection; the fifth row's summary and the eighth's body damaged.
  static func fixture() throws -> (StoreFixture, [Session], damaged: [SessionID]) {
    let f = try StoreFixture()
    var sessions: [Session] = []
    for seed in UInt8(1)...12 {
      let date = TestClock.reference + Double(seed / 2) * 86_400
      sessions.append(try f.session(seed: seed, date: date, reflection: seed % 2 == 0 ? nil : "R"))
    }
    for session in sessions { try f.store.upsert(session) }
    let queue = try DatabaseQueue(path: f.path)
    try queue.write { db in
      for (index, column) in [(4, "summary"), (7, "body")] {
        try db.execute(
          sql: "UPDATE session SET \(column) = zeroblob(300) WHERE id = ?",
          arguments: [sessions[index].id.hex])
      }
    }
    try queue.close()
    return (f, sessions, [sessions[4].id, sessions[7].id].sorted())
  }

  static func oldestFirst(_ sessions: [Session]) -> [Session] {
    sessions.sorted { $0.date != $1.date ? $0.date < $1.date : $0.id < $1.id }
  }

  @Test(arguments: [(131_072, 65_536), (2, 3), (2, 1), (2, 100)])
  func summariesEitherWay(holdAll: Int, chunk: Int) throws {
    let (f, sessions, damaged) = try Self.fixture()
    let store = try f.vault.sessions(keys: f.keys, random: f.random)
    store.holdAll = holdAll
    store.chunk = chunk
    let readable = Self.oldestFirst(sessions).filter { $0.id != damaged[0] }
    for order in [ReadOrder.newestFirst, .oldestFirst] {
      var seen: [SessionSummary] = []
      var told: (Int, [SessionID])?
      let named = try store.streamSummaries(order: order, begin: { told = ($0, $1) }) {
        seen.append($0)
      }
      let wanted = order == .oldestFirst ? readable : readable.reversed()
      // The summary of the eighth is whole: only its body is damaged.
      #expect(seen == wanted.map(\.summary))
      #expect(named == [damaged[0]])
      #expect(told?.0 == 11 && told?.1 == [damaged[0]])
    }
    var waiting: [SessionID] = []
    _ = try store.streamSummaries(status: .needsReflection, order: .newestFirst) {
      waiting.append($0.id)
    }
    #expect(
      waiting
        == readable.reversed().filter { $0.status == .needsReflection }.map(\.id))
    var filtered: [SessionID] = []
    _ = try store.streamSummaries(
      order: .oldestFirst, include: { $0.date > TestClock.reference + 3 * 86_400 }
    ) { filtered.append($0.id) }
    #expect(filtered == readable.filter { $0.date > TestClock.reference + 3 * 86_400 }.map(\.id))
  }

  @Test(arguments: [131_072, 2])
  func wholeSessions(holdAll: Int) throws {
    let (f, sessions, damaged) = try Self.fixture()
    let store = try f.vault.sessions(keys: f.keys, random: f.random)
    store.holdAll = holdAll
    var seen: [Session] = []
    var told: Int?
    let named = try store.streamSessions(order: .oldestFirst, begin: { count, _ in told = count }) {
      seen.append($0)
    }
    #expect(seen == Self.oldestFirst(sessions).filter { !damaged.contains($0.id) })
    #expect(named == damaged)
    // Told before the bodies are opened: the eighth's summary opened, so it was counted.
    #expect(told == 11)
    let verified = try store.openEvery()
    #expect(verified.intact == 10 && verified.damaged == damaged)
  }

  /// A search's read: every row opened once in the table's order, then only the matches
  /// handed over, in date order either way, each made once; a damaged summary or body
  /// named, whether it would have matched or not; the filter applied to the summary before
  /// the body is opened (a damaged body it leaves out is not named).
  @Test func matchingSessions() throws {
    let (f, sessions, damaged) = try Self.fixture()
    let store = try f.vault.sessions(keys: f.keys, random: f.random)
    let readable = Self.oldestFirst(sessions).filter { !damaged.contains($0.id) }
    let matching = readable.filter { $0.reflection == nil }
    for order in [ReadOrder.newestFirst, .oldestFirst] {
      let made = Mutex(0)
      var seen: [SessionID] = []
      let named = try store.streamMatching(
        order: order, include: { _ in true }, matches: { $0.reflection == nil },
        transform: { session -> SessionID in
          made.withLock { $0 += 1 }
          return session.id
        }
      ) { seen.append($0) }
      let wanted = order == .oldestFirst ? matching : matching.reversed()
      #expect(seen == wanted.map(\.id))
      #expect(made.withLock { $0 } == matching.count)
      #expect(named == damaged)
    }
    // Nothing matches: nothing made, the damage still named.
    var none: [SessionID] = []
    let named = try store.streamMatching(
      order: .newestFirst, include: { _ in true }, matches: { _ in false },
      transform: { $0.id }
    ) { none.append($0) }
    #expect(none.isEmpty && named == damaged)
    // The eighth (its body damaged) left out by the filter: not opened, not named.
    let eighth = sessions[7].id
    var filtered: [SessionID] = []
    let namedFiltered = try store.streamMatching(
      order: .oldestFirst, include: { $0.id != eighth }, matches: { _ in true },
      transform: { $0.id }
    ) { filtered.append($0) }
    #expect(filtered == readable.map(\.id))
    #expect(namedFiltered == [sessions[4].id])
  }
}
