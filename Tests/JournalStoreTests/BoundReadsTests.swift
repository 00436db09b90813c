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
  /// older copy of it exists (returned: its columns before the edit). With `undone`, the
  /// fifth is then deleted and the deletion undone: a session the tree counts in the trash
  /// until the next keyed write, which every read shows all the same.
  func fixture(undone: Bool = false) throws -> (StoreFixture, [Session], older: Row) {
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
    if undone {
      _ = try f.store.trash([sessions[4].id], now: t0 + 6, purgeAfter: t0 + 86_400)
      #expect(try f.vault.undo(nil, now: t0 + 7)?.ids == [sessions[4].id])
    }
    return (f, sessions, older)
  }

  /// Deletes the session `id`'s row behind the ledger's back (SQLite alone, no key).
  func deleteBehind(_ path: String, _ id: SessionID) throws {
    let queue = try GRDBAccess.queue(path)
    try queue.write {
      try $0.execute(sql: "DELETE FROM session WHERE id = ?", arguments: [id.hex])
    }
    try queue.close()
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

  /// A decoy's change: the newest session left out, the fifth as it was before its edit, or
  /// the fifth twice (both waiting, both among the two newest).
  enum Change: CaseIterable { case hidden, older, twice }

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
    case .twice:
      return "INSERT INTO decoy SELECT * FROM decoy WHERE id = '\(sessions[4].id.hex)'"
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

  /// Refused, whichever check the store was opened with, and with the fifth session's
  /// deletion undone or not, before anything is handed over;
  /// but a read of whole sessions reads the table a session at a time as it hands them over
  /// (oldest first here): it stops at the first whose row is not the list index's (an
  /// export's file is then removed, ExportTests).
  @Test(arguments: [Target.listIndex, .table], [LedgerCheck.whole, .listing, .point])
  func aDecoyIsRefused(target: Target, check: LedgerCheck) throws {
    for (change, undone) in Change.allCases.flatMap({ change in [(change, false), (change, true)] })
    {
      for read in Read.allCases where read.reads(target) {
        let (f, sessions, older) = try fixture(undone: undone)
        try decoy(f.path, of: target) { try make(change, $0, sessions, older: older) }
        var handedOver = false
        if target == .table, change == .twice,
          read == .wholeSessions || read == .newestWholeSessions
        {
          // Found by id through the table's own index: the row the index knows, once.
          let store = try Vault.open(at: f.path).sessions(
            keys: f.keys, random: f.random, check: check)
          var seen: [SessionID] = []
          _ = try store.streamSessions(order: .oldestFirst) { seen.append($0.id) }
          #expect(seen == sessions.map(\.id), "\(change) \(undone), \(read), \(check)")
          continue
        }
        #expect(throws: StoreError.self, "\(target) \(change) \(undone), \(read), \(check)") {
          let store = try Vault.open(at: f.path).sessions(
            keys: f.keys, random: f.random, check: check)
          try read.run(store) { handedOver = true }
        }
        if target == .listIndex || read != .wholeSessions {
          #expect(!handedOver, "\(target) \(change) \(undone), \(read), \(check)")
        }
      }
    }
  }

  /// The table's own index of ids pointed at an index in which two sessions' ids are
  /// swapped: a read that finds a row by its id finds the other's, and says so (the other's
  /// columns would only fail to open under this id, as damage).
  @Test func anIdIndexThatFindsAnotherRowIsRefused() throws {
    let (f, sessions, _) = try fixture()
    let (x, y) = (sessions[1].id.hex, sessions[2].id.hex)
    let queue = try GRDBAccess.queue(f.path)
    try queue.writeWithoutTransaction { db in
      let index = try #require(
        try String.fetchOne(
          db,
          sql:
            "SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'session' AND sql IS NULL"
        ))
      try db.execute(
        sql: """
          CREATE TABLE swapped (id TEXT);
          INSERT INTO swapped (rowid, id) SELECT rowid,
            CASE id WHEN '\(x)' THEN '\(y)' WHEN '\(y)' THEN '\(x)' ELSE id END FROM session;
          CREATE INDEX swapped_id ON swapped (id);
          PRAGMA writable_schema = ON;
          UPDATE sqlite_schema SET rootpage =
            (SELECT rootpage FROM sqlite_schema WHERE name = 'swapped_id') WHERE name = '\(index)';
          PRAGMA writable_schema = OFF;
          """)
    }
    try queue.close()
    for read in [Read.wholeSessions, .search] {
      #expect(throws: StoreError.tampered(.rows), "\(read)") {
        try read.run(try Vault.open(at: f.path).sessions(keys: f.keys, random: f.random)) {}
      }
    }
  }

  /// The ledger row removed, or set back to an earlier construction, after the check at
  /// opening: a read does not take the vault for one that has no tree to bind it to.
  @Test func aLedgerLostAfterTheCheckIsRefused() throws {
    for change in ["DELETE FROM ledger", "UPDATE ledger SET construction = 2"] {
      let (f, _, _) = try fixture()
      let store = try Vault.open(at: f.path).sessions(keys: f.keys, random: f.random)
      let queue = try GRDBAccess.queue(f.path)
      try queue.write { try $0.execute(sql: change) }
      try queue.close()
      for read in Read.allCases where read != .summariesAtOnce {
        #expect(throws: StoreError.self, "\(change), \(read)") { try read.run(store) {} }
      }
    }
  }

  /// A session whose deletion was undone (counted in the trash by the tree until the next
  /// keyed write) is read by every read like the others, whichever check the store opened
  /// with, and is not taken for tampering.
  @Test(arguments: [LedgerCheck.whole, .listing, .point])
  func anUndoneDeletionReads(check: LedgerCheck) throws {
    let (f, sessions, _) = try fixture(undone: true)
    for read in Read.allCases {
      let store = try Vault.open(at: f.path).sessions(keys: f.keys, random: f.random, check: check)
      var handed = 0
      try read.run(store) { handed += 1 }
      #expect(handed > 0 || read == .summariesAtOnce || read == .verify, "\(read)")
    }
    let store = try Vault.open(at: f.path).sessions(keys: f.keys, random: f.random, check: check)
    #expect(try store.summaries().sessions.count == sessions.count)
    #expect(try store.openEvery().intact == sessions.count)
  }

  /// A deletion undone (by another process, without the key) after the store checked the
  /// vault: the stamp is the same, the sessions are not; the read checks again, and shows
  /// the restored session.
  @Test(arguments: [LedgerCheck.whole, .listing, .point])
  func anUndoAfterTheCheckIsCheckedAgain(check: LedgerCheck) throws {
    let (f, sessions, _) = try fixture()
    _ = try f.store.trash([sessions[4].id], now: t0 + 6, purgeAfter: t0 + 86_400)
    for read in Read.allCases {
      let store = try Vault.open(at: f.path).sessions(keys: f.keys, random: f.random, check: check)
      if check == .whole { #expect(try store.summaries().sessions.count == sessions.count - 1) }
      _ = try Vault.open(at: f.path).undo(nil, now: t0 + 7)
      var handed = 0
      try read.run(store) { handed += 1 }
      #expect(handed > 0 || read == .summariesAtOnce || read == .verify, "\(read)")
      if read == .summariesHeld {
        #expect(try store.summaries().sessions.count == sessions.count)
      }
      // Back in the trash for the next read.
      _ = try f.store.trash([sessions[4].id], now: t0 + 8, purgeAfter: t0 + 86_400)
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

/// A whole check kept from an earlier command (`SessionStore.wholeCheck`, kept by the app in
/// its runtime directory): a listing of one status at the same stamp checks the root and binds
/// the rows it reads to the kept sums instead of checking the whole vault, and refuses every
/// decoy of those rows all the same.
struct KeptCheckTests {
  let bound = BoundReadsTests()

  func check(_ f: StoreFixture) throws -> WholeCheck {
    let store = try Vault.open(at: f.path).sessions(keys: f.keys, random: f.random, check: .listing)
    _ = try store.summaries()
    return try #require(store.wholeCheck)
  }

  func listing(_ f: StoreFixture, kept: WholeCheck?) throws -> SessionStore {
    let store = try Vault.open(at: f.path).sessions(keys: f.keys, random: f.random, check: .listing)
    if let kept { store.remember(kept) }
    return store
  }

  /// A complete session's row removed behind the ledger's back: a listing of the waiting
  /// sessions bound to the kept check shows them (it reads only those), and the store's next
  /// read of every row refuses the vault; without the kept check the listing refuses it.
  @Test func aWaitingListingReadsOnlyWhatItShows() throws {
    let (f, sessions, _) = try bound.fixture()
    let kept = try check(f)
    try bound.deleteBehind(f.path, sessions[0].id)
    let store = try listing(f, kept: kept)
    let waiting = try store.summaries(status: .needsReflection).sessions.map(\.id)
    #expect(waiting == [sessions[5].id, sessions[4].id])
    #expect(throws: StoreError.self) { try store.summaries() }
    #expect(throws: StoreError.self) {
      try listing(f, kept: nil).summaries(status: .needsReflection)
    }
  }

  /// The list index pointed at a decoy of the waiting sessions (one left out, an older copy,
  /// one twice), with a deletion undone or not: refused, the kept check notwithstanding.
  @Test func aDecoyIsRefused() throws {
    for change in BoundReadsTests.Change.allCases {
      for undone in [false, true] {
        let (f, sessions, older) = try bound.fixture(undone: undone)
        let kept = try check(f)
        try bound.decoy(f.path, of: .listIndex) {
          try bound.make(change, $0, sessions, older: older)
        }
        #expect(throws: StoreError.self, "\(change) \(undone)") {
          try listing(f, kept: kept).summaries(status: .needsReflection)
        }
      }
    }
  }

  /// A kept check that is not the vault's now (written since, an undo since, or sums that do
  /// not agree) is not used: the listing checks the whole vault, shows every waiting session,
  /// and makes a check of its own to keep.
  @Test func aKeptCheckOfAnotherStateIsNotUsed() throws {
    let (f, sessions, _) = try bound.fixture()
    let kept = try check(f)
    let waiting = [sessions[5].id, sessions[4].id]

    let wrong = WholeCheck(
      generation: kept.generation, tag: kept.tag, undone: kept.undone,
      complete: kept.complete, waiting: kept.complete)
    let store = try listing(f, kept: wrong)
    #expect(try store.summaries(status: .needsReflection).sessions.map(\.id) == waiting)
    #expect(store.wholeCheck == kept)

    _ = try f.store.trash([sessions[4].id], now: t0 + 6, purgeAfter: t0 + 86_400)
    let afterTrash = try check(f)
    _ = try Vault.open(at: f.path).undo(nil, now: t0 + 7)
    let undone = try listing(f, kept: afterTrash)
    #expect(try undone.summaries(status: .needsReflection).sessions.map(\.id) == waiting)
    #expect(undone.wholeCheck?.undone == [sessions[4].id])

    try f.store.update(sessions[3].id) { try $0.apply(.music("LATER"), now: t0 + 9) }
    let written = try listing(f, kept: kept)
    #expect(try written.summaries(status: .needsReflection).sessions.map(\.id) == waiting)
    #expect(written.wholeCheck.map { $0.generation > kept.generation } == true)
  }

  /// A listing of every session keeps the newest with their revisions; `list -n` of a store
  /// opened for listing reads just those, at those revisions, and shows what the check saw.
  @Test func theNewestAreReadFromTheKeptCheck() throws {
    let (f, sessions, _) = try bound.fixture()
    let first = try listing(f, kept: nil)
    _ = try first.listRows(include: { _ in true })
    let kept = try #require(first.wholeCheck)
    let newest = sessions.reversed().map(\.id)
    #expect(kept.newest.map(\.id) == newest)
    #expect(kept.newest[1].revision > kept.newest[0].revision)

    let store = try listing(f, kept: kept)
    #expect(try store.keptNewest(3)?.rows.map(\.id) == Array(newest.prefix(3)))
    // All of them when asked for more than there are, and nil when fewer are kept than asked.
    #expect(try listing(f, kept: kept).keptNewest(10)?.rows.count == sessions.count)
    var fewer = kept
    fewer.newest = Array(kept.newest.prefix(2))
    #expect(try listing(f, kept: fewer).keptNewest(3) == nil)

    // The oldest session removed behind the ledger's back: not among those shown.
    try bound.deleteBehind(f.path, sessions[0].id)
    let bound = try listing(f, kept: kept)
    #expect(try bound.keptNewest(2)?.rows.map(\.id) == Array(newest.prefix(2)))
    #expect(throws: StoreError.self) { try bound.listRows(include: { _ in true }) }
  }

  /// Only a listing of every session the check covers names the newest: not one a filter
  /// narrowed (whatever it left out), nor one with a deletion undone since the stamp (the
  /// check leaves it out of its entries), nor `summaries`.
  @Test func onlyAListingOfEverySessionNamesTheNewest() throws {
    let (f, sessions, _) = try bound.fixture()
    let filtered = try listing(f, kept: nil)
    _ = try filtered.listRows(include: { $0.status == .complete })
    #expect(try #require(filtered.wholeCheck).newest.isEmpty)
    // As many left out by the filter as there are undone sessions: still none named.
    _ = try f.store.trash([sessions[0].id], now: t0 + 6, purgeAfter: t0 + 86_400)
    #expect(try f.vault.undo(nil, now: t0 + 7)?.ids == [sessions[0].id])
    let undone = try listing(f, kept: nil)
    _ = try undone.listRows(include: { $0.id != sessions[5].id })
    #expect(try #require(undone.wholeCheck).newest.isEmpty)
    let every = try listing(f, kept: nil)
    _ = try every.listRows(include: { _ in true })
    #expect(try #require(every.wholeCheck).newest.isEmpty)
    let summaries = try listing(f, kept: nil)
    _ = try summaries.summaries()
    #expect(try #require(summaries.wholeCheck).newest.isEmpty)
  }

  /// A newest session put back as it was before its edit, or its summary put back under its
  /// new revision, a write since, or an undo since: the kept newest do not serve, and the
  /// listing that follows checks the whole vault (and names the summary as damaged).
  @Test func theKeptNewestServeOnlyTheStateTheyName() throws {
    for change in ["older", "revision", "write", "undo"] {
      let (f, sessions, older) = try bound.fixture()
      if change == "undo" {
        _ = try f.store.trash([sessions[2].id], now: t0 + 6, purgeAfter: t0 + 86_400)
      }
      let first = try listing(f, kept: nil)
      _ = try first.listRows(include: { _ in true })
      let kept = try #require(first.wholeCheck)
      let queue = try GRDBAccess.queue(f.path)
      switch change {
      case "older":
        try queue.write {
          try $0.execute(
            sql: "UPDATE session SET summary = ?, body = ?, revision = ? WHERE id = ?",
            arguments: [older[0], older[1], older[2], sessions[4].id.hex])
        }
      case "revision":
        try queue.write {
          try $0.execute(
            sql: "UPDATE session SET summary = ? WHERE id = ?",
            arguments: [older[0], sessions[4].id.hex])
        }
      case "write":
        try f.store.update(sessions[5].id) { try $0.apply(.music("AGAIN"), now: t0 + 9) }
      default:
        #expect(try f.vault.undo(nil, now: t0 + 7)?.ids == [sessions[2].id])
      }
      try queue.close()
      let store = try listing(f, kept: kept)
      #expect(try store.keptNewest(3) == nil, "\(change)")
      if change == "older" {
        #expect(throws: StoreError.self, "\(change)") {
          try store.listRows(include: { _ in true })
        }
      } else if change == "revision" {
        // Its summary does not open at the revision its row gives: damaged, and named.
        #expect(try store.listRows(include: { _ in true }).damaged == [sessions[4].id])
      } else {
        #expect(try store.listRows(include: { _ in true }).rows.rows.count == sessions.count)
      }
    }
  }

  let t0 = TestClock.reference
}

/// A keyed write about a few sessions, at the stamp of a kept whole check, carries the check
/// to its own stamp (`SessionStore.carry`): the sums and the newest are what a whole check
/// made afresh after the write finds, so the next `list -n` or `list --needs-reflection`
/// checks the root instead of every session, and a row changed behind the ledger's back is
/// still refused by the read that meets it.
struct CarriedCheckTests {
  let bound = BoundReadsTests()
  let kept = KeptCheckTests()
  let t0 = TestClock.reference

  /// A store of point checks (a command about one session) handed `check` at its first write.
  func pointStore(_ f: StoreFixture, _ check: WholeCheck?) throws -> SessionStore {
    let store = try Vault.open(at: f.path).sessions(keys: f.keys, random: f.random, check: .point)
    store.rememberAtFirstWrite { check }
    return store
  }

  /// The whole check a `list` of every session makes now.
  func fresh(_ f: StoreFixture) throws -> WholeCheck {
    let store = try kept.listing(f, kept: nil)
    _ = try store.listRows(include: { _ in true })
    return try #require(store.wholeCheck)
  }

  /// After each kind of write: the carried check is the fresh one, newest and all.
  @Test func aWriteCarriesTheCheckAFreshOneWouldMake() throws {
    let (f, sessions, _) = try bound.fixture()
    var check = try fresh(f)
    let writes: [(String, (SessionStore) throws -> Void)] = [
      ("new, the newest", { try $0.upsert(try f.session(seed: 7, date: self.t0 + 30 * 86_400)) }),
      ("new, the oldest", { try $0.upsert(try f.session(seed: 8, date: self.t0 - 86_400)) }),
      (
        "edit",
        { try $0.update(sessions[2].id) { try $0.apply(.music("AGAIN"), now: self.t0 + 9) } }
      ),
      (
        "reflect",
        { try $0.update(sessions[5].id) { try $0.apply(.reflection("R"), now: self.t0 + 9) } }
      ),
      (
        "date moved to the front",
        {
          try $0.update(sessions[0].id) {
            try $0.apply(.date(self.t0 + 40 * 86_400), now: self.t0 + 9)
          }
        }
      ),
      (
        "delete", { _ = try $0.trash([sessions[3].id], now: self.t0 + 9, purgeAfter: self.t0 + 99) }
      ),
    ]
    for (name, write) in writes {
      let store = try pointStore(f, check)
      try write(store)
      let carried = try #require(store.wholeCheck, "\(name)")
      #expect(carried.generation == store.checked?.generation, "\(name)")
      let made = try fresh(f)
      #expect(carried == made, "\(name)")
      #expect(carried.newest.count == made.newest.count && !made.newest.isEmpty, "\(name)")
      check = carried
      // The next `list -n` reads the carried newest only, and shows the vault's newest.
      let listing = try kept.listing(f, kept: carried)
      #expect(try listing.keptNewest(3)?.rows.map(\.id) == made.newest.prefix(3).map(\.id))
    }
  }

  /// A store that checked the whole vault at opening (its own check names no newest) takes
  /// the newest from the kept check of the same sums.
  @Test func aStoreCheckedWholeCarriesTheKeptNewest() throws {
    let (f, sessions, _) = try bound.fixture()
    let check = try fresh(f)
    let store = try Vault.open(at: f.path).sessions(keys: f.keys, random: f.random)
    store.rememberAtFirstWrite { check }
    try store.update(sessions[2].id) { try $0.apply(.music("AGAIN"), now: t0 + 9) }
    #expect(try #require(store.wholeCheck) == (try fresh(f)))
  }

  /// Newest that name only the first few: a session goes among them only ahead of the last
  /// (a session older than the last may have others between); one moved behind it leaves.
  @Test func aFewNewestStayTheNewest() throws {
    let (f, sessions, _) = try bound.fixture()
    var check = try fresh(f)
    check.newest = Array(check.newest.prefix(3))
    var store = try pointStore(f, check)
    try store.upsert(try f.session(seed: 7, date: t0 + 2.5 * 86_400))
    var carried = try #require(store.wholeCheck)
    #expect(carried.newest.map(\.id) == check.newest.map(\.id))
    store = try pointStore(f, carried)
    try store.update(sessions[5].id) { try $0.apply(.date(t0 - 9 * 86_400), now: t0 + 9) }
    carried = try #require(store.wholeCheck)
    #expect(carried.newest.map(\.id) == [sessions[4].id, sessions[3].id])
    store = try pointStore(f, carried)
    try store.upsert(try f.session(seed: 9, date: t0 + 4.5 * 86_400))
    carried = try #require(store.wholeCheck)
    let made = try fresh(f)
    #expect(carried.newest == Array(made.newest.prefix(3)))
    #expect(carried.sameState(as: made))
  }

  /// Nothing is carried from a check of another stamp, with an undo's restored session in
  /// play, or through a write of more than `carriedAtMost` sessions.
  @Test func onlyAKeptCheckOfTheWritesStampIsCarried() throws {
    let (f, sessions, _) = try bound.fixture()
    let check = try fresh(f)
    try f.store.update(sessions[1].id) { try $0.apply(.music("ELSEWHERE"), now: t0 + 9) }
    var store = try pointStore(f, check)
    try store.update(sessions[2].id) { try $0.apply(.music("AGAIN"), now: t0 + 9) }
    #expect(store.wholeCheck == nil)

    _ = try f.store.trash([sessions[3].id], now: t0 + 9, purgeAfter: t0 + 99)
    #expect(try f.vault.undo(nil, now: t0 + 10)?.ids == [sessions[3].id])
    let undone = try fresh(f)
    store = try pointStore(f, undone)
    try store.update(sessions[2].id) { try $0.apply(.music("THIRD"), now: t0 + 11) }
    #expect(store.wholeCheck.map { $0.generation == store.checked?.generation } != true)

    let ids = (0..<(SessionStore.carriedAtMost + 1)).map {
      SessionID(randomBytes: [UInt8($0)] + Array(repeating: 20, count: 15))
    }
    for id in ids { try f.store.upsert(try f.session(seed: 20, id: id)) }
    let many = try fresh(f)
    store = try pointStore(f, many)
    _ = try store.trash(ids, now: t0 + 12, purgeAfter: t0 + 99)
    #expect(store.wholeCheck.map { $0.generation == store.checked?.generation } != true)
    #expect(try fresh(f).newest.count == sessions.count)
    // As many as `carriedAtMost`: carried.
    let most = ids.dropLast().map { SessionID(randomBytes: Array($0.bytes.prefix(15)) + [21]) }
    for id in most { try f.store.upsert(try f.session(seed: 21, id: id)) }
    let before = try fresh(f)
    store = try pointStore(f, before)
    _ = try store.trash(most, now: t0 + 13, purgeAfter: t0 + 99)
    let carried = try #require(store.wholeCheck)
    #expect(carried.generation == store.checked?.generation)
    #expect(carried == (try fresh(f)) && !carried.sameState(as: before))
  }

  /// A waiting row removed behind the ledger's back before a write elsewhere: the carried
  /// check still counts it, so the next waiting listing bound to it is refused.
  @Test func aRowChangedBehindTheWriteIsStillRefused() throws {
    let (f, sessions, _) = try bound.fixture()
    let check = try fresh(f)
    try bound.deleteBehind(f.path, sessions[5].id)
    let store = try pointStore(f, check)
    try store.update(sessions[1].id) { try $0.apply(.music("AGAIN"), now: t0 + 9) }
    let carried = try #require(store.wholeCheck)
    #expect(carried.generation == store.checked?.generation)
    #expect(throws: StoreError.self) {
      try kept.listing(f, kept: carried).summaries(status: .needsReflection)
    }
    #expect(try kept.listing(f, kept: carried).keptNewest(1) == nil)
  }
}
