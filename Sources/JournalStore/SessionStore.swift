import Dispatch
import Foundation
import GRDB
import GRDBSQLite
import JournalCore
import JournalCrypto
import JournalStorage
import Synchronization

/// The sessions of an unlocked vault.
public final class SessionStore {
  let vault: Vault
  let cipher: RecordCipher
  /// Fingerprints field values for sync (SyncRows).
  let fingerprintKey: SecureBytes
  private let ledger: Ledger
  /// Whether the ledger is still to be checked, by the first `summaries` (a store opened for
  /// `list`).
  var checkWhenListing = false
  /// Whether this store checks only what it reads and writes (a store opened for a command
  /// about one session, `LedgerCheck.point`): the root at opening, then each session's leaf
  /// as it is read, and at each write the leaves it touched. The first read of many rows
  /// checks the whole vault and ends it.
  var pointChecks = false
  /// The leaves checked at `checked` (point checks).
  private(set) var checkedLeaves: Set<Int> = []
  /// How many sessions a sync has read by their leaves (point checks; `syncLeavesAtMost`).
  var syncLeavesRead = 0
  /// The one guarded hash state `fingerprint` restarts for every field (under its lock).
  var fingerprintHash: KeyedHash?
  let fingerprintLock = NSLock()
  /// The ledger stamp this store last checked or wrote: a write that finds it unchanged need
  /// not check the whole vault again. Nil for a vault not yet protected (read-only).
  public private(set) var checked: LedgerStamp?
  /// Called with the new stamp after every keyed write (to keep this computer's record).
  public var onStamp: ((LedgerStamp) -> Void)?
  /// How many keyed writes this store made (a write starts a background sync, when on).
  public private(set) var writes = 0
  /// The openers `summaries` spreads its rows over, made on first use.
  private var openers: [RecordCipher.Opener]?
  /// The key of the sums of session entries (`ListedEntries`): derived from the ledger's key
  /// at first use, never stored, so that whoever wrote the rows without the passphrase cannot
  /// have made two sets that sum alike, and a whole check kept between commands
  /// (`WholeCheck`) sums as this store does. Nil when it could not be derived: then a key
  /// drawn for this store, and nothing kept is used.
  private lazy var entryKey: [UInt8] = derivedEntryKey ?? random.bytes(MultisetSum.keyBytes)
  private lazy var derivedEntryKey: [UInt8]? = try? Self.entryKey(ledger.key)

  static func entryKey(_ ledgerKey: SecureBytes) throws -> [UInt8] {
    let hash = try KeyedHash(key: ledgerKey)
    hash.update(Array("JRNLSUMS entry key".utf8))
    return Array(hash.finish().prefix(MultisetSum.keyBytes))
  }

  /// Whether the listing under way (`listRows` of every status) wants the entries it checks
  /// kept, to name the newest from; and those entries (`listed`'s gathering pass, with no
  /// session restored by an undo since the stamp), until it has.
  private var gathering = false
  private var gathered: [UInt8]?
  /// The last whole check of this vault another command made (`remember`), for a listing of
  /// one status to bind its rows to, at the same stamp, instead of checking the whole vault,
  /// and for a keyed write at that stamp to carry to its own (`carry`).
  private var remembered: LedgerEntries?
  /// Where a store that did not list reads the kept check from, at its first keyed write
  /// (`rememberAtFirstWrite`): a command that writes nothing does not read it.
  private var keptAtFirstWrite: (() -> WholeCheck?)?
  /// The ledger's session entries as the last whole check of this store summed them from
  /// the ledger's own indexes, with the stamp it checked and the sessions an undo had
  /// restored then (`bind`): an undo needs no key and leaves the stamp as it was.
  private var ledgerEntries: LedgerEntries?
  private struct LedgerEntries {
    let stamp: LedgerStamp
    let entries: ListedEntries
    let undone: Set<SessionID>
    /// Handed over from an earlier command (`remember`), not made by this store.
    var kept = false
    /// The newest sessions (`WholeCheck.newest`), when the check was a listing of every one.
    var newest: [WholeCheck.Newest] = []

    /// In the read transaction of the check that summed `entries`.
    init(_ stamp: LedgerStamp, _ entries: ListedEntries, _ db: Database) throws {
      self.stamp = stamp
      self.entries = entries
      undone = try Ledger.View.readSkips(db).undone
    }

    init(
      _ stamp: LedgerStamp, _ entries: ListedEntries, undone: Set<SessionID>, kept: Bool = false
    ) {
      self.stamp = stamp
      self.entries = entries
      self.undone = undone
      self.kept = kept
    }
  }

  /// Where new ids come from (a session kept apart from the one whose id it claimed).
  let random: any RandomSource

  init(
    vault: Vault, cipher: RecordCipher, ledger: Ledger, fingerprintKey: SecureBytes,
    random: any RandomSource
  ) {
    self.vault = vault
    self.cipher = cipher
    self.fingerprintKey = fingerprintKey
    self.ledger = ledger
    self.random = random
  }

  /// The last whole check this store made (or was handed, `remember`), to keep for the next
  /// command; nil when it made none or its sums' key could not be derived.
  public var wholeCheck: WholeCheck? {
    guard derivedEntryKey != nil, let known = ledgerEntries, known.stamp.construction >= 3
    else { return nil }
    return WholeCheck(
      generation: known.stamp.generation, tag: known.stamp.tag,
      undone: known.undone.sorted(), complete: known.entries.complete.bytes,
      waiting: known.entries.waiting.bytes, newest: known.newest)
  }

  /// Hands this store a whole check an earlier command made (`wholeCheck`, kept under the
  /// ledger's key by the caller): a listing of one status at its stamp, with the same
  /// sessions restored by an undo, checks the tree's root and binds the rows it reads to these
  /// sums, rather than reading every entry of the vault (`listed`).
  public func remember(_ check: WholeCheck) {
    guard let key = derivedEntryKey,
      let complete = MultisetSum(key: key, bytes: check.complete),
      let waiting = MultisetSum(key: key, bytes: check.waiting)
    else { return }
    var entries = ListedEntries(status: nil, key: key)
    entries.complete = complete
    entries.waiting = waiting
    remembered = LedgerEntries(
      LedgerStamp(generation: check.generation, tag: check.tag), entries,
      undone: Set(check.undone), kept: true)
    remembered?.newest = Array(check.newest.prefix(WholeCheck.newestAtMost))
  }

  /// Hands this store, at its first keyed write, the whole check `kept` reads then (a store
  /// opened for a command about one session): the write carries it to its own stamp.
  public func rememberAtFirstWrite(_ kept: @escaping () -> WholeCheck?) {
    keptAtFirstWrite = kept
  }

  /// The `count` newest sessions' list rows (all, when the vault has fewer), from the newest
  /// a kept whole check names (`remember`), for `list -n` of a store opened for listing: the
  /// root checked as a command about one session checks it, then each of those sessions read
  /// by its id and opened at the revision the check saw (its column keys are bound to it), so
  /// what is shown is what the check saw, and nothing else is read. Nil, having read nothing
  /// it shows, when they cannot serve: no such check kept, the stamp or the sessions an undo
  /// restored changed since, fewer kept than asked, or any of them not as the check saw it;
  /// the caller then lists the ordinary way, which checks the whole vault.
  public func keptNewest(_ count: Int) throws -> ListRows? {
    guard checkWhenListing, count > 0, let remembered, !remembered.newest.isEmpty,
      count <= remembered.newest.count
        || remembered.newest.count == remembered.entries.complete.count
          &+ remembered.entries.waiting.count
    else { return nil }
    guard try verifyRootIfTree(), checked == remembered.stamp else { return nil }
    let opener = try cipher.makeOpener()
    let names = TreatmentNames()
    let rows = try read { db -> [ListRow]? in
      guard try Ledger.stamp(db) == remembered.stamp,
        try Ledger.View.readSkips(db).undone == remembered.undone
      else { return nil }
      let statement = try db.cachedStatement(
        sql: "SELECT revision, status, summary FROM session WHERE id = ?")
      var rows: [ListRow] = []
      for kept in remembered.newest.prefix(count) {
        try statement.setArguments([kept.id.hex])
        let handle = statement.sqliteStatement
        defer { sqlite3_reset(handle) }
        guard try Self.step(handle, statement, db),
          sqlite3_column_int64(handle, 0) == kept.revision,
          let status = RecordCodec.status(named: Self.text(handle, 1)),
          let summary = try? Self.openSummary(
            opener, id: kept.id, revision: kept.revision, stored: status,
            sealed: Self.blob(handle, 2)),
          // Where the check saw it: a copy of the vault at the same stamp may date it
          // otherwise (the order would not be the check's).
          summary.date == kept.date
        else { return nil }
        rows.append(ListRow(summary, treatment: names.index(of: summary.treatment)))
      }
      return rows
    }
    guard let rows else { return nil }
    // Checked by points from here on, as after a listing of one status bound to the check.
    checkWhenListing = false
    pointChecks = true
    return ListRows(rows: rows, treatments: names.all)
  }

  /// The id an import keeps a marked copy apart under, made from the id it claimed: the
  /// same each time the same file is imported.
  static func keptApartID(claimed: SessionID) -> SessionID {
    SessionID(
      randomBytes: Array(
        KeyedHash.unkeyed(Array("journal kept apart".utf8) + claimed.bytes).prefix(16)))
  }

  /// An id no session has, had or holds in the trash.
  func freshID(_ db: Database) throws -> SessionID {
    var id = SessionID(randomBytes: random.bytes(16))
    while try Self.idTaken(id, db) { id = SessionID(randomBytes: random.bytes(16)) }
    return id
  }

  /// Checks the vault against its ledger; the first time a vault is opened with its key
  /// since it gained a ledger, seals its rows again at revision 1 and writes the first tag.
  /// What does not add up is refused, unless `accept` (asked with what was found) says to
  /// trust the vault as it is: then its rows are brought into agreement and stamped anew.
  func checkLedger(accept: ((StoreError) throws -> Bool)? = nil) throws {
    do {
      try verifyOrProtect()
    } catch let error as StoreError {
      let named = (try? read { db in Ledger.explain(error, db) }) ?? error
      guard case .tampered = named, let accept, try accept(named) else { throw named }
      checked = try vault.write { db in
        try MalformedRows.apply(try MalformedRows.find(db, cipher: cipher), db)
        try Ledger.repair(db)
        // The sync server's address was named when it was asked about: trusted from now on.
        if let server = try String.fetchOne(db, sql: "SELECT server FROM sync") {
          try db.execute(
            sql: "UPDATE sync SET server_tag = ?",
            arguments: [Data(try Self.serverTag(server, key: fingerprintKey))])
        }
        let stamp = try? Ledger.stamp(db)
        return try ledger.commit(db, after: stamp ?? nil)
      }
    }
  }

  /// Checks the vault as it is now against its ledger (one read transaction, so another
  /// process's write cannot fall between the stamp and the rows); the stamp checked.
  @discardableResult
  public func recheck() throws -> LedgerStamp? {
    try verifyOrProtect()
    return checked
  }

  /// Stamps the vault as it is (checked first) one generation past `generation`, or past its
  /// own if that is later: after `verify --accept`, so that no witness of a later state takes
  /// the trusted vault for an older one.
  public func restamp(after generation: UInt64) throws -> LedgerStamp {
    let stamp = try vault.write { db in
      let current = try Ledger.stamp(db)
      if let current { try ledger.verify(db, against: current) }
      let floor = max(current?.generation ?? 0, generation)
      return try ledger.commit(db, after: LedgerStamp(generation: floor, tag: current?.tag ?? []))
    }
    checked = stamp
    return stamp
  }

  private func verifyOrProtect() throws {
    if pointChecks, try verifyRootIfTree() { return }
    let stamp = try read { db -> LedgerStamp? in
      do {
        guard let stamp = try Ledger.stamp(db) else {
          // Rows sealed at a revision were written under a ledger: it has been removed.
          if try Ledger.hasRevisions(db) { throw StoreError.tampered(.ledger) }
          return nil
        }
        var entries: ListedEntries? = ListedEntries(status: nil, key: entryKey)
        let checked = try ledger.verify(db, against: stamp, entries: &entries)
        ledgerEntries = try entries.map { try LedgerEntries(checked, $0, db) }
        return checked
      } catch let error as StoreError {
        throw Ledger.explain(error, db)
      }
    }
    if let stamp {
      checked = stamp
      // A ledger of an earlier format is made again in today's at the first keyed opening
      // that can write (the marks moved into the summaries with it).
      if stamp.construction < Ledger.construction, vault.readOnly == nil { try upgrade() }
      return
    }
    // A vault that cannot be written stays as it is until it can.
    guard vault.readOnly == nil else { return }
    try protect()
  }

  /// The point check at opening (a tree ledger): true when made; false when the vault has no
  /// tree yet (its first keyed opening makes one, after the whole check).
  private func verifyRootIfTree() throws -> Bool {
    let stamp = try read { db -> LedgerStamp? in
      guard let stamp = try Ledger.stamp(db), stamp.construction >= 3 else { return nil }
      do {
        _ = try ledger.verifyRoot(db, against: stamp)
      } catch let error as StoreError {
        throw Ledger.explain(error, db)
      }
      return stamp
    }
    guard let stamp else {
      pointChecks = false
      return false
    }
    checked = stamp
    checkedLeaves = []
    return true
  }

  /// In a read of `db`: checks the leaves of `ids` (point checks), each once per stamp.
  func checkLeaves(of ids: [SessionID], _ db: Database) throws {
    try checkLeaves(Set(ids.map(LedgerTree.leaf(of:))), db)
  }

  private func checkLeaves(_ leaves: Set<Int>, _ db: Database) throws {
    guard let stamp = try Ledger.stamp(db) else { throw StoreError.tampered(.ledger) }
    do {
      var view: Ledger.View?
      if stamp != checked || stamp.construction < 3 {
        guard stamp.construction >= 3 else { throw StoreError.tampered(.ledger) }
        view = try ledger.verifyRoot(db, against: stamp)
        checked = stamp
        checkedLeaves = []
      }
      let wanted = leaves.subtracting(checkedLeaves)
      guard !wanted.isEmpty else { return }
      try ledger.verifyLeaves(wanted, db, view: try view ?? Ledger.View.readSkips(db))
      checkedLeaves.formUnion(wanted)
    } catch let error as StoreError {
      throw Ledger.explain(error, db)
    }
  }

  /// Format 11, at the first keyed opening after the migration: every session marked as
  /// written without the passphrase is written again, its marks now in its summary (where
  /// `list` reads them), and the ledger is stamped in today's construction, which covers the
  /// vault's settings. One keyed write; it reads each session once, once.
  private func upgrade() throws {
    let construction = checked?.construction ?? Ledger.construction
    try write(bulk: true) { db in
      // From construction 2 on, the marks are in the summaries already: only the tree is made.
      guard construction < 2 else { return }
      let ids = try String.fetchAll(db, sql: "SELECT id FROM session ORDER BY id")
      for text in ids {
        guard let id = SessionID(text), let session = try? fetch(id, db),
          session.addedSealed != nil || session.laterSealed != nil
        else { continue }
        try put(session, db)
      }
    }
  }

  /// Seals every row again at revision 1 and writes the ledger's first tag, in one
  /// transaction. A row that does not open stays as it is, at revision 0, and is still
  /// reported as damaged when read.
  private func protect() throws {
    checked = try vault.write { db in
      // Another process may have done it meanwhile.
      if let stamp = try Ledger.stamp(db) { return try ledger.verify(db, against: stamp) }
      let waiting = ["session": "1", "trash": "outcome IS NULL"]
      for (table, condition) in waiting {
        let rows = try Row.fetchAll(
          db, sql: "SELECT id, summary, body FROM \(table) WHERE revision = 0 AND \(condition)")
        for row in rows {
          guard let text = try? row.decode(String.self, atIndex: 0), let id = SessionID(text),
            let summary = try? row.decode(Data.self, atIndex: 1),
            let body = try? row.decode(Data.self, atIndex: 2),
            let resealed = try? reseal(summary: summary, body: body, id: id)
          else { continue }
          try db.execute(
            sql: "UPDATE \(table) SET summary = ?, body = ?, revision = 1 WHERE id = ?",
            arguments: [resealed.summary, resealed.body, text])
        }
      }
      return try ledger.commit(db, after: nil)
    }
  }

  /// The two columns of a revision-0 row sealed again at revision 1, unchanged within.
  private func reseal(summary: Data, body: Data, id: SessionID) throws -> SealedRow {
    func again(_ sealed: Data, _ column: RecordCipher.Column) throws -> Data {
      var plain = try cipher.open(Array(sealed), id: id.bytes, column: column) { Array($0) }
      defer { wipe(&plain) }
      return Data(try cipher.seal(plain, id: id.bytes, column: column, revision: 1))
    }
    return SealedRow(summary: try again(summary, .summary), body: try again(body, .body))
  }

  /// Writes `session` under its id: a new row, or the row with that id replaced. Saving a
  /// draft twice (a retry after a crash) therefore still leaves one session.
  public func upsert(_ session: Session) throws {
    try write { db in try self.put(session, db) }
  }

  /// Writes a session's row: a new one, or the one with its id replaced.
  static let upsertSQL = """
    INSERT INTO session (id, status, summary, body, revision) VALUES (?, ?, ?, ?, ?)
    ON CONFLICT (id) DO UPDATE SET status = excluded.status,
      summary = excluded.summary, body = excluded.body, revision = excluded.revision
    """

  /// Inserts or replaces a session's row one revision on, and clears its reminder once it is
  /// complete.
  func put(_ session: Session, _ db: Database) throws {
    let current = try Self.revision(of: session.id, db)
    // A revision out of range was planted: that row is damaged, never counted on from.
    if let current, !StoredRange.isCounter(current) {
      throw StoreError.damagedRecord(id: session.id.short)
    }
    let revision = UInt64(max(current ?? 0, 0)) + 1
    let row = try seal(session, revision: revision)
    // Cached statements: an import writes every session, and preparing each statement anew
    // (parsing, GRDB's authorizer) was a tenth of it.
    try db.cachedStatement(sql: Self.upsertSQL).execute(arguments: [
      session.id.hex, session.status.stored.rawValue, row.summary, row.body, Int64(revision),
    ])
    try Self.clearReminderIfComplete(session, db)
  }

  /// Replaces a trashed session's columns one revision on (a change from another device
  /// while its undo window is open); its new revision.
  func putTrashed(_ session: Session, _ db: Database) throws -> Int64 {
    let current = try Int64.fetchOne(
      db, sql: "SELECT revision FROM trash WHERE id = ? AND outcome IS NULL",
      arguments: [session.id.hex])
    if let current, !StoredRange.isCounter(current) {
      throw StoreError.damagedRecord(id: session.id.short)
    }
    let revision = UInt64(max(current ?? 0, 0)) + 1
    let row = try seal(session, revision: revision)
    try db.execute(
      sql: """
        UPDATE trash SET status = ?, summary = ?, body = ?, revision = ?
        WHERE id = ? AND outcome IS NULL
        """,
      arguments: [
        session.status.stored.rawValue, row.summary, row.body, Int64(revision), session.id.hex,
      ])
    return Int64(revision)
  }

  /// The revision of the session's row; nil when there is no such row.
  static func revision(of id: SessionID, _ db: Database) throws -> Int64? {
    try Int64.fetchOne(
      db.cachedStatement(sql: "SELECT revision FROM session WHERE id = ?"), arguments: [id.hex])
  }

  /// Moves sessions to the trash as one deletion (see `Vault.trash`).
  @discardableResult
  public func trash(_ ids: [SessionID], now: Date, purgeAfter: Date) throws -> Deletion {
    try write { db in try vault.trash(ids, now: now, purgeAfter: purgeAfter, db) }
  }

  /// Completing a session (or closing it without a reflection) clears its reminder: nothing
  /// is left to remind of.
  static func clearReminderIfComplete(_ session: Session, _ db: Database) throws {
    guard session.status.stored == .complete else { return }
    try db.cachedStatement(sql: "DELETE FROM reminder WHERE id = ?").execute(arguments: [
      session.id.hex
    ])
  }

  /// Reads a session, changes it, and writes it back in one transaction, so two processes
  /// editing at once never lose each other's change.
  @discardableResult
  public func update(
    _ id: SessionID, _ change: (inout Session) throws -> Void
  ) throws -> Session {
    try write { db in
      var session = try self.fetch(id, db)
      try change(&session)
      try self.put(session, db)
      return session
    }
  }

  /// The whole session with this id.
  public func session(_ id: SessionID) throws -> Session {
    if pointChecks {
      return try read { db in
        try checkLeaves(of: [id], db)
        return try self.fetch(id, db)
      }
    }
    try checkIfListingDidNot()
    return try read { db in try self.fetch(id, db) }
  }

  /// A store opened for listing checks the ledger in its first `summaries`; anything else
  /// asked of it first checks it the ordinary way.
  func checkIfListingDidNot() throws {
    guard checkWhenListing || pointChecks else { return }
    checkWhenListing = false
    pointChecks = false
    try checkLedger()
  }

  /// The one session whose id starts with what the person typed (see `Vault.resolve`). With
  /// point checks, the leaf those ids are in is checked first, so a session removed from the
  /// file behind the ledger's back is told from one that never was; a prefix of fewer than
  /// four digits spans many leaves, and checks the whole vault.
  public func resolve(_ text: String) throws -> SessionID {
    if pointChecks, let prefix = SessionID.normalisedPrefix(text), prefix.count >= 4,
      let leaf = Int(prefix.prefix(4), radix: 16)
    {
      try read { db in try checkLeaves([leaf], db) }
      return try vault.resolve(text)
    }
    try checkIfListingDidNot()
    return try vault.resolve(text)
  }

  /// Every session's summary, newest first, and the ids of rows that failed to open (by id).
  ///
  /// The rows are read with SQLite's own calls (GRDB's `Row` copied every column into a
  /// `Data` first) from the `session_list` index, in batches that a second thread opens while
  /// the next are read (SummaryPipeline).
  ///
  /// A store opened for listing (`Vault.sessions(…, check: .listing)`) checks the
  /// ledger here, in the same read transaction: up to `gatherEntries` sessions, from the
  /// session entries made from the rows as they are read, so `list` reads the vault once, not
  /// twice; beyond, from the ledger's own indexes after the rows, with the rows read bound to
  /// them (`ListedEntries`).
  public func summaries(
    status: SessionStatus? = nil
  ) throws -> (sessions: [SessionSummary], damaged: [SessionID]) {
    do {
      return try listSummaries(status: status)
    } catch let error as StoreError {
      throw (try? read { db in Ledger.explain(error, db) }) ?? error
    }
  }

  private func listSummaries(
    status: SessionStatus?
  ) throws -> (sessions: [SessionSummary], damaged: [SessionID]) {
    let (sessions, damaged) = try listed(status: status, reserve: { _, _ in 0 }) { $0 }
    // Damaged ids by id: the threads finish in no fixed order.
    return (Self.newestFirst(sessions), damaged.sorted())
  }

  /// The list rows of the summaries of `status` (all, when nil) that `include` takes, newest
  /// first, and the ids of the rows that failed to open, by id: `summaries`' one pass and
  /// ledger check, keeping 32 bytes a session (`ListRow`) in one array reserved to the
  /// count, sorted in place. A million sessions' rows take 32 MB.
  public func listRows(
    status: SessionStatus? = nil, include: @escaping @Sendable (SessionSummary) -> Bool
  ) throws -> (rows: ListRows, damaged: [SessionID]) {
    gathering = status == nil
    defer {
      gathering = false
      gathered = nil
    }
    do {
      let names = TreatmentNames()
      var (rows, damaged) = try listed(
        // The vault's count when it was taken for the check, and all are listed.
        status: status,
        reserve: { db, sessions in
          try (status == nil ? sessions : nil) ?? Self.count(db, status: status)
        }
      ) {
        summary in
        include(summary) ? ListRow(summary, treatment: names.index(of: summary.treatment)) : nil
      }
      // In place: Swift's own sort keeps a buffer of half the array (16 MB at a million).
      sortInPlace(&rows, by: ListRow.newestFirst)
      if let gathered, damaged.isEmpty, rows.count == gathered.count / LedgerRows.sessionBytes {
        // Every session the check covers listed (none left out by the filter, none damaged,
        // none restored by an undo): the newest, for a later `list -n`.
        ledgerEntries?.newest = Self.newest(of: rows, entries: gathered)
      }
      return (ListRows(rows: rows, treatments: names.all), damaged.sorted())
    } catch let error as StoreError {
      throw (try? read { db in Ledger.explain(error, db) }) ?? error
    }
  }

  /// The first `WholeCheck.newestAtMost` of `rows` (newest first) with the revision each has
  /// in `entries` (the ledger's session entries, complete then waiting, each by id); empty
  /// when one is not there.
  static func newest(of rows: [ListRow], entries: [UInt8]) -> [WholeCheck.Newest] {
    let size = LedgerRows.sessionBytes
    let count = entries.count / size
    return entries.withUnsafeBytes { entries -> [WholeCheck.Newest] in
      func entry(_ index: Int) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: entries[index * size..<(index + 1) * size])
      }
      // Where the waiting sessions begin (status byte 1 after the complete ones' 2).
      var low = 0
      var high = count
      while low < high {
        let middle = (low + high) / 2
        if entry(middle)[17] == 2 { low = middle + 1 } else { high = middle }
      }
      let segments = [0..<low, low..<count]
      var newest: [WholeCheck.Newest] = []
      for row in rows.prefix(WholeCheck.newestAtMost) {
        let found = row.id.withBytes { id -> Int64? in
          for segment in segments {
            var low = segment.lowerBound
            var high = segment.upperBound
            while low < high {
              let middle = (low + high) / 2
              let candidate = entry(middle)[1..<17]
              if candidate.elementsEqual(id) {
                return Int64(
                  littleEndian: entry(middle).loadUnaligned(fromByteOffset: 18, as: Int64.self))
              }
              if candidate.lexicographicallyPrecedes(id) { low = middle + 1 } else { high = middle }
            }
          }
          return nil
        }
        guard let found else { return [] }
        newest.append(WholeCheck.Newest(id: row.id, revision: found, date: row.date))
      }
      return newest
    }
  }

  /// The one listing pass (`summaries`, `listRows`): the ledger checked as the rows are read,
  /// or in the same read transaction when the vault is too large to gather its entries.
  private func listed<Item: Sendable>(
    status: SessionStatus?, reserve: (_ db: Database, _ sessions: Int?) throws -> Int,
    make: @escaping @Sendable (SessionSummary) -> Item?
  ) throws -> (items: [Item], damaged: [SessionID]) {
    // A store of point checks reads every summary here: the whole check first.
    if pointChecks { try checkIfListingDidNot() }
    if checkWhenListing,
      try read({ db in try Ledger.stamp(db) }).map({ $0.construction < Ledger.construction })
        ?? true
    {
      // Not protected yet (or its ledger lost), or its ledger of an earlier format: the whole
      // check, which may protect or upgrade it.
      checkWhenListing = false
      try checkLedger()
    }
    var checking = checkWhenListing
    var bindingRemembered = false
    // A listing of one status at the stamp of a whole check kept from an earlier command
    // checks the root (the trash, the settings, the nodes) and binds the rows it reads to
    // that check's sums (`bind`); this store then checks by points, as a command about one
    // session does, and anything that reads every row checks the whole vault first.
    if checking, status != nil, let remembered, try verifyRootIfTree(),
      checked == remembered.stamp
    {
      ledgerEntries = remembered
      bindingRemembered = true
      checking = false
      checkWhenListing = false
      pointChecks = true
    }
    var found: LedgerFound?
    var whole: LedgerStamp?
    let (items, damaged) = try read { db in
      // Up to `gatherEntries` sessions the ledger's entries are gathered from the rows read
      // (3.4 MB); beyond, the ledger is checked from its own indexes after this pass (at a
      // million, 26 MB not held). Decided by the count before reading, so that the other
      // status's entries are never gathered only to be dropped.
      let total = checking ? try Self.count(db, status: nil) : nil
      let gather = total.map { $0 <= self.gatherEntries } ?? true
      let scanned = try self.scan(
        db, status: status, checking: checking, gather: gather,
        reserve: try reserve(db, total), make: { summary, _ in make(summary) })
      found = scanned.found
      if checking, let summed = scanned.summed {
        // Every leaf made again from the ledger's narrow indexes, one at a time, in the
        // transaction that read the rows; and the rows shown must be the rows it checked.
        var entries: ListedEntries? = ListedEntries(status: nil, key: self.entryKey)
        let checked = try self.ledger.verify(db, against: summed.stamp, entries: &entries)
        guard let entries, summed.read.same(as: entries) else {
          throw StoreError.tampered(.rows)
        }
        whole = checked
        self.ledgerEntries = try LedgerEntries(checked, entries, db)
      } else {
        try self.bind(scanned.summed, db)
      }
      return (scanned.items, scanned.damaged)
    }
    if let found {
      // "complete" sorts before "needs_reflection".
      var view = found.view
      view.rows.sessions =
        found.rest.isEmpty
        ? found.listed
        : status == .needsReflection ? found.rest + found.listed : found.listed + found.rest
      let stamp = try ledger.verify(view, against: found.stamp)
      var undone = ListedEntries(status: nil, key: entryKey)
      found.view.addUndone(to: &undone)
      guard found.undoneRead.same(as: undone) else { throw StoreError.tampered(.rows) }
      checked = stamp
      checkWhenListing = false
      // Summed as `Ledger.verify` sums them, for a listing of one status to bind to later
      // (`wholeCheck`): every session's entry, and those an undo restored.
      var entries = undone
      view.rows.sessions.withUnsafeBytes { sessions in
        let size = LedgerRows.sessionBytes
        for start in stride(from: 0, to: sessions.count - size + 1, by: size) {
          let entry = UnsafeRawBufferPointer(rebasing: sessions[start..<start + size])
          entries.add(entry, status: entry[17] == 2 ? .complete : .needsReflection)
        }
      }
      ledgerEntries = LedgerEntries(stamp, entries, undone: found.view.undone)
      // A listing of every session can name the newest with the revisions checked.
      gathered = gathering && status == nil && found.view.undone.isEmpty ? view.rows.sessions : nil
    } else if let whole {
      checked = whole
      checkWhenListing = false
    } else if bindingRemembered, let stamp = ledgerEntries?.stamp, stamp != checked {
      // Another process wrote between the root's check and the read: the read was bound to
      // a whole check of the stamp it saw (`bind`), made then.
      checked = stamp
      checkedLeaves = []
    }
    return (items, damaged)
  }

  /// What a listing pass gathered to check the ledger with.
  private struct LedgerFound {
    let stamp: LedgerStamp
    let view: Ledger.View
    /// The ledger entries of the sessions read, and of those of the other status.
    let listed: [UInt8]
    let rest: [UInt8]
    /// The entries of the sessions read whose deletion was undone since the stamp: not in
    /// the tag's, but each must be as its trash row says (`Ledger.View.addUndone`).
    let undoneRead: ListedEntries
  }

  /// One pass over the summaries of `status` (all, when nil) in the list index, opened on
  /// every core; what `make` keeps of each, and the ids of the rows that failed to open.
  /// With `checking`, also gathers the ledger's session entries from the same rows (with
  /// `gather`) for the listing's check (`found`). Otherwise, in a vault with a tree ledger,
  /// sums the entries of the rows read (`summed`), for the ledger's own pass to compare
  /// (`bind`, or the listing's check).
  private func scan<Item: Sendable>(
    _ db: Database, status: SessionStatus?, checking: Bool, gather: Bool = true,
    threads: Int? = nil, reserve: Int = 0,
    make: @escaping @Sendable (SessionSummary, _ revision: Int64) -> Item?
  ) throws -> (items: [Item], damaged: [SessionID], found: LedgerFound?, summed: Summed?) {
    let openers = try summaryOpeners()
    let pipeline = SummaryPipeline(
      openers: Array(openers.prefix(threads ?? openers.count)), reserve: reserve, make: make)
    defer { pipeline.wait() }
    var view: Ledger.View?
    var stamp: LedgerStamp?
    var summed: Summed?
    if checking {
      stamp = try Ledger.stamp(db)
      if let stamp, gather || stamp.construction < 3 {
        view = try Ledger.View.readAllButSessions(db, settings: stamp.construction >= 2)
      }
    }
    if view == nil { summed = try summing(db, status: status) }
    var listed: [UInt8] = []
    // In the order of the list index (status, then id): the ledger's order.
    let statement = try db.makeStatement(
      sql: status == nil
        ? """
        SELECT id, status, revision, summary FROM session INDEXED BY session_list
        ORDER BY status, id
        """
        : """
        SELECT id, status, revision, summary FROM session INDEXED BY session_list
        WHERE status = ? ORDER BY id
        """)
    if let status { try statement.setArguments([status.rawValue]) }
    let handle = statement.sqliteStatement
    var batch = SummaryBatch()
    let entries = view != nil
    var entry: [UInt8] = []
    let undone = view?.undone ?? []
    var undoneRead = ListedEntries(status: status, key: entryKey)
    while try Self.step(handle, statement, db) {
      let digits = Self.text(handle, 0)
      let statusText = Self.text(handle, 1)
      let revision = sqlite3_column_int64(handle, 2)
      guard
        let id = SessionID(storedDigits: digits)
          ?? SessionID(String(decoding: digits, as: UTF8.self))
      else {
        if entries || summed != nil { throw StoreError.tampered(.rows) }
        continue
      }
      if summed != nil {
        try summed?.add(digits: digits, status: statusText, revision: revision)
      } else if entries {
        // The tag covers which sessions there are, not which range of the index each was
        // read from: a row of the other status in a filtered read is refused here.
        let rowStatus = try Self.makeEntry(
          &entry, digits: digits, status: statusText, revision: revision, read: status)
        if !undone.isEmpty, undone.contains(id) {
          // Left out of the tag's entries; bound to its trash row instead (`LedgerFound`).
          entry.withUnsafeBytes { undoneRead.add($0, status: rowStatus) }
        } else {
          listed += entry
        }
      }
      batch.append(id: id, status: statusText, revision: revision, sealed: Self.blob(handle, 3))
      if batch.count == SummaryBatch.capacity { batch = pipeline.submit(batch) }
    }
    _ = pipeline.submit(batch)
    // The sessions of the other status, which the tag covers too.
    var rest: [UInt8] = []
    if let view, let status {
      try Ledger.View.scanSessions(
        db, status: status == .complete ? .needsReflection : .complete, skipping: view.undone,
        into: &rest)
    }
    let (items, damaged) = pipeline.finish()
    guard let stamp, let view else { return (items, damaged, nil, summed) }
    return (
      items, damaged,
      LedgerFound(
        stamp: stamp, view: view, listed: listed, rest: rest, undoneRead: undoneRead),
      nil
    )
  }

  /// The session entries a read of many rows sums as it goes (`ListedEntries`), to be bound
  /// to the ledger's (`bind`) in the same read transaction.
  struct Summed {
    let stamp: LedgerStamp
    /// Every row read, sessions whose deletion was undone since the stamp included (the
    /// ledger's sums add those from their trash rows, `Ledger.View.addUndone`).
    var read: ListedEntries
    private var entry: [UInt8] = []

    init(stamp: LedgerStamp, read: ListedEntries) {
      self.stamp = stamp
      self.read = read
      entry.reserveCapacity(32)
    }

    /// Adds the entry of a row read (`makeEntry`).
    mutating func add(
      digits: UnsafeRawBufferPointer, status statusText: UnsafeRawBufferPointer, revision: Int64
    ) throws {
      let status = try SessionStore.makeEntry(
        &entry, digits: digits, status: statusText, revision: revision, read: read.status)
      entry.withUnsafeBytes { read.add($0, status: status) }
    }
  }

  /// The ledger entry of a row read, made in `entry` (`Ledger.View.appendEntry`) from its
  /// id's digits as stored, its status column and its revision; its status. A row the
  /// ledger could not hold is tampering; so is one of another status than a filtered read
  /// asked for (`read`: an index's rows out of their order).
  static func makeEntry(
    _ entry: inout [UInt8], digits: UnsafeRawBufferPointer,
    status statusText: UnsafeRawBufferPointer, revision: Int64, read: SessionStatus?
  ) throws -> SessionStatus {
    entry.removeAll(keepingCapacity: true)
    guard let status = RecordCodec.status(named: statusText), digits.count == 32,
      read == nil || read == status,
      let start = digits.baseAddress?.assumingMemoryBound(to: UInt8.self),
      Ledger.View.appendEntry(to: &entry, digits: start, status: status, revision: revision)
    else { throw StoreError.tampered(.rows) }
    return status
  }

  /// In a read transaction, before a read of many rows of `status` (all, when nil): what it
  /// sums, or nil when the vault has no tree ledger to bind it to (one not yet protected, or
  /// of an earlier format, checked whole at opening and not yet made anew). A vault that had
  /// a tree when this store checked it and has none now lost it behind the store's back.
  private func summing(_ db: Database, status: SessionStatus?) throws -> Summed? {
    let stamp = try Ledger.stamp(db)
    guard let stamp, stamp.construction >= 3 else {
      let lost = try stamp == nil && Ledger.hasRevisions(db)
      if lost || (checked?.construction ?? 0) >= 3 { throw StoreError.tampered(.ledger) }
      return nil
    }
    return Summed(stamp: stamp, read: ListedEntries(status: status, key: entryKey))
  }

  /// In the read transaction that read the rows `summed` summed, before anything read is
  /// handed over: they must be the sessions the ledger holds, as its own indexes give them.
  /// A whole check of this store at the same stamp, with the same sessions restored by an
  /// undo, summed those already; otherwise (another process wrote or undid since, or this
  /// store checks at listing or by points) the whole check is made here, in this
  /// transaction. So a read cannot be shown rows that the check did not see: an index or
  /// table of the file pointed at a decoy's pages, or rows edited in one of them and not in
  /// the others.
  private func bind(_ summed: Summed?, _ db: Database) throws {
    guard let summed else { return }
    do {
      if let known = ledgerEntries, known.stamp == summed.stamp,
        try known.undone == Ledger.View.readSkips(db).undone
      {
        if summed.read.same(as: known.entries) { return }
        // A kept check that does not agree is asked no further: the whole check decides.
        guard known.kept else { throw StoreError.tampered(.rows) }
      }
      // A stamp older than one this store checked is the file put back behind its back.
      if let checked, summed.stamp.generation < checked.generation {
        throw StoreError.tampered(.rows)
      }
      var entries: ListedEntries? = ListedEntries(status: nil, key: entryKey)
      let checked = try ledger.verify(db, against: summed.stamp, entries: &entries)
      guard let entries else { throw StoreError.tampered(.ledger) }
      ledgerEntries = try LedgerEntries(checked, entries, db)
      guard summed.read.same(as: entries) else { throw StoreError.tampered(.rows) }
    } catch let error as StoreError {
      throw Ledger.explain(error, db)
    }
  }

  /// Steps a statement read with SQLite's own calls: true for a row, false when done.
  static func step(
    _ handle: SQLiteStatement, _ statement: Statement, _ db: Database
  ) throws -> Bool {
    let code = sqlite3_step(handle)
    if code == SQLITE_DONE { return false }
    guard code == SQLITE_ROW else {
      throw DatabaseError(
        resultCode: ResultCode(rawValue: code),
        message: String(cString: sqlite3_errmsg(db.sqliteConnection)), sql: statement.sql)
    }
    return true
  }

  /// The summaries in `SessionSummary.newestFirst` order, sorted by small keys (date, id,
  /// position) and then gathered: sorting the summaries themselves moved each ~80-byte value
  /// through every merge, which was a tenth of `list` of 100,000 once the rows no longer came
  /// in date order (the index holds them by status and id).
  static func newestFirst(_ sessions: consuming [SessionSummary]) -> [SessionSummary] {
    struct Key {
      let date: Date
      let id: SessionID
      let index: Int
    }
    var keys: [Key] = []
    keys.reserveCapacity(sessions.count)
    for index in sessions.indices {
      keys.append(Key(date: sessions[index].date, id: sessions[index].id, index: index))
    }
    keys.sort { a, b in SessionSummary.newestFirst(a.date, a.id, b.date, b.id) }
    // Each summary moved to its place in the one array, a cycle of the permutation at a
    // time: a sorted copy would hold every summary twice (a million of them: 130 MB more).
    var sorted = sessions
    var placed = [Bool](repeating: false, count: keys.count)
    for start in keys.indices where !placed[start] {
      let held = sorted[start]
      var place = start
      while true {
        placed[place] = true
        let from = keys[place].index
        if from == start {
          sorted[place] = held
          break
        }
        sorted[place] = sorted[from]
        place = from
      }
    }
    return sorted
  }

  /// The openers of `summaries`: one for the reading thread and, with more than one core, one
  /// for its helper; made once, as each holds guarded buffers.
  private func summaryOpeners() throws -> [RecordCipher.Opener] {
    if let openers { return openers }
    var made = [try cipher.makeOpener()]
    if sysconf(Int32(_SC_NPROCESSORS_ONLN)) > 1 { made.append(try cipher.makeOpener()) }
    openers = made
    return made
  }

  /// A text column of the current row, valid until the next step.
  private static func text(_ handle: SQLiteStatement, _ column: Int32) -> UnsafeRawBufferPointer {
    guard let pointer = sqlite3_column_text(handle, column) else {
      return .init(start: nil, count: 0)
    }
    return UnsafeRawBufferPointer(start: pointer, count: Int(sqlite3_column_bytes(handle, column)))
  }

  /// A blob column of the current row (any other type as SQLite converts it), valid until the
  /// next step.
  private static func blob(_ handle: SQLiteStatement, _ column: Int32) -> UnsafeRawBufferPointer {
    guard let pointer = sqlite3_column_blob(handle, column) else {
      return .init(start: nil, count: 0)
    }
    return UnsafeRawBufferPointer(start: pointer, count: Int(sqlite3_column_bytes(handle, column)))
  }

  // MARK: - Streamed reads

  /// Where a session comes in a streamed read (`places`), and the revision to check its row
  /// against, when it has one.
  protocol Placed: Sendable {
    var date: Date { get }
    var id: SessionID { get }
    var revision: Int64? { get }
    init(_ summary: SessionSummary, revision: Int64)
  }

  /// Where a session comes in a streamed read: its date and id. 24 bytes a session.
  struct Place: Placed {
    let date: Date
    let id: SessionID
    var revision: Int64? { nil }
    init(date: Date, id: SessionID) {
      self.date = date
      self.id = id
    }
    init(_ summary: SessionSummary, revision _: Int64) {
      self.init(date: summary.date, id: summary.id)
    }
  }

  /// A whole session's place in a streamed read: also the revision the list index gave it,
  /// which its row in the table must have (`open`). 32 bytes a session.
  struct BoundPlace: Placed {
    let date: Date
    let id: SessionID
    let listed: Int64
    var revision: Int64? { listed }
    init(_ summary: SessionSummary, revision: Int64) {
      date = summary.date
      id = summary.id
      listed = revision
    }
  }

  /// Up to this many sessions, a streamed read of summaries holds them all, as `list` does
  /// (~90 bytes each: 12 MB at most) and reads the vault once; beyond, it holds only their
  /// places and reads the summaries again `chunk` at a time. (Variables for the tests, which
  /// take the chunked way with a few sessions.)
  var holdAll = 131_072
  var chunk = 65_536
  /// Up to this many sessions, a listing gathers their ledger entries as it reads them;
  /// beyond, it checks the ledger from its narrow indexes after the rows (a variable for
  /// the tests, which take that way with a few sessions).
  var gatherEntries = Ledger.keepEntries

  /// The summaries of `status` (all, when nil) that `include` takes (only the `newest` of
  /// them, when given), handed to `body` one at a time in `order`, and the ids of the rows
  /// that failed to open, by id. Before the first, `begin` is told how many there are and
  /// which rows failed to open.
  ///
  /// Memory does not grow with the journal beyond 24 bytes a session. Up to `holdAll`
  /// sessions, one pass opens every summary on every core and keeps them. Beyond, a first
  /// pass keeps only each one's place (date and id) to learn the order; then, for each
  /// `chunk` of places in order, one pass over the list index in its own order (sequential
  /// reads) opens only the summaries of that chunk, which are handed over and forgotten.
  /// All passes are one read transaction, so a write by another process falls wholly
  /// before or after.
  public func streamSummaries(
    status: SessionStatus? = nil, order: ReadOrder,
    include: @escaping @Sendable (SessionSummary) -> Bool = { _ in true }, newest: Int? = nil,
    begin: (_ count: Int, _ damaged: [SessionID]) throws -> Void = { _, _ in },
    _ body: (SessionSummary) throws -> Void
  ) throws -> [SessionID] {
    try checkIfListingDidNot()
    return try read { db in
      let total = try Self.count(db, status: status)
      if total <= self.holdAll {
        // Reserved to the count: grown by doubling, the array was held twice over at its
        // last growth.
        let (summaries, damaged, _, summed) = try self.scan(
          db, status: status, checking: false, reserve: total
        ) { summary, _ in include(summary) ? summary : nil }
        try self.bind(summed, db)
        let all = Self.newestFirst(summaries)
        let newestFirst = newest.map { Array(all.prefix($0)) } ?? all
        try begin(newestFirst.count, damaged.sorted())
        switch order {
        case .newestFirst: for summary in newestFirst { try body(summary) }
        case .oldestFirst: for summary in newestFirst.reversed() { try body(summary) }
        }
        return damaged.sorted()
      }
      // The chunks below read the same index in the same transaction: what this pass bound.
      let (places, damagedFirst): ([Place], _) = try self.places(
        db, status: status, order: order, total: total, newest: newest, include)
      try begin(places.count, damagedFirst.sorted())
      var damaged = damagedFirst
      let opener = try self.summaryOpeners()[0]
      var start = 0
      while start < places.count {
        let end = min(start + self.chunk, places.count)
        var wanted: [SessionID: Int] = [:]
        wanted.reserveCapacity(end - start)
        for index in start..<end { wanted[places[index].id] = index - start }
        var found = [SessionSummary?](repeating: nil, count: end - start)
        let statement = try db.makeStatement(
          sql: status == nil
            ? "SELECT id, status, revision, summary FROM session INDEXED BY session_list"
            : """
            SELECT id, status, revision, summary FROM session INDEXED BY session_list
            WHERE status = ?
            """)
        if let status { try statement.setArguments([status.rawValue]) }
        let handle = statement.sqliteStatement
        while try Self.step(handle, statement, db) {
          guard let id = SessionID(storedDigits: Self.text(handle, 0)), let at = wanted[id]
          else { continue }
          found[at] = try? Self.openSummary(
            opener, id: id, revision: sqlite3_column_int64(handle, 2),
            stored: RecordCodec.status(named: Self.text(handle, 1)), sealed: Self.blob(handle, 3))
        }
        for (offset, summary) in found.enumerated() {
          guard let summary else {
            damaged.append(places[start + offset].id)
            continue
          }
          try body(summary)
        }
        start = end
      }
      return damaged.sorted()
    }
  }

  /// Every whole session of `status` (all, when nil) whose summary `include` takes, handed
  /// to `body` one at a time in `order`, and the ids of the rows that failed to open, by id.
  /// A first pass keeps each session's place (24 bytes); a second reads each row by its id
  /// as it is handed over, and forgets it; both in one read transaction.
  public func streamSessions(
    status: SessionStatus? = nil, order: ReadOrder,
    include: @escaping @Sendable (SessionSummary) -> Bool = { _ in true }, newest: Int? = nil,
    begin: (_ count: Int, _ damaged: [SessionID]) throws -> Void = { _, _ in },
    _ body: (Session) throws -> Void
  ) throws -> [SessionID] {
    try streamSessions(
      status: status, order: order, include: include, newest: newest, begin: begin,
      transform: { $0 }, body)
  }

  /// How many sessions of `status` (all, when nil) the vault holds.
  private static func count(_ db: Database, status: SessionStatus?) throws -> Int {
    guard let status else {
      return try Int.fetchOne(db, sql: "SELECT count(*) FROM session") ?? 0
    }
    return try Int.fetchOne(
      db, sql: "SELECT count(*) FROM session WHERE status = ?", arguments: [status.rawValue]) ?? 0
  }

  /// Opens every session of the vault, in the order of its rows, without keeping any:
  /// `verify`. How many opened, and the ids of those that did not, by id. The rows read are
  /// bound to the ledger (`bind`).
  public func openEvery() throws -> (intact: Int, damaged: [SessionID]) {
    try checkIfListingDidNot()
    return try read { db in
      var summed = try self.summing(db, status: nil)
      let statement = try db.makeStatement(
        sql: "SELECT revision, summary, body, status, id FROM session")
      let handle = statement.sqliteStatement
      let opener = try self.summaryOpeners()[0]
      var intact = 0
      var damaged: [SessionID] = []
      while try Self.step(handle, statement, db) {
        let digits = Self.text(handle, 4)
        guard let id = SessionID(storedDigits: digits) else {
          if summed != nil { throw StoreError.tampered(.rows) }
          continue
        }
        try summed?.add(
          digits: digits, status: Self.text(handle, 3), revision: sqlite3_column_int64(handle, 0))
        do {
          _ = try Self.openRow(opener, id: id, handle: handle)
          intact += 1
        } catch {
          damaged.append(id)
        }
      }
      try self.bind(summed, db)
      return (intact, damaged.sorted())
    }
  }

  /// The first pass of a streamed read: the places of the summaries `include` takes, in
  /// `order`, and the ids of the rows that failed to open. Beyond `holdAll` sessions, on one
  /// thread into one array the size of `total`, so that no second array of places is made
  /// to join two threads' (at a million sessions, 24 MB saved). The rows read are bound to
  /// the ledger (`bind`) before they are returned: the list index is checked, and a later
  /// pass may read it again in the same transaction.
  private func places<P: Placed>(
    _ db: Database, status: SessionStatus?, order: ReadOrder, total: Int, newest: Int?,
    _ include: @escaping @Sendable (SessionSummary) -> Bool
  ) throws -> (places: [P], damaged: [SessionID]) {
    var (places, damaged, _, summed) = try scan(
      db, status: status, checking: false, threads: total > self.holdAll ? 1 : nil,
      reserve: total
    ) { summary, revision in
      include(summary) ? P(summary, revision: revision) : nil
    }
    try bind(summed, db)
    // In place: Swift's own sort keeps a buffer of half the array (12 MB at a million).
    switch order {
    case .newestFirst:
      sortInPlace(&places) { SessionSummary.newestFirst($0.date, $0.id, $1.date, $1.id) }
    case .oldestFirst:
      sortInPlace(&places) { $0.date != $1.date ? $0.date < $1.date : $0.id < $1.id }
    }
    // Only the newest `newest`, in the order asked.
    if let newest, newest < places.count {
      switch order {
      case .newestFirst: places.removeLast(places.count - newest)
      case .oldestFirst: places.removeFirst(places.count - newest)
      }
    }
    return (places, damaged)
  }

  /// SQLite copies a value bound with this before the call returns.
  static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

  /// A summary opened from its sealed bytes, checked against its row's clear status column
  /// (`stored`, nil when the column names no status): the two must agree, or the column has
  /// been edited. Every read of summaries opens them here.
  static func openSummary(
    _ opener: RecordCipher.Opener, id: SessionID, revision: Int64, stored: SessionStatus?,
    sealed: UnsafeRawBufferPointer
  ) throws -> SessionSummary {
    guard StoredRange.isCounter(revision), let stored else {
      throw StoreError.damagedRecord(id: id.short)
    }
    let summary = try id.withBytes { bytes in
      try opener.open(sealed, id: bytes, column: .summary, revision: UInt64(revision)) { plain in
        try RecordCodec.decodeSummary(plain, id: id)
      }
    }
    guard summary.status.stored == stored else { throw StoreError.damagedRecord(id: id.short) }
    return summary
  }

  /// The whole session of the current row of a statement whose columns are revision,
  /// summary, body and status.
  private static func openRow(
    _ opener: RecordCipher.Opener, id: SessionID, handle: SQLiteStatement
  ) throws -> Session {
    try openSession(
      opener, id: id, revision: sqlite3_column_int64(handle, 0),
      stored: RecordCodec.status(named: text(handle, 3)), summary: blob(handle, 1),
      body: blob(handle, 2))
  }

  /// A whole session from its row's values: the revision, the clear status column (nil when
  /// it names no status) and the two sealed columns.
  static func openSession(
    _ opener: RecordCipher.Opener, id: SessionID, revision: Int64, stored: SessionStatus?,
    summary sealedSummary: UnsafeRawBufferPointer, body sealedBody: UnsafeRawBufferPointer
  ) throws -> Session {
    let summary = try openSummary(
      opener, id: id, revision: revision, stored: stored, sealed: sealedSummary)
    return try openSession(opener, summary, revision: revision, body: sealedBody)
  }

  /// The whole session of an opened summary, from its row's sealed body.
  private static func openSession(
    _ opener: RecordCipher.Opener, _ summary: SessionSummary, revision: Int64,
    body sealedBody: UnsafeRawBufferPointer
  ) throws -> Session {
    let body = try summary.id.withBytes { bytes in
      try opener.open(sealedBody, id: bytes, column: .body, revision: UInt64(revision)) {
        plain in try RecordCodec.decodeBody(plain)
      }
    }
    return try session(summary, body)
  }

  /// Sessions whose rows have been read, waiting to be opened on another core: the rows'
  /// values copied into one arena (SQLite's buffers last only until the next step).
  private struct RowBatch: @unchecked Sendable {
    // @unchecked: filled by the reading thread, then only read by the threads that open it.
    struct Row {
      let id: SessionID
      let revision: Int64
      let stored: SessionStatus?
      let summary: Range<Int>
      let body: Range<Int>
    }
    var rows: [Row] = []
    var arena: [UInt8] = []

    /// Copies the current row of `handle` in, its values read from the columns named.
    mutating func append(
      id: SessionID, _ handle: SQLiteStatement, revision: Int32, status: Int32, summary: Int32,
      body: Int32
    ) {
      let summaryStart = arena.count
      arena.append(contentsOf: SessionStore.blob(handle, summary))
      let bodyStart = arena.count
      arena.append(contentsOf: SessionStore.blob(handle, body))
      rows.append(
        Row(
          id: id, revision: sqlite3_column_int64(handle, revision),
          stored: RecordCodec.status(named: SessionStore.text(handle, status)),
          summary: summaryStart..<bodyStart, body: bodyStart..<arena.count))
    }
  }

  /// As `streamSessions`, with each session opened and handed to `transform` on every core,
  /// a batch of rows at a time, and what it makes (nil: nothing) handed to `body` in order:
  /// the work per session (opening it; for `search`, folding and scanning its texts) is most
  /// of a whole-journal read. Rows are read on this thread; memory holds one batch.
  public func streamSessions<Made: Sendable>(
    status: SessionStatus? = nil, order: ReadOrder,
    include: @escaping @Sendable (SessionSummary) -> Bool = { _ in true }, newest: Int? = nil,
    begin: (_ count: Int, _ damaged: [SessionID]) throws -> Void = { _, _ in },
    transform: @escaping @Sendable (Session) -> Made?, _ body: (Made) throws -> Void
  ) throws -> [SessionID] {
    try checkIfListingDidNot()
    let openers = try summaryOpeners()
    return try read { db in
      let total = try Self.count(db, status: status)
      // With the revisions the list index gave (bound to the ledger there), to check each row
      // read from the table against.
      let (places, damagedFirst): ([BoundPlace], _) = try self.places(
        db, status: status, order: order, total: total, newest: newest, include)
      try begin(places.count, damagedFirst.sorted())
      var damaged = damagedFirst
      try self.open(places, db, openers, damaged: &damaged, transform: transform, body)
      return damaged.sorted()
    }
  }

  /// A batch ends at 512 rows or 1 MiB of sealed columns, whichever comes first: long texts
  /// must not make a batch (and the sessions opened from it) large.
  private static let rowsPerBatch = 512
  private static let bytesPerBatch = 1 << 20

  /// The sessions at `places`, read by id in that order a batch at a time, opened and handed
  /// to `transform` on every core, what it makes handed to `body` in the same order; the ids
  /// of rows missing or failing to open added to `damaged`.
  ///
  /// A place with a revision came from the list index, read in this transaction (`places`,
  /// which binds it to the ledger when there is a tree): its row in the table must be there,
  /// at that revision, or the two disagree behind the ledger's back (the sealed columns
  /// open only at their revision).
  private func open<P: Placed, Made: Sendable>(
    _ places: [P], _ db: Database, _ openers: [RecordCipher.Opener],
    damaged: inout [SessionID], transform: @escaping @Sendable (Session) -> Made?,
    _ body: (Made) throws -> Void
  ) throws {
    // The row found by its id in the table's own index, and its id read from the row (a
    // plain `WHERE id = ?` takes the id from the index, which would only agree with itself).
    let statement = try db.makeStatement(
      sql: """
        SELECT revision, summary, body, status, id FROM session
        WHERE rowid = (SELECT rowid FROM session WHERE id = ?)
        """)
    let handle = statement.sqliteStatement
    var start = 0
    while start < places.count {
      var batch = RowBatch()
      batch.arena.reserveCapacity(min(Self.rowsPerBatch * 2600, Self.bytesPerBatch) + 65_536)
      var end = start
      while end < places.count, end - start < Self.rowsPerBatch,
        batch.arena.count < Self.bytesPerBatch
      {
        let place = places[end]
        end += 1
        sqlite3_reset(handle)
        sqlite3_bind_text(handle, 1, place.id.hex, 32, Self.transient)
        let listed = place.revision
        guard try Self.step(handle, statement, db) else {
          // In the list index, which the ledger holds, and not in the table.
          if listed != nil { throw StoreError.tampered(.rows) }
          damaged.append(place.id)
          continue
        }
        // The table's id index pointing at another session's row, or that row at another
        // revision than the list index gave.
        guard SessionID(storedDigits: Self.text(handle, 4)) == place.id,
          listed.map({ sqlite3_column_int64(handle, 0) == $0 }) ?? true
        else { throw StoreError.tampered(.rows) }
        batch.append(id: place.id, handle, revision: 0, status: 3, summary: 1, body: 2)
      }
      // Each core opens its share of the batch with its own opener.
      let shares = openers.count
      let results = Mutex([[(Made?, SessionID?)]](repeating: [], count: shares))
      let frozen = batch
      DispatchQueue.concurrentPerform(iterations: shares) { share in
        var made: [(Made?, SessionID?)] = []
        frozen.arena.withUnsafeBytes { arena in
          for index in stride(from: share, to: frozen.rows.count, by: shares) {
            let row = frozen.rows[index]
            do {
              let session = try Self.openSession(
                openers[share], id: row.id, revision: row.revision, stored: row.stored,
                summary: UnsafeRawBufferPointer(rebasing: arena[row.summary]),
                body: UnsafeRawBufferPointer(rebasing: arena[row.body]))
              made.append((transform(session), nil))
            } catch {
              made.append((nil, row.id))
            }
          }
        }
        results.withLock { $0[share] = made }
      }
      let all = results.withLock { $0 }
      for index in frozen.rows.indices {
        let (made, failed) = all[index % shares][index / shares]
        if let failed { damaged.append(failed) }
        if let made { try body(made) }
      }
      start = end
    }
  }

  /// For a search: the whole sessions whose summary `include` takes and that `matches`,
  /// each handed to `transform` on every core, what it makes handed to `body` in `order`;
  /// the ids of the rows that failed to open, by id.
  ///
  /// Most sessions of a search do not match. So one pass reads the table in its own order
  /// (sequential reads, as the floor of Scripts/search-floor.c does), opens every session
  /// on every core (each summary once, and a body only if the summary is taken) and keeps
  /// only the places of those that match; then only those are read again, by id, in `order`,
  /// and made. Memory holds a batch and 24 bytes a match. All in one read transaction.
  public func streamMatching<Made: Sendable>(
    order: ReadOrder, include: @escaping @Sendable (SessionSummary) -> Bool,
    matches: @escaping @Sendable (Session) -> Bool,
    transform: @escaping @Sendable (Session) -> Made?, _ body: (Made) throws -> Void
  ) throws -> [SessionID] {
    try checkIfListingDidNot()
    let openers = try summaryOpeners()
    return try read { db in
      var summed = try self.summing(db, status: nil)
      let statement = try db.makeStatement(
        sql: "SELECT revision, summary, body, status, id FROM session")
      let handle = statement.sqliteStatement
      var places: [Place] = []
      var damaged: [SessionID] = []
      var more = true
      while more {
        var batch = RowBatch()
        batch.arena.reserveCapacity(min(Self.rowsPerBatch * 2600, Self.bytesPerBatch) + 65_536)
        while batch.rows.count < Self.rowsPerBatch, batch.arena.count < Self.bytesPerBatch {
          guard try Self.step(handle, statement, db) else {
            more = false
            break
          }
          let digits = Self.text(handle, 4)
          guard
            let id = SessionID(storedDigits: digits)
              ?? SessionID(String(decoding: digits, as: UTF8.self))
          else {
            if summed != nil { throw StoreError.tampered(.rows) }
            continue
          }
          try summed?.add(
            digits: digits, status: Self.text(handle, 3),
            revision: sqlite3_column_int64(handle, 0))
          batch.append(id: id, handle, revision: 0, status: 3, summary: 1, body: 2)
        }
        let shares = openers.count
        let results = Mutex(
          [(places: [Place], damaged: [SessionID])](
            repeating: ([], []), count: shares))
        let frozen = batch
        DispatchQueue.concurrentPerform(iterations: shares) { share in
          var found: (places: [Place], damaged: [SessionID]) = ([], [])
          frozen.arena.withUnsafeBytes { arena in
            for index in stride(from: share, to: frozen.rows.count, by: shares) {
              let row = frozen.rows[index]
              do {
                let summary = try Self.openSummary(
                  openers[share], id: row.id, revision: row.revision, stored: row.stored,
                  sealed: UnsafeRawBufferPointer(rebasing: arena[row.summary]))
                guard include(summary) else { continue }
                let session = try Self.openSession(
                  openers[share], summary, revision: row.revision,
                  body: UnsafeRawBufferPointer(rebasing: arena[row.body]))
                if matches(session) { found.places.append(Place(date: summary.date, id: row.id)) }
              } catch {
                found.damaged.append(row.id)
              }
            }
          }
          results.withLock { $0[share] = found }
        }
        for found in results.withLock({ $0 }) {
          places += found.places
          damaged += found.damaged
        }
      }
      // The table's rows are the ledger's before any match is handed over; each read again
      // below by its id is one of them (its sealed columns open only under that id).
      try self.bind(summed, db)
      switch order {
      case .newestFirst:
        sortInPlace(&places) { SessionSummary.newestFirst($0.date, $0.id, $1.date, $1.id) }
      case .oldestFirst:
        sortInPlace(&places) { $0.date != $1.date ? $0.date < $1.date : $0.id < $1.id }
      }
      try self.open(places, db, openers, damaged: &damaged, transform: transform, body)
      return damaged.sorted()
    }
  }

  /// Brings sessions in, all or nothing, in one transaction. A session whose id is new is
  /// added; one already here is replaced only when the incoming copy was updated later (the
  /// newer edit wins); an identical one is left. A session this vault purged is left out
  /// (named), unless `restorePurged`, when it comes back and its tombstone goes in the same
  /// write; one in the trash is left there (named). With `dryRun`, nothing is written.
  public func importSessions(
    _ incoming: [Session], dryRun: Bool, restorePurged: Bool = false
  ) throws -> ImportCount {
    try importSessions(dryRun: dryRun, restorePurged: restorePurged) { take in
      for session in incoming { try take(session) }
    }
  }

  /// The same for sessions `produce` hands over one at a time (as an import file is read):
  /// each is written as it comes, inside the one transaction, so memory holds a few sessions
  /// however many there are (SQLite spills the transaction's pages to its write-ahead log).
  /// Anything `produce` throws undoes them all. With `overlap` (a source that cannot stall,
  /// such as a regular file) and a second core, `produce` runs on a thread of its own while
  /// this one seals and writes (ImportHandoff).
  public func importSessions(
    dryRun: Bool, restorePurged: Bool = false, overlap: Bool = false,
    _ produce: (_ take: (Session) throws -> Void) throws -> Void
  ) throws -> ImportCount {
    // The rows come in id order nowhere: each lands on a random page of the id index and of
    // the two session indexes, and a page pushed out of SQLite's 2 MiB cache is written to
    // the log and read back. 8 MiB more for the import's write (within its 64 MiB at a
    // million sessions) took a sixth off its system time at 100,000.
    try vault.withCacheSize(kibibytes: 8192) {
      try importAll(dryRun: dryRun, restorePurged: restorePurged, overlap: overlap, produce)
    }
  }

  private func importAll(
    dryRun: Bool, restorePurged: Bool, overlap: Bool,
    _ produce: (_ take: (Session) throws -> Void) throws -> Void
  ) throws -> ImportCount {
    try write(bulk: true) { db in
      var count = ImportCount()
      let rows = try ImportRows(db)
      let take = { (session: Session) throws -> Void in
        try self.take(session, dryRun: dryRun, restorePurged: restorePurged, rows, db, &count)
      }
      if overlap && ProcessInfo.processInfo.activeProcessorCount > 1 {
        try ImportHandoff.run(produce, take)
      } else {
        try produce(take)
      }
      return count
    }
  }

  /// One session of an import (see `importSessions`).
  private func take(
    _ session: Session, dryRun: Bool, restorePurged: Bool, _ rows: ImportRows, _ db: Database,
    _ count: inout ImportCount
  ) throws {
    let hex = session.id.hex
    // Most sessions of an import are new: a look at the revision says so without reading
    // and opening the row.
    let revision = try rows.revision(of: hex)
    let existing = revision == nil ? nil : try fetch(session.id, db)
    if existing == nil {
      let (purged, trashed) = try rows.gone(hex)
      if trashed {
        count.inTrash.append(session.id)
        return
      }
      if purged {
        guard restorePurged else {
          count.purged.append(session.id)
          return
        }
        count.restored.append(session.id)
        guard !dryRun else { return }
        try db.execute(sql: "DELETE FROM tombstone WHERE id = ?", arguments: [hex])
        try put(session, db)
        return
      }
      count.added += 1
      guard !dryRun else { return }
      // New: revision 1, written with the statements prepared once.
      let sealed = try sealColumns(session, revision: 1)
      try rows.insert(
        id: hex, status: session.status.stored.rawValue, summary: sealed.summary,
        body: sealed.body, revision: 1)
      if rows.reminders { try Self.clearReminderIfComplete(session, db) }
      return
    }
    // A session written without the passphrase (marked) never takes the place of one that
    // was not, either way round, whatever its times say: the marked one is kept apart under
    // a new id, and both are named.
    if let existing, (existing.addedSealed != nil) != (session.addedSealed != nil) {
      let fresh: SessionID
      if existing.addedSealed == nil {
        // The file's marked copy goes under an id made from the one it claims: imported
        // again, it finds itself there and is merged as any copy is (or left out, if that
        // copy was deleted since), rather than kept apart once more.
        // (Only a marked copy there is merged with: this never goes a step further.)
        let apart = Self.keptApartID(claimed: session.id)
        let gone = try rows.gone(apart.hex)
        let there = try rows.revision(of: apart.hex) == nil ? nil : try fetch(apart, db)
        if gone.purged || gone.trashed || there?.addedSealed != nil {
          try take(
            session.reidentified(as: apart), dryRun: dryRun, restorePurged: restorePurged, rows,
            db, &count)
          return
        }
        fresh = try there == nil && !Self.idTaken(apart, db) ? apart : freshID(db)
      } else {
        fresh = try freshID(db)
      }
      count.added += 1
      count.keptApart.append(.init(claimed: session.id, keptAs: fresh))
      guard !dryRun else { return }
      if existing.addedSealed != nil {
        try put(existing.reidentified(as: fresh), db)
        try db.execute(sql: "DELETE FROM session WHERE id = ?", arguments: [hex])
        try db.execute(sql: "DELETE FROM reminder WHERE id = ?", arguments: [hex])
        try put(session, db)
      } else {
        try put(session.reidentified(as: fresh), db)
      }
      return
    }
    // Notes carry their own ids and versions: they are merged as a sync merges them, so an
    // import never drops a note written here nor skips one the file adds.
    let notes = existing.map { NoteMerge.merge($0.notes, session.notes) } ?? session.notes
    // Merged, they may pass what a person may give a session (the file's alone never do:
    // the parser refuses them); an import that grows a session past it is refused, so that
    // a session stays one its export brings back in. (A sync's merge may go further.)
    if let existing, !notes.isEmpty {
      let bytes = Note.bytes(of: notes)
      let grew = notes.count > existing.notes.count || bytes > Note.bytes(of: existing.notes)
      if grew, notes.count > Note.maximumCount || bytes > Note.maximumTotalBytes {
        throw StoreError.importedNotesOverflow(id: session.id.short)
      }
    }
    if let existing {
      if existing == session || existing.updated >= session.updated {
        guard notes != existing.notes else {
          count.unchanged += 1
          return
        }
        count.updated += 1
        guard !dryRun else { return }
        var kept = existing
        kept.setNotes(notes)
        try put(kept, db)
        return
      }
      count.updated += 1
    }
    guard !dryRun else { return }
    // The marks of what was written without the passphrase are kept through an update (as
    // sync keeps them): a copy from before them never removes them.
    var taken = session
    if let existing { taken.keepMarks(of: existing) }
    taken.setNotes(notes)
    try put(taken, db)
  }

  /// How many sessions the vault holds.
  public func count() throws -> Int {
    try checkIfListingDidNot()
    return try read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM session") ?? 0 }
  }

  // MARK: - Rows

  private struct SealedRow {
    let summary: Data
    let body: Data
  }

  private func seal(_ session: Session, revision: UInt64) throws -> SealedRow {
    let sealed = try sealColumns(session, revision: revision)
    return SealedRow(summary: Data(sealed.summary), body: Data(sealed.body))
  }

  /// A session's two columns encoded and sealed at `revision`; the plaintexts wiped.
  private func sealColumns(_ session: Session, revision: UInt64) throws -> (
    summary: [UInt8], body: [UInt8]
  ) {
    // Never a row its own reader would refuse (notes out of order, past the readable bounds):
    // the write fails instead, and what the vault holds stays as it was.
    guard session.notesAreReadable else { throw StoreError.damagedRecord(id: session.id.short) }
    var summary = RecordCodec.encodeSummary(session)
    var body = RecordCodec.encodeBody(session)
    defer {
      wipe(&summary)
      wipe(&body)
    }
    let id = session.id.bytes
    return (
      try cipher.seal(summary, id: id, column: .summary, revision: revision),
      try cipher.seal(body, id: id, column: .body, revision: revision)
    )
  }

  private func openSummary(row: Row, id: SessionID, revision: UInt64) throws -> SessionSummary {
    let status = try row.decode(String.self, atIndex: 1)
    let sealed = try row.decode(Data.self, atIndex: 2)
    let summary = try cipher.open(
      Array(sealed), id: id.bytes, column: .summary, revision: revision
    ) { plain in
      try RecordCodec.decodeSummary(plain, id: id)
    }
    // The plaintext status column must agree with the sealed one, or it has been edited.
    guard summary.status.stored.rawValue == status else {
      throw StoreError.damagedRecord(id: id.short)
    }
    return summary
  }

  func fetch(_ id: SessionID, _ db: Database, trashed: Bool = false) throws -> Session {
    guard
      let row = try Row.fetchOne(
        db.cachedStatement(
          sql: trashed
            ? "SELECT id, status, summary, body, revision FROM trash WHERE id = ? AND outcome IS NULL"
            : "SELECT id, status, summary, body, revision FROM session WHERE id = ?"),
        arguments: [id.hex])
    else { throw StoreError.noMatch(prefix: id.short) }
    guard let stored = try? row.decode(Int64.self, atIndex: 4), StoredRange.isCounter(stored)
    else { throw StoreError.damagedRecord(id: id.short) }
    let revision = UInt64(stored)
    do {
      let summary = try openSummary(row: row, id: id, revision: revision)
      let sealedBody = try row.decode(Data.self, atIndex: 3)
      let body = try cipher.open(
        Array(sealedBody), id: id.bytes, column: .body, revision: revision
      ) { plain in
        try RecordCodec.decodeBody(plain)
      }
      return try Self.session(summary, body)
    } catch {
      if olderVersion(of: row, id: id, revision: revision) {
        throw StoreError.tampered(.olderVersion(id: id.short))
      }
      throw StoreError.damagedRecord(id: id.short)
    }
  }

  /// A whole session from its two opened columns; columns that do not make one session
  /// together are damage of its row.
  private static func session(_ summary: SessionSummary, _ body: RecordCodec.Body) throws
    -> Session
  {
    do {
      return try RecordCodec.session(summary, body)
    } catch {
      throw StoreError.damagedRecord(id: summary.id.short)
    }
  }

  /// Whether a row that does not open at its revision has a column that opens at an earlier
  /// one: an older version of it was put back. Only on the way to reporting the row.
  private func olderVersion(of row: Row, id: SessionID, revision: UInt64) -> Bool {
    guard revision > 0 else { return false }
    for (index, column) in [(2, RecordCipher.Column.summary), (3, .body)] {
      guard let sealed = try? row.decode(Data.self, atIndex: index) else { continue }
      let bytes = Array(sealed)
      // Newest first; a row is rarely written more than a few hundred times.
      for earlier in stride(from: revision - 1, through: max(revision, 1000) - 1000, by: -1)
      where (try? cipher.open(bytes, id: id.bytes, column: column, revision: earlier) { _ in 0 })
        != nil
      {
        return true
      }
    }
    return false
  }

  private func read<T>(_ body: (Database) throws -> T) throws -> T {
    try vault.read(body)
  }

  /// One keyed write: the vault is checked against its ledger first (unless this store checked
  /// the same stamp already), then changed, then stamped one generation on. In a tree ledger
  /// (construction 3) a store of point checks checks only the root first, and every write but
  /// a `bulk` one stamps only the leaves it touched, each checked as it was before
  /// (`Ledger.commitTracked`); a bulk write (one that changes most sessions) makes every leaf
  /// again from the rows, after the whole check.
  func write<T>(bulk: Bool = false, _ body: (Database) throws -> T) throws -> T {
    checkWhenListing = false
    var stamp: Ledger.Stamp?
    var stamped: Set<Int> = []
    var carried: LedgerEntries?
    if let kept = keptAtFirstWrite {
      keptAtFirstWrite = nil
      if let check = kept() { remember(check) }
    }
    let result = try vault.write { db in
      let current = try Ledger.stamp(db)
      if current == nil, try Ledger.hasRevisions(db) { throw StoreError.tampered(.ledger) }
      var start: Ledger.View?
      if let current {
        if pointChecks, !bulk, current.construction >= 3 {
          // The root, unless this store checked this very stamp already.
          start = try current == checked ? nil : ledger.verifyRoot(db, against: current)
        } else if current != checked || pointChecks {
          try ledger.verify(db, against: current)
          pointChecks = false
        }
      }
      guard let current, current.construction >= 3, !bulk else {
        try Ledger.settle(db)
        let result = try body(db)
        stamp = try ledger.commit(db, after: current)
        return result
      }
      let startView = try start ?? Ledger.View.readSkips(db)
      let tracking = try LedgerTree.Before.start(db)
      defer { tracking.stop() }
      try Ledger.settle(db)
      let result = try body(db)
      let touched = try tracking.finish()
      let made = try ledger.commitTracked(db, after: current, start: startView, before: touched)
      stamp = made.stamp
      stamped = made.leaves
      // Only ever a shortcut: a check that cannot be carried is not, and the write stands.
      carried =
        (try? carry(
          from: current, start: startView, before: touched, to: made.stamp,
          written: made.sessions, db))
        ?? nil
      return result
    }
    if let carried { ledgerEntries = carried }
    checked = stamp
    // The leaves a tracked write stamped were made from its own rows, in its transaction:
    // checked at the new stamp, so reading them again (`edit` resolves its id once more to
    // show it) reads no leaf twice. Every other leaf is checked again when read.
    checkedLeaves = stamped
    writes += 1
    if let stamp { onStamp?(stamp) }
    return result
  }

  /// Past this many sessions touched, a write carries no whole check (`carry`).
  static let carriedAtMost = 64

  /// The whole check of `stamp` (this store's, or one kept from an earlier command) carried
  /// through the tracked write that went from it to `after`, in the write's transaction: the
  /// sums less the entries the sessions it touched had (as `before` kept them; the write
  /// checked them against their leaves), plus the entries it stamped in their leaves
  /// (`written`); the newest with each touched session taken out and put back where its
  /// date goes. So the next `list -n` or `list --needs-reflection` checks the root, not the
  /// whole vault, after a command that wrote. Nil, and the next listing checks the whole
  /// vault, when there is no such check, sessions an undo restored were in play when the
  /// write began, it touched more than `carriedAtMost` sessions, or a summary it wrote does
  /// not open.
  ///
  /// The newest stay the newest of the vault: a session goes back among them only where it
  /// comes before the last of them, or where they named every session.
  private func carry(
    from stamp: Ledger.Stamp, start: Ledger.View, before: LedgerTree.Before,
    to after: Ledger.Stamp, written: [UInt8], _ db: Database
  ) throws -> LedgerEntries? {
    // This store's own check first; the newest from whichever names them with the same sums
    // (a store that checked the whole vault at opening names none).
    let checks = [ledgerEntries, remembered].compactMap { $0 }.filter { $0.stamp == stamp }
    guard derivedEntryKey != nil, let known = checks.first, known.undone.isEmpty,
      start.undone.isEmpty
    else { return nil }
    let touched = before.rows.values.joined().filter { $0.kind == .session }
    // None is restored by an undo after it: `commitTracked` settled the trash's outcomes.
    guard touched.count <= Self.carriedAtMost else { return nil }
    var entries = known.entries
    var newest =
      checks.first {
        !$0.newest.isEmpty && $0.entries.complete == entries.complete
          && $0.entries.waiting == entries.waiting
      }?.newest ?? []
    let namesEvery = newest.count == entries.complete.count &+ entries.waiting.count
    func status(_ entry: [UInt8]) -> SessionStatus? {
      guard entry.count == LedgerRows.sessionBytes else { return nil }
      return entry[17] == 2 ? .complete : entry[17] == 1 ? .needsReflection : nil
    }
    for row in touched {
      newest.removeAll { $0.id == row.id }
      guard let entry = row.entry else { continue }
      guard let status = status(entry) else { return nil }
      entry.withUnsafeBytes { entry in
        if status == .complete {
          entries.complete.remove(entry)
        } else {
          entries.waiting.remove(entry)
        }
      }
    }
    // What the write stamped (the leaves' entries), and each written session's date from the
    // summary it wrote, which opens only at that entry's revision and status.
    let opener = try cipher.makeOpener()
    let statement = try db.cachedStatement(
      sql: "SELECT revision, status, summary FROM session WHERE id = ?")
    let size = LedgerRows.sessionBytes
    for row in touched {
      let found = stride(from: 0, to: written.count - size + 1, by: size).first { start in
        row.id.withBytes { id in written[start + 1..<start + 17].elementsEqual(id) }
      }
      guard let found else { continue }
      let entry = Array(written[found..<found + size])
      guard let status = status(entry) else { return nil }
      let revision = entry.withUnsafeBytes {
        Int64(littleEndian: $0.loadUnaligned(fromByteOffset: 18, as: Int64.self))
      }
      try statement.setArguments([row.id.hex])
      let handle = statement.sqliteStatement
      defer { sqlite3_reset(handle) }
      guard try Self.step(handle, statement, db), sqlite3_column_int64(handle, 0) == revision,
        let summary = try? Self.openSummary(
          opener, id: row.id, revision: revision, stored: status, sealed: Self.blob(handle, 2))
      else { return nil }
      entry.withUnsafeBytes { entries.add($0, status: status) }
      let made = WholeCheck.Newest(id: row.id, revision: revision, date: summary.date)
      let at = newest.firstIndex { WholeCheck.Newest.newestFirst(made, $0) } ?? newest.endIndex
      if at < newest.endIndex || namesEvery { newest.insert(made, at: at) }
    }
    if newest.count > WholeCheck.newestAtMost { newest.removeSubrange(WholeCheck.newestAtMost...) }
    var carried = LedgerEntries(after, entries, undone: [], kept: true)
    carried.newest = newest
    return carried
  }

}
