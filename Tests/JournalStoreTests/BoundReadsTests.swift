import Foundation
import GRDB
import JournalCore
import JournalCrypto
import JournalStorage
import JournalTestSupport
import Testing

@testable import JournalStore

/// Every read of many rows (`list --json`, `trends`, `export`, `search`, `verify`) hands
/// over only the rows the ledger checked: what it read is summed as it reads and compared,
/// in the same read transaction, with what the ledger's own indexes hold. So the list index
/// or the session table pointed at a decoy's pages (the schema edited in the file), with a
/// session left out or an older copy of one, is refused before anything is handed over.
struct BoundReadsTests {
  let t0 = TestClock.reference

  typealias Target = Decoy.Target

  /// Six sessions a day apart, the two newest waiting; then the fifth edited, so that an
  /// older copy of it exists (returned: its columns before the edit).
  func fixture() throws -> (StoreFixture, [Session], older: Row) {
    let f = try StoreFixture()
    var sessions: [Session] = []
    for seed in UInt8(1)...6 {
      sessions.append(
        try f.session(
          seed: seed, date: t0 + Double(seed) * 86_400, reflection: seed >= 5 ? nil : "R"))
    }
    for session in sessions { try f.store.upsert(session) }
    let queue = try GRDBAccess.queue(f.path)
    let older = try queue.read { db in
      try #require(
        try Row.fetchOne(
          db, sql: "SELECT summary, body, revision FROM session WHERE id = ?",
          arguments: [sessions[4].id.hex]))
    }
    try queue.close()
    try f.store.update(sessions[4].id) { try $0.apply(.music("LATER"), now: t0 + 5) }
    return (f, sessions, older)
  }

  /// Points `target` at a decoy in which `change` was made (`Decoy`).
  func decoy(_ path: String, of target: Target, _ change: (Database) throws -> String) throws {
    let queue = try GRDBAccess.queue(path)
    try queue.writeWithoutTransaction { db in
      let columns = try String.fetchAll(db, sql: Decoy.columnsSQL)
      try db.execute(sql: Decoy.script(of: target, columns: columns, change: try change(db)))
    }
    try queue.close()
  }

  /// A decoy's change: the newest session left out, or the fifth as it was before its edit
  /// (both waiting, both among the two newest).
  enum Change: CaseIterable { case hidden, older }

  /// The SQL of `change`, the older copy's columns written out as literals.
  func make(_ change: Change, _ db: Database, _ sessions: [Session], older: Row) throws -> String {
    switch change {
    case .hidden:
      return "DELETE FROM decoy WHERE id = '\(sessions[5].id.hex)'"
    case .older:
      let literals = try String.fetchOne(
        db, sql: "SELECT quote(?) || ', body = ' || quote(?) || ', revision = ' || quote(?)",
        arguments: [older[0], older[1], older[2]])
      return "UPDATE decoy SET summary = \(literals ?? "NULL") WHERE id = '\(sessions[4].id.hex)'"
    }
  }

  /// The reads of many rows, each calling `handed` for anything it hands over or tells.
  enum Read: CaseIterable {
    case summariesHeld, summariesInChunks, waitingSummaries, summariesAtOnce
    case wholeSessions, newestWholeSessions, search, verify

    /// Whether it reads the list index, or the table (a whole session is found in the list
    /// index, then read from the table).
    func reads(_ target: Target) -> Bool {
      switch self {
      case .summariesHeld, .summariesInChunks, .waitingSummaries, .summariesAtOnce:
        target == .listIndex
      case .wholeSessions, .newestWholeSessions: true
      case .search, .verify: target == .table
      }
    }

    func run(_ store: SessionStore, handed: @escaping () -> Void) throws {
      switch self {
      case .summariesHeld:
        _ = try store.streamSummaries(order: .newestFirst) { _ in handed() }
      case .summariesInChunks:
        store.holdAll = 1
        store.chunk = 2
        _ = try store.streamSummaries(order: .oldestFirst, begin: { _, _ in handed() }) { _ in
          handed()
        }
      case .waitingSummaries:
        _ = try store.streamSummaries(status: .needsReflection, order: .newestFirst) { _ in
          handed()
        }
      case .summariesAtOnce:
        _ = try store.summaries(status: nil)
      case .wholeSessions:
        _ = try store.streamSessions(order: .oldestFirst, begin: { _, _ in handed() }) { _ in
          handed()
        }
      case .newestWholeSessions:
        _ = try store.streamSessions(order: .oldestFirst, newest: 2) { _ in handed() }
      case .search:
        _ = try store.streamMatching(
          order: .newestFirst, include: { _ in true }, matches: { _ in true },
          transform: { $0.id }, { _ in handed() })
      case .verify:
        _ = try store.openEvery()
      }
    }
  }

  /// Refused, whichever check the store was opened with, before anything is handed over;
  /// but a read of whole sessions reads the table a session at a time as it hands them over
  /// (oldest first here): it stops at the first whose row is not the list index's (an
  /// export's file is then removed, ExportTests).
  @Test(arguments: [Target.listIndex, .table], [LedgerCheck.whole, .listing, .point])
  func aDecoyIsRefused(target: Target, check: LedgerCheck) throws {
    for change in Change.allCases {
      for read in Read.allCases where read.reads(target) {
        let (f, sessions, older) = try fixture()
        try decoy(f.path, of: target) { try make(change, $0, sessions, older: older) }
        var handedOver = false
        #expect(throws: StoreError.self, "\(target) \(change), \(read), \(check)") {
          let store = try Vault.open(at: f.path).sessions(
            keys: f.keys, random: f.random, check: check)
          try read.run(store) { handedOver = true }
        }
        if target == .listIndex || read != .wholeSessions {
          #expect(!handedOver, "\(target) \(change), \(read), \(check)")
        }
      }
    }
  }

  /// An untouched vault reads, and what another process writes between the check at
  /// opening and the read is checked in the read's own transaction, not refused.
  @Test(arguments: [LedgerCheck.whole, .listing, .point])
  func aWriteBetweenCheckAndReadIsChecked(check: LedgerCheck) throws {
    let (f, sessions, _) = try fixture()
    let store = try Vault.open(at: f.path).sessions(keys: f.keys, random: f.random, check: check)
    let other = try Vault.open(at: f.path).sessions(keys: f.keys, random: f.random)
    try other.update(sessions[3].id) { try $0.apply(.music("ELSEWHERE"), now: t0 + 9) }
    var seen: [Session] = []
    _ = try store.streamSessions(order: .oldestFirst) { seen.append($0) }
    #expect(seen.map(\.id) == sessions.map(\.id))
    #expect(seen[3].music == "ELSEWHERE")
    var summaries = 0
    _ = try store.streamSummaries(order: .newestFirst) { _ in summaries += 1 }
    #expect(summaries == sessions.count)
    #expect(try store.openEvery().intact == sessions.count)
    var found: [SessionID] = []
    _ = try store.streamMatching(
      order: .oldestFirst, include: { _ in true }, matches: { _ in true }, transform: { $0.id }
    ) { found.append($0) }
    #expect(found == sessions.map(\.id))
  }
}
