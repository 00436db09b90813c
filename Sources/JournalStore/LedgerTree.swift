import CSQLiteHooks
import Foundation
import GRDB
import GRDBSQLite
import JournalCore
import JournalCrypto

/// The session entries a read of many rows handed over, one order-free sum a status
/// (`MultisetSum`, under the store's key for this process): compared with the same made from
/// the ledger's own indexes (`Ledger.verify`), they bind what a command showed to what the
/// ledger checked, whichever index or table order it read the rows in.
struct ListedEntries {
  var complete: MultisetSum
  var waiting: MultisetSum
  /// The status read (nil: both), whose sums are compared.
  let status: SessionStatus?

  init(status: SessionStatus?, key: [UInt8]) {
    self.status = status
    complete = MultisetSum(key: key)
    waiting = MultisetSum(key: key)
  }

  /// Adds one entry (as `Ledger.View.appendEntry` lays it out) of a session of `status`.
  mutating func add(_ entry: UnsafeRawBufferPointer, status: SessionStatus) {
    if status == .complete { complete.add(entry) } else { waiting.add(entry) }
  }

  /// Whether `ledger` holds the same entries of the status read.
  func same(as ledger: ListedEntries) -> Bool {
    (status == .complete || waiting == ledger.waiting)
      && (status == .needsReflection || complete == ledger.complete)
  }
}

/// The ledger's hash tree (construction 3, vault format 12; SECURITY.md, "The ledger"): the
/// entries of every session, tombstone and agreed sync row, in 65,536 leaves by the first two
/// bytes of their id, 256 nodes of 256 leaves each, and a root that the keyed tag covers.
///
/// A command about one session checks its own leaf, that leaf's node and the root, and so
/// reads a few hundred rows whatever the size of the journal; the commands that read every
/// row anyway (`list`, `export`, `verify`) check the whole tree. A keyed write changes only
/// the leaves it touched, after checking what they held before (`Ledger.commitTracked`).
///
/// The digests are unkeyed BLAKE2b-256 (what they hash is in the clear beside them); the tag
/// over the root is keyed. An empty leaf, and a node of empty leaves, is 32 zero bytes and is
/// not stored.
struct LedgerTree: Equatable {
  static let leafCount = 65_536
  static let nodeCount = 256
  static let digestBytes = 32
  static let zero = [UInt8](repeating: 0, count: digestBytes)

  /// Every leaf's digest, 32 bytes each in order of leaf (2 MiB): zeros for an empty leaf.
  var leaves = [UInt8](repeating: 0, count: leafCount * digestBytes)

  /// The leaf of an id: its first two bytes.
  static func leaf(of id: SessionID) -> Int {
    id.withBytes { Int($0[0]) << 8 | Int($0[1]) }
  }

  /// The leaf of an entry (kind ‖ id ‖ …).
  static func leaf(ofEntry entry: UnsafeRawBufferPointer) -> Int {
    Int(entry[1]) << 8 | Int(entry[2])
  }

  /// The lowest and highest stored id (32 lowercase hex digits) of a leaf.
  static func idRange(ofLeaf leaf: Int) -> (String, String) {
    // Written out by hand: String(format:) and String(repeating:) were a fifth of reading a
    // leaf, and a sync's write reads a leaf twice for each session it writes.
    var prefix = ""
    for shift in [12, 8, 4, 0] {
      prefix.unicodeScalars.append(UnicodeScalar(hexDigits[(leaf >> shift) & 0xf]))
    }
    return (prefix + lowTail, prefix + highTail)
  }
  private static let hexDigits = Array("0123456789abcdef".utf8)
  private static let lowTail = String(repeating: "0", count: 28)
  private static let highTail = String(repeating: "f", count: 28)

  /// A leaf's digest: BLAKE2b-256 of "JRNLLEAF" ‖ leaf (2 bytes, big-endian) ‖ its session
  /// entries by id ‖ its tombstone entries by id ‖ its sync entries by id; zeros when it has
  /// none.
  static func leafDigest(_ leaf: Int, entries: [UInt8]) -> [UInt8] {
    guard !entries.isEmpty else { return zero }
    var bytes = Array("JRNLLEAF".utf8)
    bytes.reserveCapacity(10 + entries.count)
    bytes.append(UInt8(leaf >> 8))
    bytes.append(UInt8(leaf & 0xFF))
    bytes += entries
    return KeyedHash.unkeyed(bytes)
  }

  /// A node's digest: BLAKE2b-256 of "JRNLNODE" ‖ node (1 byte) ‖ its 256 leaves' digests;
  /// zeros when every one of them is.
  static func nodeDigest(_ node: Int, leaves: ArraySlice<UInt8>) -> [UInt8] {
    guard leaves.contains(where: { $0 != 0 }) else { return zero }
    var bytes = Array("JRNLNODE".utf8)
    bytes.reserveCapacity(9 + leaves.count)
    bytes.append(UInt8(node))
    bytes += leaves
    return KeyedHash.unkeyed(bytes)
  }

  /// The root: BLAKE2b-256 of "JRNLROOT" ‖ the 256 nodes' digests.
  static func root(nodes: [UInt8]) -> [UInt8] {
    KeyedHash.unkeyed(Array("JRNLROOT".utf8) + nodes)
  }

  /// The digests of a node's leaves.
  func leaves(ofNode node: Int) -> ArraySlice<UInt8> {
    let size = Self.nodeCount * Self.digestBytes
    return leaves[node * size..<(node + 1) * size]
  }

  func leaf(_ leaf: Int) -> ArraySlice<UInt8> {
    leaves[leaf * Self.digestBytes..<(leaf + 1) * Self.digestBytes]
  }

  mutating func setLeaf(_ leaf: Int, _ digest: [UInt8]) {
    leaves.replaceSubrange(
      leaf * Self.digestBytes..<(leaf + 1) * Self.digestBytes, with: digest)
  }

  /// Every node's digest, in order: each hashed from the leaves where they lie, as
  /// `nodeDigest` makes it.
  func nodes() -> [UInt8] {
    var nodes = [UInt8](repeating: 0, count: Self.nodeCount * Self.digestBytes)
    let scratch = UnkeyedScratch()
    var head = Array("JRNLNODE".utf8) + [0]
    let size = Self.nodeCount * Self.digestBytes
    leaves.withUnsafeBytes { leaves in
      nodes.withUnsafeMutableBytes { out in
        for node in 0..<Self.nodeCount {
          let mine = UnsafeRawBufferPointer(rebasing: leaves[node * size..<(node + 1) * size])
          // A node of empty leaves is zeros, as the nodes array starts.
          guard mine.contains(where: { $0 != 0 }) else { continue }
          head[8] = UInt8(node)
          head.withUnsafeBytes { head in
            scratch.digest(
              head, mine,
              into: UnsafeMutableRawBufferPointer(
                rebasing: out[node * Self.digestBytes..<(node + 1) * Self.digestBytes]))
          }
        }
      }
    }
    return nodes
  }

  // MARK: - Entries into leaves

  /// Builds the leaves from entries given leaf by leaf in ascending order and, within a leaf,
  /// in the order the digest takes them.
  struct Builder {
    var tree = LedgerTree()
    private var current = -1
    private var pending: [UInt8] = []
    /// The leaf digests' scratch state and prefix, made once for every leaf.
    private let scratch = UnkeyedScratch()
    private var head = Array("JRNLLEAF".utf8) + [0, 0]

    /// Adds one entry of leaf `leaf`; false when the leaves come out of order.
    mutating func add(_ entry: UnsafeRawBufferPointer, leaf: Int) -> Bool {
      guard leaf >= current else { return false }
      if leaf != current {
        flush()
        current = leaf
      }
      pending.append(contentsOf: entry)
      return true
    }

    mutating func finish() -> LedgerTree {
      flush()
      return tree
    }

    /// The current leaf's digest, as `leafDigest` makes it, hashed into its place in the
    /// tree: no array a leaf.
    private mutating func flush() {
      guard current >= 0, !pending.isEmpty else { return }
      head[8] = UInt8(current >> 8)
      head[9] = UInt8(current & 0xFF)
      let at = current * LedgerTree.digestBytes
      head.withUnsafeBytes { head in
        pending.withUnsafeBytes { pending in
          tree.leaves.withUnsafeMutableBytes { leaves in
            scratch.digest(
              head, pending,
              into: UnsafeMutableRawBufferPointer(
                rebasing: leaves[at..<at + LedgerTree.digestBytes]))
          }
        }
      }
      pending.removeAll(keepingCapacity: true)
    }
  }

  /// The tree of entries held in memory (a `LedgerRows`): sessions, tombstones and agreed
  /// sync rows in any order.
  static func make(sessions: [UInt8], tombstones: [UInt8], syncRows: [UInt8]) -> LedgerTree {
    let bytes = [sessions, tombstones, syncRows]
    let sizes = [LedgerRows.sessionBytes, LedgerRows.tombstoneBytes, LedgerRows.syncRowBytes]
    // Each part's entries in order of id (bytes 1 to 16), as offsets into its bytes: no array
    // an entry (at a million sessions, 70 MB and a million allocations).
    let orders = (0..<3).map { part in
      bytes[part].withUnsafeBytes { raw -> [Int] in
        guard let base = raw.baseAddress else { return [] }
        var order = Array(stride(from: 0, to: raw.count, by: sizes[part]))
        order.sort { a, b in memcmp(base + a + 1, base + b + 1, 16) < 0 }
        return order
      }
    }
    var positions = [0, 0, 0]
    var builder = Builder()
    func leaf(_ part: Int) -> Int {
      guard positions[part] < orders[part].count else { return Int.max }
      let start = orders[part][positions[part]]
      return Int(bytes[part][start + 1]) << 8 | Int(bytes[part][start + 2])
    }
    while true {
      let next = min(leaf(0), leaf(1), leaf(2))
      guard next != Int.max else { break }
      for part in 0..<3 {
        while leaf(part) == next {
          let start = orders[part][positions[part]]
          _ = bytes[part].withUnsafeBytes { raw in
            builder.add(
              UnsafeRawBufferPointer(rebasing: raw[start..<start + sizes[part]]), leaf: next)
          }
          positions[part] += 1
        }
      }
    }
    return builder.finish()
  }

  // MARK: - Reading the vault

  /// The entries of one leaf as the rows are now, in the digest's order: with `skipping`
  /// sessions counted in the trash and tombstones not yet there (an undo or a purge since the
  /// last keyed write), and `replacing` what a write changed put back as it was (`Before`).
  static func entries(
    ofLeaf leaf: Int, _ db: Database, skippingSessions undone: Set<SessionID>,
    skippingTombstones purged: Set<SessionID>, replacing before: Before? = nil
  ) throws -> [UInt8] {
    let (low, high) = idRange(ofLeaf: leaf)
    // Stepped with SQLite's own calls: through GRDB's `Row`s a leaf cost ~130,000
    // instructions, and a sync's write reads two for each session it writes.
    var sessions: [SessionID: [UInt8]] = [:]
    for status in [SessionStatus.complete, .needsReflection] {
      try rows(
        """
        SELECT id, revision FROM session INDEXED BY session_ledger
        WHERE status = ? COLLATE BINARY AND id COLLATE BINARY BETWEEN ? AND ?
        """, [status.rawValue, low, high], db
      ) { handle, id in
        guard sqlite3_column_type(handle, 1) == SQLITE_INTEGER,
          case let revision = sqlite3_column_int64(handle, 1), revision >= 0
        else { throw StoreError.tampered(.rows) }
        // An id twice (a table rebuilt without its unique index) would count as one row here
        // and as two in the whole check: damage, never the last row read.
        guard
          sessions.updateValue(
            sessionEntry(id: id, status: status, revision: UInt64(revision)), forKey: id) == nil
        else { throw StoreError.tampered(.rows) }
      }
    }
    var tombstones: [SessionID: [UInt8]] = [:]
    try rows(
      "SELECT id FROM tombstone WHERE id COLLATE BINARY BETWEEN ? AND ?", [low, high], db
    ) { _, id in
      guard tombstones.updateValue(tombstoneEntry(id: id), forKey: id) == nil else {
        throw StoreError.tampered(.rows)
      }
    }
    var syncRows: [SessionID: [UInt8]] = [:]
    try rows(
      """
      SELECT id, revision, generation FROM sync_row INDEXED BY sync_row_revision
      WHERE id COLLATE BINARY BETWEEN ? AND ?
      """, [low, high], db
    ) { handle, id in
      guard sqlite3_column_type(handle, 1) == SQLITE_INTEGER,
        sqlite3_column_type(handle, 2) == SQLITE_INTEGER
      else { throw StoreError.tampered(.rows) }
      let entry = syncEntry(
        id: id, revision: sqlite3_column_int64(handle, 1),
        generation: sqlite3_column_int64(handle, 2))
      guard syncRows.updateValue(entry, forKey: id) == nil else {
        throw StoreError.tampered(.rows)
      }
    }
    if let before {
      before.restore(&sessions, kind: .session, leaf: leaf)
      before.restore(&tombstones, kind: .tombstone, leaf: leaf)
      before.restore(&syncRows, kind: .syncRow, leaf: leaf)
    }
    for id in undone { sessions[id] = nil }
    for id in purged { tombstones[id] = nil }
    var entries: [UInt8] = []
    for part in [sessions, tombstones, syncRows] {
      for id in part.keys.sorted() { entries += part[id] ?? [] }
    }
    return entries
  }

  /// The session entries of `entries` (a leaf's, as `entries(ofLeaf:)` lays them out: the
  /// sessions' first, then the tombstones' and the sync rows', each led by its kind).
  static func sessionEntries(in entries: [UInt8]) -> ArraySlice<UInt8> {
    let size = LedgerRows.sessionBytes
    var end = 0
    while end + size <= entries.count, entries[end] == 1 { end += size }
    return entries[..<end]
  }

  /// Runs `sql` (cached) with `texts` bound, and calls `row` with each row and the id in its
  /// first column; an id that is not one is damage. The ledger's reads of many rows by id.
  static func rows(
    _ sql: String, _ texts: [String], _ db: Database,
    _ row: (SQLiteStatement, SessionID) throws -> Void
  ) throws {
    let statement = try db.cachedStatement(sql: sql)
    let handle = statement.sqliteStatement
    sqlite3_reset(handle)
    defer {
      sqlite3_reset(handle)
      sqlite3_clear_bindings(handle)
    }
    for (index, text) in texts.enumerated() {
      guard
        sqlite3_bind_text(handle, Int32(index + 1), text, -1, SessionStore.transient) == SQLITE_OK
      else {
        throw DatabaseError(
          resultCode: ResultCode(rawValue: sqlite3_errcode(db.sqliteConnection)),
          message: String(cString: sqlite3_errmsg(db.sqliteConnection)), sql: sql)
      }
    }
    while try SessionStore.step(handle, statement, db) {
      guard let text = sqlite3_column_text(handle, 0) else { throw StoreError.tampered(.rows) }
      let digits = UnsafeRawBufferPointer(start: text, count: Int(sqlite3_column_bytes(handle, 0)))
      // Exactly as journal stores an id: a looser reading would make two rows one id.
      guard let id = SessionID(storedDigits: digits) else { throw StoreError.tampered(.rows) }
      try row(handle, id)
    }
  }

  static func sessionEntry(id: SessionID, status: SessionStatus, revision: UInt64) -> [UInt8] {
    var entry: [UInt8] = [1]
    id.withBytes { entry.append(contentsOf: $0) }
    entry.append(status == .complete ? 2 : 1)
    entry.append(littleEndian: revision)
    return entry
  }

  static func tombstoneEntry(id: SessionID) -> [UInt8] {
    var entry: [UInt8] = [3]
    id.withBytes { entry.append(contentsOf: $0) }
    return entry
  }

  static func syncEntry(id: SessionID, revision: Int64, generation: Int64) -> [UInt8] {
    var entry: [UInt8] = [5]
    id.withBytes { entry.append(contentsOf: $0) }
    entry.append(littleEndian: UInt64(bitPattern: revision))
    entry.append(littleEndian: UInt64(bitPattern: generation))
    return entry
  }

  /// The leaves' and nodes' digests as stored; a row out of range or of the wrong size is
  /// the ledger edited.
  static func stored(_ db: Database) throws -> (leaves: LedgerTree, nodes: [UInt8]) {
    var tree = LedgerTree()
    tree.leaves = try storedDigests(
      db, sql: "SELECT leaf, digest FROM ledger_leaf", range: 0..<leafCount)
    return (tree, try storedNodes(db))
  }

  /// The 256 nodes' digests as stored (zeros where none is).
  static func storedNodes(_ db: Database) throws -> [UInt8] {
    try storedDigests(
      db, sql: "SELECT node, digest FROM ledger_node", range: 0..<nodeCount)
  }

  /// The stored digests of one node's leaves.
  static func storedLeaves(ofNode node: Int, _ db: Database) throws -> [UInt8] {
    try storedDigests(
      db,
      sql: """
        SELECT leaf, digest FROM ledger_leaf
        WHERE leaf BETWEEN \(node * nodeCount) AND \(node * nodeCount + nodeCount - 1)
        """, range: node * nodeCount..<(node + 1) * nodeCount)
  }

  /// Digests of the rows `sql` reads (index, digest), for the indexes in `range`, 32 bytes
  /// each in order (zeros where no row is), stepped with SQLite's own calls: every command
  /// about one session reads a few hundred. A row out of range, of another size or of zeros
  /// is the ledger edited.
  private static func storedDigests(_ db: Database, sql: String, range: Range<Int>) throws
    -> [UInt8]
  {
    var digests = [UInt8](repeating: 0, count: range.count * digestBytes)
    let statement = try db.cachedStatement(sql: sql)
    let handle = statement.sqliteStatement
    sqlite3_reset(handle)
    defer { sqlite3_reset(handle) }
    try digests.withUnsafeMutableBytes { out in
      while true {
        let code = sqlite3_step(handle)
        if code == SQLITE_DONE { break }
        guard code == SQLITE_ROW else {
          throw DatabaseError(
            resultCode: ResultCode(rawValue: code),
            message: String(cString: sqlite3_errmsg(db.sqliteConnection)), sql: sql)
        }
        let index = Int(sqlite3_column_int64(handle, 0))
        guard sqlite3_column_type(handle, 0) == SQLITE_INTEGER, range.contains(index),
          sqlite3_column_type(handle, 1) == SQLITE_BLOB,
          sqlite3_column_bytes(handle, 1) == Int32(digestBytes),
          let blob = sqlite3_column_blob(handle, 1)
        else { throw StoreError.tampered(.ledger) }
        let digest = UnsafeRawBufferPointer(start: blob, count: digestBytes)
        guard digest.contains(where: { $0 != 0 }) else { throw StoreError.tampered(.ledger) }
        out.baseAddress?.advanced(by: (index - range.lowerBound) * digestBytes)
          .copyMemory(from: blob, byteCount: digestBytes)
      }
    }
    return digests
  }

  /// Stores this tree in place of what is stored: only the leaves and nodes that differ are
  /// written (a write that made every leaf again changed few of them, or all).
  func store(_ db: Database) throws {
    let existing = try? Self.stored(db)
    if existing == nil {
      // Digests journal never writes (the ledger edited, and now trusted): made anew.
      try db.execute(sql: "DELETE FROM ledger_leaf; DELETE FROM ledger_node")
    }
    let stored = existing?.leaves ?? LedgerTree()
    let storedNodes =
      existing?.nodes ?? [UInt8](repeating: 0, count: Self.nodeCount * Self.digestBytes)
    for leaf in 0..<Self.leafCount where self.leaf(leaf) != stored.leaf(leaf) {
      try Self.store(Array(self.leaf(leaf)), table: "ledger_leaf", column: "leaf", at: leaf, db)
    }
    let nodes = nodes()
    let size = Self.digestBytes
    for node in 0..<Self.nodeCount {
      let digest = Array(nodes[node * size..<(node + 1) * size])
      guard digest != Array(storedNodes[node * size..<(node + 1) * size]) else { continue }
      try Self.store(digest, table: "ledger_node", column: "node", at: node, db)
    }
  }

  /// Stores one digest (a leaf's or a node's), removing its row when it is zeros.
  static func store(_ digest: [UInt8], table: String, column: String, at index: Int, _ db: Database)
    throws
  {
    if digest == zero {
      try db.cachedStatement(sql: "DELETE FROM \(table) WHERE \(column) = ?").execute(
        arguments: [index])
    } else {
      try db.cachedStatement(
        sql: "INSERT OR REPLACE INTO \(table) (\(column), digest) VALUES (?, ?)"
      ).execute(arguments: [index, Data(digest)])
    }
  }

  /// The whole tree as the rows are now, read in one pass over the ledger's narrow indexes
  /// (the two statuses' ranges merged by id), the tombstones and the agreed sync rows, leaf
  /// by leaf; nothing kept per row but, with `keep`, the entries themselves (for this
  /// computer's record). Sessions in `undone` count as still in the trash and tombstones in
  /// `purged` as not yet there.
  ///
  /// With `listed`, each status's session entries are also added to its sum, as a read of
  /// many rows summed the rows it handed over (`SessionStore.scan`).
  static func read(
    _ db: Database, skippingSessions undone: Set<SessionID>,
    skippingTombstones purged: Set<SessionID>, keep: Bool,
    into kept: inout (sessions: [UInt8], tombstones: [UInt8], syncRows: [UInt8]),
    listed: inout ListedEntries?
  ) throws -> LedgerTree {
    let complete = try Cursor(
      db,
      sql: """
        SELECT id, revision FROM session INDEXED BY session_ledger WHERE status = 'complete'
        ORDER BY id
        """, kind: 1, status: 2)
    let waiting = try Cursor(
      db,
      sql: """
        SELECT id, revision FROM session INDEXED BY session_ledger
        WHERE status = 'needs_reflection' ORDER BY id
        """, kind: 1, status: 1)
    let tombstones = try Cursor(db, sql: "SELECT id FROM tombstone ORDER BY id", kind: 3)
    let syncRows = try Cursor(
      db,
      sql: """
        SELECT id, revision, generation FROM sync_row INDEXED BY sync_row_revision ORDER BY id
        """, kind: 5)
    var builder = Builder()
    while true {
      let leaf = min(complete.leaf, waiting.leaf, tombstones.leaf, syncRows.leaf)
      guard leaf != Int.max else { break }
      // The sessions of this leaf, the two ranges merged by id.
      while complete.leaf == leaf || waiting.leaf == leaf {
        let next =
          waiting.leaf != leaf || (complete.leaf == leaf && complete.precedes(waiting))
          ? complete : waiting
        if undone.isEmpty || !undone.contains(next.id) {
          guard next.add(to: &builder) else { throw StoreError.tampered(.rows) }
          if keep { kept.sessions += next.entry }
          if listed != nil {
            let status: SessionStatus = next === complete ? .complete : .needsReflection
            next.withEntry { listed?.add($0, status: status) }
          }
        }
        try next.advance()
      }
      while tombstones.leaf == leaf {
        if purged.isEmpty || !purged.contains(tombstones.id) {
          guard tombstones.add(to: &builder) else { throw StoreError.tampered(.rows) }
          if keep { kept.tombstones += tombstones.entry }
        }
        try tombstones.advance()
      }
      while syncRows.leaf == leaf {
        guard syncRows.add(to: &builder) else { throw StoreError.tampered(.rows) }
        if keep { kept.syncRows += syncRows.entry }
        try syncRows.advance()
      }
    }
    return builder.finish()
  }

  /// One range of rows read in order of id with SQLite's own calls, as ledger entries. The
  /// entry is made in place in one buffer (a whole check steps every session's entry here:
  /// an array emptied and appended to, a slice compared, cost ~2,900 instructions a row).
  private final class Cursor {
    let statement: Statement
    let db: Database
    let kind: UInt8
    let status: UInt8
    /// The current row's entry: the first `count` bytes (33 at most: a sync row's).
    private var bytes = [UInt8](repeating: 0, count: 33)
    private var count = 0
    /// The current row's leaf; Int.max once the rows are done.
    private(set) var leaf = Int.max

    init(_ db: Database, sql: String, kind: UInt8, status: UInt8 = 0) throws {
      self.db = db
      self.statement = try db.makeStatement(sql: sql)
      self.kind = kind
      self.status = status
      try advance()
    }

    var entry: ArraySlice<UInt8> { bytes[0..<count] }

    var id: SessionID { SessionID(randomBytes: Array(bytes[1..<17])) }

    func withEntry<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
      try bytes.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
    }

    func precedes(_ other: Cursor) -> Bool {
      bytes.withUnsafeBytes { mine in
        other.bytes.withUnsafeBytes { theirs in
          guard let mine = mine.baseAddress, let theirs = theirs.baseAddress else { return false }
          return memcmp(mine + 1, theirs + 1, 16) < 0
        }
      }
    }

    func add(to builder: inout Builder) -> Bool {
      withEntry { builder.add($0, leaf: leaf) }
    }

    func advance() throws {
      let handle = statement.sqliteStatement
      let code = sqlite3_step(handle)
      if code == SQLITE_DONE {
        leaf = Int.max
        return
      }
      guard code == SQLITE_ROW else {
        throw DatabaseError(
          resultCode: ResultCode(rawValue: code),
          message: String(cString: sqlite3_errmsg(db.sqliteConnection)), sql: statement.sql)
      }
      guard let digits = sqlite3_column_text(handle, 0), sqlite3_column_bytes(handle, 0) == 32,
        let id = SessionID(storedDigits: UnsafeRawBufferPointer(start: digits, count: 32))
      else { throw StoreError.tampered(.rows) }
      var first: Int64 = 0
      var second: Int64 = 0
      switch kind {
      case 1:
        guard sqlite3_column_type(handle, 1) == SQLITE_INTEGER,
          sqlite3_column_int64(handle, 1) >= 0
        else { throw StoreError.tampered(.rows) }
        first = sqlite3_column_int64(handle, 1)
      case 5:
        guard sqlite3_column_type(handle, 1) == SQLITE_INTEGER,
          sqlite3_column_type(handle, 2) == SQLITE_INTEGER
        else { throw StoreError.tampered(.rows) }
        first = sqlite3_column_int64(handle, 1)
        second = sqlite3_column_int64(handle, 2)
      default: break
      }
      // kind ‖ id ‖ (session: status ‖ revision | sync row: revision ‖ generation), as
      // `sessionEntry`, `tombstoneEntry` and `syncEntry` lay them out.
      count = bytes.withUnsafeMutableBytes { out in
        out[0] = kind
        id.withBytes { UnsafeMutableRawBufferPointer(rebasing: out[1..<17]).copyMemory(from: $0) }
        switch kind {
        case 1:
          out[17] = status
          out.storeBytes(of: UInt64(first).littleEndian, toByteOffset: 18, as: UInt64.self)
          return 26
        case 5:
          out.storeBytes(
            of: UInt64(bitPattern: first).littleEndian, toByteOffset: 17, as: UInt64.self)
          out.storeBytes(
            of: UInt64(bitPattern: second).littleEndian, toByteOffset: 25, as: UInt64.self)
          return 33
        default:
          return 17
        }
      }
      leaf = Int(bytes[1]) << 8 | Int(bytes[2])
    }
  }

  // MARK: - What a write changed

  /// What the rows a keyed write touched held before it (kept in memory by `Tracking`): so
  /// that the leaves it changes are checked as they were before they are stamped as they are.
  struct Before {
    enum Kind: Int { case session = 1, tombstone = 3, syncRow = 5 }
    struct Row {
      let kind: Kind
      let id: SessionID
      /// The entry the row made before the write; nil when there was no row.
      let entry: [UInt8]?
    }
    /// The rows kept, by the leaf they are in (a write of a thousand sessions restores a
    /// thousand leaves: each looks at its own rows, not at every row).
    private(set) var rows: [Int: [Row]] = [:]

    var leaves: Set<Int> { Set(rows.keys) }

    mutating func add(_ row: Row) {
      rows[LedgerTree.leaf(of: row.id), default: []].append(row)
    }

    func restore(_ entries: inout [SessionID: [UInt8]], kind: Kind, leaf: Int) {
      for row in rows[leaf] ?? [] where row.kind == kind {
        entries[row.id] = row.entry
      }
    }

    /// Starts keeping what the rows a write touches held before it, until the tracking's
    /// `finish` (or `stop`, when the write fails).
    static func start(_ db: Database) throws -> Tracking {
      try Tracking(db)
    }
  }

  /// What a keyed write's rows held before it, kept through SQLite's pre-update hook: SQLite
  /// calls it before each row of the connection is inserted, updated or deleted (by any
  /// statement, a trigger's and a `REPLACE`'s included), with the row as it was. The first
  /// time a (kind, id) comes is the time before the write; later ones are the write's own.
  ///
  /// Temporary triggers kept this before (formats 12 and 13): made on every connection that
  /// wrote, they were an eighth of the instructions of `edit`, and every statement that wrote
  /// a session compiled them again. The hook costs a call per row changed.
  ///
  /// The hook is registered, doing nothing, as each writable connection is set up
  /// (`register`): SQLite decides when it prepares a `DELETE` with no `WHERE` whether to
  /// empty the table at once, row by row unseen, and with a hook registered it never does.
  /// A write's tracking gives the hook its context from `start` to `stop`.
  final class Tracking {
    private struct Key: Hashable {
      let kind: Before.Kind
      let id: SessionID
    }
    /// A row as it was: whether it was there; its status (session), nil where not text; and
    /// its two numbers (session: revision; sync row: revision, generation), nil where not an
    /// integer.
    private struct Kept {
      let present: Bool
      let status: String?
      let first: Int64?
      let second: Int64?
    }
    private let connection: OpaquePointer
    private var kept: [Key: Kept] = [:]
    /// A row whose id was not as journal stores one, or whose columns did not read.
    private var malformed = false
    private var tracking = true
    /// The columns read, by table: the id, and the session's status and revision, the sync
    /// row's revision and generation (their places in the table as this vault made it).
    private let session: (id: Int32, status: Int32, revision: Int32)
    private let tombstone: Int32
    private let syncRow: (id: Int32, revision: Int32, generation: Int32)

    /// The hook, doing nothing until a tracking gives it a context.
    private static let hook: journal_preupdate_callback = {
      context, connection, operation, database, table, _, _ in
      guard let context, let connection, let database, let table else { return }
      Unmanaged<Tracking>.fromOpaque(context).takeUnretainedValue().changing(
        connection, operation, database, table)
    }

    /// Registers the hook, doing nothing, on a writable connection being set up.
    static func register(_ db: Database) {
      guard let connection = db.sqliteConnection else { return }
      _ = journal_preupdate_hook(connection, hook, nil)
    }

    fileprivate init(_ db: Database) throws {
      guard let connection = db.sqliteConnection else { throw StoreError.tampered(.rows) }
      self.connection = connection
      // The hook's column numbers count every column the table declares, generated and
      // hidden ones too: a table with any such (journal makes none) is not read by place.
      func places(_ table: String, _ names: [String]) throws -> [Int32] {
        var columns: [String] = []
        for row in try Row.fetchAll(
          db.cachedStatement(
            sql: "SELECT name, hidden FROM pragma_table_xinfo(?, 'main') ORDER BY cid"),
          arguments: [table])
        {
          guard let name = try? row.decode(String.self, atIndex: 0),
            (try? row.decode(Int64.self, atIndex: 1)) == 0
          else { throw StoreError.tampered(.rows) }
          columns.append(name)
        }
        return try names.map { name in
          guard let place = columns.firstIndex(of: name) else { throw StoreError.tampered(.rows) }
          return Int32(place)
        }
      }
      let session = try places("session", ["id", "status", "revision"])
      self.session = (session[0], session[1], session[2])
      tombstone = try places("tombstone", ["id"])[0]
      let syncRow = try places("sync_row", ["id", "revision", "generation"])
      self.syncRow = (syncRow[0], syncRow[1], syncRow[2])
      let previous = journal_preupdate_hook(
        connection, Self.hook, Unmanaged.passRetained(self).toOpaque())
      if let previous {
        // Another tracking never stopped (every `start` is paired with a `stop`): its rows
        // would count as this write's. Put back, and the write refused, not checked wrong.
        _ = journal_preupdate_hook(connection, Self.hook, previous)
        Unmanaged.passUnretained(self).release()
        tracking = false
        throw StoreError.database(
          code: SQLITE_MISUSE, message: "a keyed write began inside another")
      }
    }

    /// Stops keeping (the hook left doing nothing); what was kept is dropped. Safe to call
    /// again.
    func stop() {
      guard tracking else { return }
      tracking = false
      _ = journal_preupdate_hook(connection, Self.hook, nil)
      Unmanaged.passUnretained(self).release()
    }

    /// What was kept since `start`; keeping stops.
    func finish() throws -> Before {
      stop()
      guard !malformed else { throw StoreError.tampered(.rows) }
      var before = Before()
      // Each (kind, id) once, so the order they are added in does not matter.
      for (key, row) in kept {
        let id = key.id
        var entry: [UInt8]?
        if row.present {
          switch key.kind {
          case .session:
            // A status of neither kind was in no range of the ledger: it counted as no row.
            if let text = row.status, let status = SessionStatus(rawValue: text),
              Ledger.View.statusByte(text) != nil
            {
              guard let revision = row.first, revision >= 0 else {
                throw StoreError.tampered(.rows)
              }
              entry = sessionEntry(id: id, status: status, revision: UInt64(revision))
            }
          case .tombstone:
            entry = tombstoneEntry(id: id)
          case .syncRow:
            guard let revision = row.first, let generation = row.second else {
              throw StoreError.tampered(.rows)
            }
            entry = syncEntry(id: id, revision: revision, generation: generation)
          }
        }
        before.add(Before.Row(kind: key.kind, id: id, entry: entry))
      }
      return before
    }

    /// The hook: a row of `table` is about to change.
    private func changing(
      _ connection: OpaquePointer, _ operation: Int32, _ database: UnsafePointer<CChar>,
      _ table: UnsafePointer<CChar>
    ) {
      // Names as the schema spells them: SQLite matches them without regard to case.
      guard sqlite3_stricmp(database, "main") == 0 else { return }
      let kind: Before.Kind
      let columns: (id: Int32, status: Int32?, first: Int32?, second: Int32?)
      if sqlite3_stricmp(table, "session") == 0 {
        kind = .session
        columns = (session.id, session.status, session.revision, nil)
      } else if sqlite3_stricmp(table, "tombstone") == 0 {
        kind = .tombstone
        columns = (tombstone, nil, nil, nil)
      } else if sqlite3_stricmp(table, "sync_row") == 0 {
        kind = .syncRow
        columns = (syncRow.id, nil, syncRow.revision, syncRow.generation)
      } else {
        return
      }
      // The row as it was (update, delete), kept with what it held; the row as it will be
      // (insert, update: its id may be new), kept as none if not seen before. A row a
      // `REPLACE` removes comes first, as a delete of its own.
      if operation == SQLITE_DELETE || operation == SQLITE_UPDATE {
        keep(kind, columns, present: true, read: journal_preupdate_old)
      }
      if operation == SQLITE_INSERT || operation == SQLITE_UPDATE {
        keep(kind, columns, present: false, read: journal_preupdate_new)
      }
    }

    private func keep(
      _ kind: Before.Kind, _ columns: (id: Int32, status: Int32?, first: Int32?, second: Int32?),
      present: Bool,
      read: (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Int32
    ) {
      func value(_ column: Int32) -> OpaquePointer? {
        var value: OpaquePointer?
        guard read(connection, column, &value) == SQLITE_OK, let value else {
          malformed = true
          return nil
        }
        return value
      }
      guard let idValue = value(columns.id) else { return }
      // A blob id is in no leaf (a blob sorts after every text, outside every leaf's range of
      // ids): nothing the tree counts, so not kept, whatever it holds, and an undo still puts
      // back, row by row, even a trash row of a blob id. A text id must be exactly as journal
      // stores one, else two rows could be kept as one.
      if sqlite3_value_type(idValue) == SQLITE_BLOB { return }
      guard sqlite3_value_type(idValue) == SQLITE_TEXT, let text = sqlite3_value_text(idValue),
        let id = SessionID(
          storedDigits: UnsafeRawBufferPointer(
            start: text, count: Int(sqlite3_value_bytes(idValue))))
      else {
        malformed = true
        return
      }
      let key = Key(kind: kind, id: id)
      guard kept[key] == nil else { return }
      guard present else {
        kept[key] = Kept(present: false, status: nil, first: nil, second: nil)
        return
      }
      kept[key] = Kept(
        present: true, status: columns.status.flatMap(value).flatMap(Self.text),
        first: columns.first.flatMap(value).flatMap(Self.integer),
        second: columns.second.flatMap(value).flatMap(Self.integer))
    }

    /// A text value; nil for any other type (a status of another type is in no range of the
    /// ledger, as `entries(ofLeaf:)` reads it).
    private static func text(_ value: OpaquePointer) -> String? {
      guard sqlite3_value_type(value) == SQLITE_TEXT else { return nil }
      // The text first, then its length (SQLite's order: the text may be converted).
      guard let bytes = sqlite3_value_text(value) else { return nil }
      let count = Int(sqlite3_value_bytes(value))
      return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }

    private static func integer(_ value: OpaquePointer) -> Int64? {
      sqlite3_value_type(value) == SQLITE_INTEGER ? sqlite3_value_int64(value) : nil
    }
  }
}
