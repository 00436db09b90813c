import Foundation
import GRDB
import JournalCore
import JournalTestSupport
import Testing

@testable import JournalStore

/// `list` keeps 32 bytes a session (`ListRow`) and, past `gatherEntries` sessions, checks the
/// ledger from its own indexes instead of from entries gathered while reading: either way it
/// shows what the summaries say, in their order, and finds what the whole check finds.
struct ListRowsTests {
  let t0 = TestClock.reference

  /// Sessions on a few dates (several on one, so the id decides), half waiting, with named
  /// and custom treatments, the mood after missing from the waiting.
  func fixture() throws -> (StoreFixture, [Session]) {
    let f = try StoreFixture()
    var sessions: [Session] = []
    let treatments: [Treatment] = [.ketamine, .other("San Pedro"), .psilocybin, .other("Kambo")]
    for seed in UInt8(1)...14 {
      let draft = SessionDraft(
        id: SessionID(randomBytes: [UInt8](repeating: seed &* 17, count: 16)),
        date: t0 + Double(seed / 3) * 86_400, treatment: treatments[Int(seed) % 4],
        intention: "INTENTION", moodBefore: Mood(Int(seed % 10) + 1))
      var session = try Session.saving(draft, now: t0)
      if seed % 2 == 0 {
        try session.apply(.moodAfter(Mood(10)), now: t0)
        try session.apply(.reflection("REFLECTION"), now: t0 + 1)
      }
      sessions.append(session)
    }
    for session in sessions { try f.store.upsert(session) }
    return (f, sessions)
  }

  func listingStore(_ f: StoreFixture, gather: Int) throws -> SessionStore {
    let store = try Vault.open(at: f.path).sessions(keys: f.keys, random: f.random, check: .listing)
    store.gatherEntries = gather
    return store
  }

  /// Each row says what its summary says, in the summaries' order.
  @Test func rowsAreTheSummaries() throws {
    let (f, _) = try fixture()
    let store = try Vault.open(at: f.path).sessions(keys: f.keys, random: f.random)
    for status in [nil, SessionStatus.needsReflection] {
      let filters: [@Sendable (SessionSummary) -> Bool] = [
        { _ in true }, { $0.treatment.customName != nil },
      ]
      for include in filters {
        let summaries = try store.summaries(status: status).sessions.filter(include)
        let (list, damaged) = try store.listRows(status: status, include: include)
        #expect(damaged.isEmpty)
        #expect(list.rows.map(\.id) == summaries.map(\.id))
        for (row, summary) in zip(list.rows, summaries) {
          #expect(row.date == summary.date)
          #expect(list.treatment(of: row) == summary.treatment)
          #expect(row.moodBefore == summary.moodBefore?.value)
          #expect(row.moodAfter == summary.moodAfter?.value)
          #expect(row.status == summary.status)
          #expect(row.addedSealed == (summary.addedSealed != nil))
          #expect(row.laterSealed == (summary.laterSealed != nil))
        }
        // Each custom name once, after the named treatments.
        #expect(Array(list.treatments.prefix(Treatment.known.count)) == Treatment.known)
        let custom = list.treatments.dropFirst(Treatment.known.count).compactMap {
          $0.customName
        }
        #expect(Set(custom).count == custom.count)
      }
    }
  }

  /// An untouched vault lists, and is checked, either way.
  @Test(arguments: [131_072, 1])
  func untouchedVaultLists(gather: Int) throws {
    let (f, sessions) = try fixture()
    let store = try listingStore(f, gather: gather)
    #expect(try store.listRows(include: { _ in true }).rows.rows.count == sessions.count)
    #expect(store.checked != nil)
    let waiting = try listingStore(f, gather: gather)
    #expect(
      try waiting.listRows(status: .needsReflection, include: { _ in true }).rows.rows.count
        == sessions.filter { $0.status == .needsReflection }.count)
    #expect(waiting.checked != nil)
  }

  /// A row deleted, a row put back from before a write, and a row's clear status changed:
  /// found by the listing whichever way it checks, listing all or only the waiting.
  @Test(arguments: [131_072, 1])
  func tamperingIsFoundEitherWay(gather: Int) throws {
    for change in 0..<3 {
      let (f, sessions) = try fixture()
      let waiting = try #require(sessions.first { $0.status == .needsReflection })
      let complete = try #require(sessions.first { $0.status == .complete })
      let queue = try GRDBAccess.queue(f.path)
      switch change {
      case 0:
        try queue.write {
          try $0.execute(sql: "DELETE FROM session WHERE id = ?", arguments: [complete.id.hex])
        }
      case 1:
        let old = try queue.read { db in
          try #require(
            try Row.fetchOne(
              db, sql: "SELECT summary, body, revision FROM session WHERE id = ?",
              arguments: [waiting.id.hex]))
        }
        try f.store.update(waiting.id) { try $0.apply(.music("LATER"), now: t0 + 5) }
        try queue.write {
          try $0.execute(
            sql: "UPDATE session SET summary = ?, body = ?, revision = ? WHERE id = ?",
            arguments: [old[0], old[1], old[2], waiting.id.hex])
        }
      default:
        try queue.write {
          try $0.execute(
            sql: "UPDATE session SET status = 'needs_reflection' WHERE id = ?",
            arguments: [complete.id.hex])
        }
      }
      for status in [nil, SessionStatus.needsReflection] {
        #expect(
          throws: StoreError.tampered(.rows), "change \(change), \(String(describing: status))"
        ) {
          try listingStore(f, gather: gather).listRows(status: status, include: { _ in true })
        }
      }
    }
  }

  /// The list index pointed at another table's index (the schema edited in place): `list`
  /// reads rows the ledger's own indexes do not hold. Refused either way it checks: the rows
  /// shown are the rows checked (a session hidden here, another's older revision there).
  @Test(arguments: [131_072, 1])
  func aListIndexThatIsNotTheTablesIsRefused(gather: Int) throws {
    for change in 0..<2 {
      let (f, sessions) = try fixture()
      // A session waiting for reflection: both `list` and `list --needs-reflection` show it.
      let hidden = try #require(sessions.first { $0.status == .needsReflection }).id.hex
      let queue = try GRDBAccess.queue(f.path)
      try queue.writeWithoutTransaction { db in
        try db.execute(
          sql: """
            CREATE TABLE decoy AS SELECT id, status, revision, summary FROM session;
            CREATE INDEX decoy_list ON decoy (status, id, revision, summary);
            """)
        if change == 0 {
          try db.execute(sql: "DELETE FROM decoy WHERE id = ?", arguments: [hidden])
        } else {
          try db.execute(
            sql: "UPDATE decoy SET revision = revision + 1 WHERE id = ?", arguments: [hidden])
        }
        let root = try #require(
          try Int.fetchOne(db, sql: "SELECT rootpage FROM sqlite_schema WHERE name = 'decoy_list'"))
        try db.execute(sql: "PRAGMA writable_schema = ON")
        try db.execute(
          sql: "UPDATE sqlite_schema SET rootpage = ? WHERE name = 'session_list'",
          arguments: [root])
        try db.execute(sql: "PRAGMA writable_schema = OFF")
      }
      try queue.close()
      for status in [nil, SessionStatus.needsReflection] {
        #expect(throws: StoreError.self, "change \(change), \(String(describing: status))") {
          try listingStore(f, gather: gather).listRows(status: status, include: { _ in true })
        }
      }
    }
  }
}
