import Foundation
import GRDB
import GRDBSQLite
import JournalCore
import JournalCrypto

/// The ledger's generation and tag as stored: what this computer records of the last state
/// of a vault it saw (see JournalApp's VaultWitness). Two stamps are equal when their
/// generation and tag are; the rows they were made over, when known, ride along.
public struct LedgerStamp: Equatable, Sendable {
  public let generation: UInt64
  public let tag: [UInt8]
  /// How the tag was made: 1 before format 11, 2 since (the vault's settings covered too).
  /// Only the vault's own row says; a record or an agent compares generation and tag.
  var construction = Ledger.construction
  /// The entries the tag covers, when this stamp was just checked or written.
  public let rows: LedgerRows?

  public init(generation: UInt64, tag: [UInt8], rows: LedgerRows? = nil) {
    self.generation = generation
    self.tag = tag
    self.rows = rows
  }

  public static func == (a: LedgerStamp, b: LedgerStamp) -> Bool {
    a.generation == b.generation && a.tag == b.tag
  }
}

/// What a whole check of a vault with a tree ledger summed (`SessionStore.wholeCheck`), kept
/// between commands under the ledger's key (never in the vault): the stamp it checked, the
/// sessions an undo had restored then, and the order-free sums of the session entries of each
/// status (`MultisetSum.bytes`, under a key derived from the ledger's), and, from a `list`
/// of every session, the newest sessions it showed (at most `newestAtMost`, newest first)
/// with the revision the check saw of each and its date. A keyed write about a few sessions
/// at the check's stamp carries it to its own (`SessionStore.carry`).
public struct WholeCheck: Equatable, Sendable {
  public let generation: UInt64
  public let tag: [UInt8]
  public let undone: [SessionID]
  public let complete: [UInt8]
  public let waiting: [UInt8]
  public internal(set) var newest: [Newest]

  /// A session of the newest, the revision of it the check saw, and its date (where a
  /// session a write made or moved goes among them).
  public struct Newest: Equatable, Sendable {
    public let id: SessionID
    public let revision: Int64
    public let date: Date

    public init(id: SessionID, revision: Int64, date: Date) {
      self.id = id
      self.revision = revision
      self.date = date
    }

    /// `ListRow.newestFirst`'s order.
    static func newestFirst(_ a: Newest, _ b: Newest) -> Bool {
      SessionSummary.newestFirst(a.date, a.id, b.date, b.id)
    }
  }

  /// How many of the newest sessions are kept: `list -n` up to this many is served from them.
  public static let newestAtMost = 256

  /// Whether `other` is a check of the same state (stamp, undone sessions, sums), whatever
  /// newest either names.
  public func sameState(as other: WholeCheck) -> Bool {
    generation == other.generation && tag == other.tag && undone == other.undone
      && complete == other.complete && waiting == other.waiting
  }

  public init(
    generation: UInt64, tag: [UInt8], undone: [SessionID], complete: [UInt8], waiting: [UInt8],
    newest: [Newest] = []
  ) {
    self.generation = generation
    self.tag = tag
    self.undone = undone
    self.complete = complete
    self.waiting = waiting
    self.newest = newest
  }
}

/// The entries a ledger tag covers (SECURITY.md, "The ledger"): fixed-size records of every
/// session, trash row and tombstone, in the tag's order. Ids, statuses and revisions only.
public struct LedgerRows: Equatable, Sendable {
  public internal(set) var sessions: [UInt8] = []
  public internal(set) var trash: [UInt8] = []
  public internal(set) var tombstones: [UInt8] = []
  /// What sync agreed (format 10): empty for a vault that does not sync; then, since format
  /// 11, the settings entry. The entries after the tombstones, in the tag's order.
  public internal(set) var sync: [UInt8] = []

  static let sessionBytes = 26
  static let trashBytes = 50
  static let tombstoneBytes = 17
  /// The settings entry (format 11), last of `sync`'s entries.
  static let settingsBytes = 34
  /// An agreed sync row's entry (0x05), and the sync header's (0x04), in `sync`.
  static let syncRowBytes = 33
  static let syncHeaderBytes = 137

  public init() {}

  /// The settings entry (format 11), when the tag these rows were read for covers it.
  public var settings: ArraySlice<UInt8>? {
    guard sync.count >= Self.settingsBytes, sync[sync.count - Self.settingsBytes] == 6 else {
      return nil
    }
    return sync[(sync.count - Self.settingsBytes)...]
  }

  /// Rows from their three parts; nil when a part is not a whole number of its entries.
  public init?(sessions: [UInt8], trash: [UInt8], tombstones: [UInt8], sync: [UInt8] = []) {
    guard sessions.count % Self.sessionBytes == 0, trash.count % Self.trashBytes == 0,
      tombstones.count % Self.tombstoneBytes == 0
    else { return nil }
    self.sessions = sessions
    self.trash = trash
    self.tombstones = tombstones
    self.sync = sync
  }

  /// Whether `stamp`'s tag is the one these rows make for the vault `vaultID`, in either
  /// way a tag is made (the flat list before format 12, the tree since).
  public func authenticate(
    _ stamp: LedgerStamp, vaultID: [UInt8], key: SecureBytes
  ) -> Bool {
    if let made = try? treeTag(vaultID: vaultID, generation: stamp.generation, key: key),
      KeyedHash.same(made, stamp.tag)
    {
      return true
    }
    guard let made = try? tag(vaultID: vaultID, generation: stamp.generation, key: key) else {
      return false
    }
    return KeyedHash.same(made, stamp.tag)
  }

  /// `sync` in its parts: the sync header and settings entries (what the tree's tag covers
  /// beside the root), and the agreed rows' entries (in the tree); nil when it is not entries.
  var syncParts: (flat: [UInt8], rows: [UInt8])? {
    var rest = sync[...]
    var flat: [UInt8] = []
    if rest.first == 4 {
      guard rest.count >= Self.syncHeaderBytes else { return nil }
      flat += rest.prefix(Self.syncHeaderBytes)
      rest = rest.dropFirst(Self.syncHeaderBytes)
    }
    var rows: [UInt8] = []
    while rest.first == 5, rest.count >= Self.syncRowBytes {
      rows += rest.prefix(Self.syncRowBytes)
      rest = rest.dropFirst(Self.syncRowBytes)
    }
    if rest.first == 6, rest.count == Self.settingsBytes {
      flat += rest
      rest = []
    }
    return rest.isEmpty ? (flat, rows) : nil
  }

  /// The tag of construction 3 (format 12), made from these rows: the tree of the session,
  /// tombstone and agreed sync entries, then `Ledger.treeTag`.
  func treeTag(vaultID: [UInt8], generation: UInt64, key: SecureBytes) throws -> [UInt8] {
    guard let parts = syncParts else { throw StoreError.tampered(.rows) }
    let tree = LedgerTree.make(sessions: sessions, tombstones: tombstones, syncRows: parts.rows)
    return try Ledger.treeTag(
      key: key, vaultID: vaultID, generation: generation,
      root: LedgerTree.root(nodes: tree.nodes()),
      trash: trash, flat: parts.flat)
  }

  /// The tag: BLAKE2b-256 keyed with the ledger key over "JRNLLEDG" ‖ 0x01 ‖ vault id ‖
  /// generation ‖ session entries ‖ trash entries ‖ tombstone entries ‖ sync entries.
  /// The tag of constructions 1 and 2 (formats 5 to 11): one hash over every entry.
  func tag(vaultID: [UInt8], generation: UInt64, key: SecureBytes) throws -> [UInt8] {
    let hash = try KeyedHash(key: key)
    hash.update(Array("JRNLLEDG".utf8) + [1])
    hash.update(vaultID)
    hash.update(generation)
    hash.update(sessions)
    hash.update(trash)
    hash.update(tombstones)
    hash.update(sync)
    return hash.finish()
  }

  /// How these rows (the vault now) differ from `earlier` (the rows a witness saw): sessions
  /// gone from it, sessions it did not have, and sessions at another revision or status, by
  /// id. A session moved to the trash or the tombstones counts as gone from the sessions.
  public func differences(from earlier: LedgerRows) -> (
    missing: [SessionID], added: [SessionID], changed: [SessionID]
  ) {
    func entries(_ bytes: [UInt8], size: Int) -> [SessionID: ArraySlice<UInt8>] {
      var out: [SessionID: ArraySlice<UInt8>] = [:]
      for start in stride(from: 0, to: bytes.count, by: size) {
        let entry = bytes[start..<start + size]
        let hex = Hex.lowercase(entry.dropFirst().prefix(16))
        if let id = SessionID(hex) { out[id] = entry }
      }
      return out
    }
    let now = entries(sessions, size: Self.sessionBytes)
    let then = entries(earlier.sessions, size: Self.sessionBytes)
    let missing = then.keys.filter { now[$0] == nil }.sorted()
    let added = now.keys.filter { then[$0] == nil }.sorted()
    let changed = now.keys.filter { id in then[id].map { !$0.elementsEqual(now[id] ?? []) } ?? false
    }
    .sorted()
    return (missing, added, changed)
  }
}

/// What trusting a vault as it is (`journal verify --accept`) changes in it to make its rows
/// agree with each other. No session row is ever changed; the one loss, a trashed copy of a
/// session whose id is in the journal again, is named here so that it is asked about.
public struct RepairPlan: Sendable, Equatable {
  /// Sessions in the trash whose id is also a session in the journal: the trashed copy is
  /// dropped (the one in the journal stays).
  public var trashDropped: [SessionID] = []
  /// Sessions deleted for good that are in the journal again: their tombstones are removed.
  public var buriedKept: [SessionID] = []
  /// Purges whose tombstone is missing: it is written.
  public var purgesRecorded: [SessionID] = []
  /// Reminders of sessions that do not wait for reflection: removed.
  public var remindersRemoved: [SessionID] = []
  /// Rows whose planted id, revision or status is put right from what their sealed columns
  /// vouch for (shown by the first characters of their ids).
  public var rowsPutRight: [String] = []
  /// Rows no key of this vault opens at any revision: dropped (a person's words, if they
  /// were: named, and asked about).
  public var rowsDropped: [String] = []
  /// Trash rows whose batch or times were planted: purged now (their sessions were deleted).
  public var trashPurgedNow: [String] = []
  /// A recovery slot of a type or length journal never writes: removed.
  public var recoverySlotRemoved = false

  public init() {}

  public var isEmpty: Bool { self == RepairPlan() }
}

/// The vault's tamper evidence: one keyed tag over which sessions exist, at which revision,
/// which wait in the trash and which were purged (SECURITY.md, "The ledger").
///
/// Each session row carries a revision, raised by every write and bound into its columns'
/// keys, so an older column put back no longer opens. The tag covers every row's id, status
/// and revision, the trash and the tombstones, under the ledger key, with a generation that
/// every keyed write raises. So a row deleted, added, or put back whole from an older copy no
/// longer adds up to the tag.
///
/// Undo and purge run without the key (undo must be quick, and any command purges). They do
/// not remove the trash row they settle: they mark it `undone` or `purged` and keep its clear
/// metadata, so the state the tag was made over can still be told from the rows. The next
/// keyed write removes those marked rows and makes a new tag.
struct Ledger {
  typealias Stamp = LedgerStamp

  let vaultID: [UInt8]
  let key: SecureBytes

  /// How every tag is made now (format 12): the root of the tree of the rows (LedgerTree),
  /// then the trash, the sync header and the settings entry.
  static let construction: Int64 = 3

  /// The stored stamp, or nil for a vault not yet protected.
  static func stamp(_ db: Database) throws -> Stamp? {
    guard
      // Cached: read at the opening, at every leaf check and at every write's start.
      let row = try Row.fetchOne(
        db.cachedStatement(
          sql:
            "SELECT generation, tag, construction, singleton, (SELECT count(*) FROM ledger) FROM ledger"
        ))
    else {
      return nil
    }
    // One row, the singleton: a second row, or one moved off it, is a ledger edited.
    guard (try? row.decode(Int64.self, atIndex: 3)) == 1,
      (try? row.decode(Int64.self, atIndex: 4)) == 1
    else { throw StoreError.tampered(.ledger) }
    guard let generation = try? row.decode(Int64.self, atIndex: 0), generation >= 1,
      StoredRange.isCounter(generation),
      let tag = try? row.decode(Data.self, atIndex: 1), tag.count == KeyedHash.bytes,
      let construction = try? row.decode(Int64.self, atIndex: 2), [1, 2, 3].contains(construction)
    else { throw StoreError.tampered(.ledger) }
    var stamp = Stamp(generation: UInt64(generation), tag: Array(tag))
    stamp.construction = construction
    return stamp
  }

  /// Checks the whole vault against its stamp; throws `tampered` when it does not add up.
  /// Returns the stamp with the rows it covers (when few enough to keep).
  @discardableResult
  func verify(_ db: Database, against stamp: Stamp) throws -> Stamp {
    var none: ListedEntries?
    return try verify(db, against: stamp, entries: &none)
  }

  /// As `verify(_:against:)`; with `entries` (a tree ledger), each session entry the
  /// ledger's own indexes hold, and each session an undo restored (from its trash row), is
  /// also added to its sums, for a read of many rows to compare with what it handed over
  /// (`SessionStore.bind`). Any other ledger leaves it nil: it has no such indexes.
  func verify(
    _ db: Database, against stamp: Stamp, entries: inout ListedEntries?
  ) throws -> Stamp {
    if stamp.construction >= 3 { return try verifyTree(db, against: stamp, entries: &entries) }
    entries = nil
    let (view, tag) = try tagged(
      db, generation: stamp.generation, settings: stamp.construction >= 2)
    if !view.inconsistent.isEmpty {
      throw StoreError.tampered(.inconsistent(ids: view.inconsistent.sorted().map(\.short)))
    }
    guard KeyedHash.same(tag, stamp.tag) else {
      throw StoreError.tampered(settingsChanged(view, stamp) ? .settings : .rows)
    }
    var checked = Stamp(generation: stamp.generation, tag: stamp.tag, rows: view.kept)
    checked.construction = stamp.construction
    return checked
  }

  /// The tag of construction 3: BLAKE2b-256 keyed with the ledger key over "JRNLLEDG" ‖ 0x03
  /// ‖ vault id ‖ generation ‖ the tree's root ‖ trash entries ‖ the sync header entry (a
  /// vault that syncs) ‖ the settings entry.
  static func treeTag(
    key: SecureBytes, vaultID: [UInt8], generation: UInt64, root: [UInt8], trash: [UInt8],
    flat: [UInt8]
  ) throws -> [UInt8] {
    let hash = try KeyedHash(key: key)
    hash.update(Array("JRNLLEDG".utf8) + [3])
    hash.update(vaultID)
    hash.update(generation)
    hash.update(root)
    hash.update(trash)
    hash.update(flat)
    return hash.finish()
  }

  /// The whole check of a tree ledger: every leaf made again from the rows, and the tag from
  /// their root; then the stored leaves and nodes compared with them.
  private func verifyTree(
    _ db: Database, against stamp: Stamp, entries: inout ListedEntries?
  ) throws -> Stamp {
    let view = try View.readFlat(db)
    if !view.inconsistent.isEmpty {
      throw StoreError.tampered(.inconsistent(ids: view.inconsistent.sorted().map(\.short)))
    }
    let keep = try (Int.fetchOne(db, sql: "SELECT count(*) FROM session") ?? 0) <= Self.keepEntries
    var kept: (sessions: [UInt8], tombstones: [UInt8], syncRows: [UInt8]) = ([], [], [])
    let tree = try LedgerTree.read(
      db, skippingSessions: view.undone, skippingTombstones: view.purged, keep: keep,
      into: &kept, listed: &entries)
    if var sums = entries {
      view.addUndone(to: &sums)
      entries = sums
    }
    let nodes = tree.nodes()
    let root = LedgerTree.root(nodes: nodes)
    try checkRoot(root, view: view, stamp: stamp)
    let stored = try LedgerTree.stored(db)
    guard stored.leaves == tree, stored.nodes == nodes else {
      throw StoreError.tampered(.ledger)
    }
    var checked = Stamp(
      generation: stamp.generation, tag: stamp.tag,
      rows: keep ? view.rows(adding: kept) : nil)
    checked.construction = stamp.construction
    return checked
  }

  /// Whether `root`, with the vault's flat entries in `view`, makes `stamp`'s tag; throws
  /// `tampered` naming the settings when only they were changed, else the rows.
  private func checkRoot(_ root: [UInt8], view: View, stamp: Stamp) throws {
    let tag = try Self.treeTag(
      key: key, vaultID: vaultID, generation: stamp.generation, root: root,
      trash: view.rows.trash, flat: view.rows.sync)
    guard !KeyedHash.same(tag, stamp.tag) else { return }
    var settingsOnly = false
    if view.rows.sync.count >= LedgerRows.settingsBytes {
      let start = view.rows.sync.count - LedgerRows.settingsBytes
      for variant in Self.settingsVariants(Array(view.rows.sync[start...])) {
        var flat = view.rows.sync
        flat.replaceSubrange(start..., with: variant)
        let made = try Self.treeTag(
          key: key, vaultID: vaultID, generation: stamp.generation, root: root,
          trash: view.rows.trash, flat: flat)
        if KeyedHash.same(made, stamp.tag) { settingsOnly = true }
      }
    }
    throw StoreError.tampered(settingsOnly ? .settings : .rows)
  }

  /// The point check of a tree ledger (a command about one session): the vault's flat
  /// entries and the stored nodes against the tag, without reading a session. Returns the
  /// view read, for the leaves checked next (`verifyLeaves`).
  func verifyRoot(_ db: Database, against stamp: Stamp) throws -> View {
    precondition(stamp.construction >= 3, "a point check needs the tree")
    let view = try View.readFlat(db)
    if !view.inconsistent.isEmpty {
      throw StoreError.tampered(.inconsistent(ids: view.inconsistent.sorted().map(\.short)))
    }
    try checkRoot(
      LedgerTree.root(nodes: try LedgerTree.storedNodes(db)), view: view, stamp: stamp)
    return view
  }

  /// Checks `leaves` as the rows are now against the stored leaves, and their nodes against
  /// the stored nodes (which `verifyRoot` checked in the same transaction).
  func verifyLeaves(_ leaves: Set<Int>, _ db: Database, view: View) throws {
    let nodes = try LedgerTree.storedNodes(db)
    for node in Set(leaves.map { $0 / LedgerTree.nodeCount }) {
      let stored = try LedgerTree.storedLeaves(ofNode: node, db)
      let size = LedgerTree.digestBytes
      guard
        LedgerTree.nodeDigest(node, leaves: stored[...])
          == Array(nodes[node * size..<(node + 1) * size])
      else { throw StoreError.tampered(.ledger) }
      for leaf in leaves where leaf / LedgerTree.nodeCount == node {
        let entries = try LedgerTree.entries(
          ofLeaf: leaf, db, skippingSessions: view.undone, skippingTombstones: view.purged)
        let at = (leaf % LedgerTree.nodeCount) * size
        guard LedgerTree.leafDigest(leaf, entries: entries) == Array(stored[at..<at + size])
        else { throw StoreError.tampered(.rows) }
      }
    }
  }

  /// Whether the rows add up to `stamp` once the settings entry is put back as it could
  /// have been (writing without the passphrase the other way round, no recovery slot): then
  /// only a setting was changed behind the ledger's back, and that is what is said.
  private func settingsChanged(_ view: View, _ stamp: Stamp) -> Bool {
    guard stamp.construction >= 2, var rows = view.kept,
      rows.sync.count >= LedgerRows.settingsBytes
    else { return false }
    let start = rows.sync.count - LedgerRows.settingsBytes
    for variant in Self.settingsVariants(Array(rows.sync[start...])) {
      rows.sync.replaceSubrange(start..., with: variant)
      if rows.authenticate(stamp, vaultID: vaultID, key: key) { return true }
    }
    return false
  }

  /// The settings entry as it could have been: sealed capture the other way round, no
  /// recovery slot, or both.
  static func settingsVariants(_ now: [UInt8]) -> [[UInt8]] {
    guard now.count == LedgerRows.settingsBytes else { return [] }
    var variants: [[UInt8]] = []
    var flipped = now
    flipped[1] ^= 1
    variants.append(flipped)
    let zeros = [UInt8](repeating: 0, count: 32)
    if Array(now[2...]) != zeros {
      variants.append([now[0], now[1]] + zeros)
      variants.append([now[0], now[1] ^ 1] + zeros)
    }
    return variants
  }

  /// Up to this many sessions, a check or a write keeps the entries it hashed (3.4 MB), for
  /// this computer's record, which names the sessions of a rollback; beyond, the entries are
  /// hashed as they are read and forgotten, so that memory does not grow with the journal.
  static let keepEntries = 131_072

  /// The vault as it is now and its tag at `generation`: the sessions' entries hashed 64 KiB
  /// at a time as they are read, and kept only up to `keepEntries` sessions.
  func tagged(
    _ db: Database, generation: UInt64, settings: Bool = true
  ) throws -> (View, [UInt8]) {
    var view = try View.readAllButSessions(db, settings: settings)
    let count = try Int.fetchOne(db, sql: "SELECT count(*) FROM session") ?? 0
    let keep = count <= Self.keepEntries
    let hash = try KeyedHash(key: key)
    hash.update(Array("JRNLLEDG".utf8) + [1])
    hash.update(vaultID)
    hash.update(generation)
    var pending: [UInt8] = []
    pending.reserveCapacity(65_536 + LedgerRows.sessionBytes)
    let flush = { (entries: inout [UInt8]) in
      hash.update(entries)
      if keep { view.rows.sessions += entries }
      entries.removeAll(keepingCapacity: true)
    }
    for status in [SessionStatus.complete, .needsReflection] {
      try View.scanSessions(
        db, status: status, skipping: view.undone, into: &pending, flushing: flush)
    }
    flush(&pending)
    hash.update(view.rows.trash)
    hash.update(view.rows.tombstones)
    hash.update(view.rows.sync)
    view.complete = keep
    return (view, hash.finish())
  }

  /// Checks a view of the vault, read in one transaction with `stamp`, against it.
  func verify(_ view: View, against stamp: Stamp) throws -> Stamp {
    if !view.inconsistent.isEmpty {
      throw StoreError.tampered(.inconsistent(ids: view.inconsistent.sorted().map(\.short)))
    }
    let tag =
      stamp.construction >= 3
      ? try view.rows.treeTag(vaultID: vaultID, generation: stamp.generation, key: key)
      : try view.tag(vaultID: vaultID, generation: stamp.generation, key: key)
    guard KeyedHash.same(tag, stamp.tag) else {
      throw StoreError.tampered(settingsChanged(view, stamp) ? .settings : .rows)
    }
    var checked = Stamp(generation: stamp.generation, tag: stamp.tag, rows: view.rows)
    checked.construction = stamp.construction
    return checked
  }

  /// After a keyed write: removes the trash rows undo and purge settled, and stamps the vault
  /// as it now is, one generation on, every leaf of its tree made again from the rows.
  @discardableResult
  func commit(_ db: Database, after stamp: Stamp?) throws -> Stamp {
    try Self.settle(db)
    let generation = (stamp?.generation ?? 0) + 1
    let view = try View.readFlat(db)
    let keep = try (Int.fetchOne(db, sql: "SELECT count(*) FROM session") ?? 0) <= Self.keepEntries
    var kept: (sessions: [UInt8], tombstones: [UInt8], syncRows: [UInt8]) = ([], [], [])
    var none: ListedEntries?
    let tree = try LedgerTree.read(
      db, skippingSessions: view.undone, skippingTombstones: view.purged, keep: keep,
      into: &kept, listed: &none)
    try tree.store(db)
    let tag = try Self.treeTag(
      key: key, vaultID: vaultID, generation: generation,
      root: LedgerTree.root(nodes: tree.nodes()), trash: view.rows.trash, flat: view.rows.sync)
    try stampRow(db, generation: generation, tag: tag)
    return Stamp(generation: generation, tag: tag, rows: keep ? view.rows(adding: kept) : nil)
  }

  /// After a keyed write that `verifyRoot` began (the vault as `start` read it, rows as
  /// `before` kept them): each leaf the write touched is checked as it was before, against
  /// the stored leaf, and then stored as it is now, with its node and the root; the vault is
  /// stamped one generation on. What the write did not touch is neither read nor stamped
  /// anew, so a change made behind the ledger's back elsewhere still does not add up.
  /// Returns the new stamp, the leaves stamped, and the session entries those leaves now
  /// hold, one after another (what a whole check carried through the write adds,
  /// `SessionStore.carry`).
  func commitTracked(
    _ db: Database, after stamp: Stamp, start: View, before: LedgerTree.Before
  ) throws -> (stamp: Stamp, leaves: Set<Int>, sessions: [UInt8]) {
    // What the write itself settled (a purge sync brought, say) counts as done, as in `commit`.
    try Self.settle(db)
    let now = try View.readFlat(db)
    var touched = before.leaves
    for id in start.undone.union(start.purged) { touched.insert(LedgerTree.leaf(of: id)) }
    var nodes = try LedgerTree.storedNodes(db)
    let size = LedgerTree.digestBytes
    var sessions: [UInt8] = []
    for node in Set(touched.map { $0 / LedgerTree.nodeCount }) {
      var leaves = try LedgerTree.storedLeaves(ofNode: node, db)
      guard
        LedgerTree.nodeDigest(node, leaves: leaves[...])
          == Array(nodes[node * size..<(node + 1) * size])
      else { throw StoreError.tampered(.ledger) }
      for leaf in touched where leaf / LedgerTree.nodeCount == node {
        let at = (leaf % LedgerTree.nodeCount) * size
        let was = try LedgerTree.entries(
          ofLeaf: leaf, db, skippingSessions: start.undone, skippingTombstones: start.purged,
          replacing: before)
        guard LedgerTree.leafDigest(leaf, entries: was) == Array(leaves[at..<at + size]) else {
          throw StoreError.tampered(.rows)
        }
        let entries = try LedgerTree.entries(
          ofLeaf: leaf, db, skippingSessions: now.undone, skippingTombstones: now.purged)
        sessions += LedgerTree.sessionEntries(in: entries)
        let digest = LedgerTree.leafDigest(leaf, entries: entries)
        leaves.replaceSubrange(at..<at + size, with: digest)
        try LedgerTree.store(digest, table: "ledger_leaf", column: "leaf", at: leaf, db)
      }
      let digest = LedgerTree.nodeDigest(node, leaves: leaves[...])
      nodes.replaceSubrange(node * size..<(node + 1) * size, with: digest)
      try LedgerTree.store(digest, table: "ledger_node", column: "node", at: node, db)
    }
    let generation = stamp.generation + 1
    let tag = try Self.treeTag(
      key: key, vaultID: vaultID, generation: generation, root: LedgerTree.root(nodes: nodes),
      trash: now.rows.trash, flat: now.rows.sync)
    try stampRow(db, generation: generation, tag: tag)
    return (Stamp(generation: generation, tag: tag), touched, sessions)
  }

  private func stampRow(_ db: Database, generation: UInt64, tag: [UInt8]) throws {
    try db.execute(
      sql: """
        INSERT INTO ledger (singleton, generation, tag, construction) VALUES (1, ?, ?, ?)
        ON CONFLICT (singleton) DO UPDATE SET generation = excluded.generation,
          tag = excluded.tag, construction = excluded.construction
        """,
      arguments: [Int64(generation), Data(tag), Self.construction])
  }

  /// What `repair` would change, read first so that each change can be named before anyone
  /// is asked (`journal verify --accept`).
  static func repairPlan(_ db: Database, cipher: RecordCipher?) throws -> RepairPlan {
    func ids(_ sql: String) throws -> [SessionID] {
      try String.fetchAll(db, sql: sql).compactMap(SessionID.init)
    }
    var plan = RepairPlan()
    if let cipher {
      for row in try MalformedRows.find(db, cipher: cipher) {
        switch row.fix {
        case .putRight: plan.rowsPutRight.append(row.shown)
        case .purgeNow: plan.trashPurgedNow.append(row.shown)
        case .drop: plan.rowsDropped.append(row.shown)
        }
      }
    }
    plan.recoverySlotRemoved =
      try Bool.fetchOne(
        db,
        sql: """
          SELECT recovery_slot IS NOT NULL
            AND (typeof(recovery_slot) != 'blob' OR length(recovery_slot) != 88) FROM vault
          """) ?? false
    plan.trashDropped = try ids(
      "SELECT id FROM trash WHERE outcome IS NULL AND id IN (SELECT id FROM session) ORDER BY id")
    plan.buriedKept = try ids(
      "SELECT id FROM tombstone WHERE id IN (SELECT id FROM session) ORDER BY id")
    plan.purgesRecorded = try ids(
      """
      SELECT id FROM trash WHERE outcome = 'purged' AND id NOT IN (SELECT id FROM tombstone)
      ORDER BY id
      """)
    plan.remindersRemoved = try ids(
      """
      SELECT id FROM reminder WHERE id NOT IN
        (SELECT id FROM session WHERE status = 'needs_reflection')
        AND id NOT IN (SELECT id FROM addition WHERE kind = 'new' AND status = 'needs_reflection')
      ORDER BY id
      """)
    return plan
  }

  /// Why a vault does not add up, named where the rows can tell: rows holding values journal
  /// never writes are named as such (damage of those rows); otherwise `error` as it was.
  static func explain(_ error: StoreError, _ db: Database) -> StoreError {
    guard case .tampered(let found) = error,
      found == .rows || found == .ledger || found == .settings,
      let shown = try? MalformedRows.shownRows(db), !shown.isEmpty
    else { return error }
    return .tampered(.malformedRows(shown))
  }

  /// Brings rows that disagree with each other back into agreement, for trusting a vault as
  /// it is (`journal verify --accept`): a purge's missing tombstone is written, a trash row
  /// marked undone whose session is not there is dropped, a session both live and buried
  /// loses its tombstone, and a reminder of no waiting session is removed. No session row is
  /// touched.
  static func repair(_ db: Database) throws {
    // A ledger edited into more than one row, or off its singleton: made again by the commit.
    try db.execute(
      sql: "DELETE FROM ledger WHERE singleton IS NOT 1 OR (SELECT count(*) FROM ledger) > 1")
    // Settings of a type or length journal never writes: a recovery slot nobody can open is
    // removed (a new code is made with "journal recovery-code"); a sealing key, derived from
    // the data key, is put right at the opening that follows (here: on, a placeholder).
    try db.execute(
      sql: """
        UPDATE vault SET recovery_slot = NULL WHERE recovery_slot IS NOT NULL
          AND (typeof(recovery_slot) != 'blob' OR length(recovery_slot) != 88);
        UPDATE vault SET sealing_key = zeroblob(32) WHERE sealing_key IS NOT NULL
          AND (typeof(sealing_key) != 'blob' OR length(sealing_key) != 32);
        """)
    try db.execute(
      sql: """
        INSERT OR IGNORE INTO tombstone (id) SELECT id FROM trash WHERE outcome = 'purged';
        DELETE FROM tombstone WHERE id IN (SELECT id FROM session);
        DELETE FROM trash WHERE outcome IS NULL AND id IN (SELECT id FROM session);
        DELETE FROM reminder WHERE id NOT IN
          (SELECT id FROM session WHERE status = 'needs_reflection')
          AND id NOT IN (SELECT id FROM addition WHERE kind = 'new' AND status = 'needs_reflection');
        """)
    try settle(db)
  }

  /// Removes the trash rows that an undo or a purge has settled: their effect stands in the
  /// session and tombstone tables.
  static func settle(_ db: Database) throws {
    try db.execute(sql: "DELETE FROM trash WHERE outcome IS NOT NULL")
  }

  /// Whether any row was written under a ledger (a revision above 0): such a vault without
  /// its ledger row has lost it to tampering, not to age.
  static func hasRevisions(_ db: Database) throws -> Bool {
    try Bool.fetchOne(
      db,
      sql: """
        SELECT EXISTS (SELECT 1 FROM session WHERE revision > 0)
          OR EXISTS (SELECT 1 FROM trash WHERE revision > 0)
        """) ?? false
  }

  /// A trash row's outcome column: NULL, or the text that settled it.
  struct Outcome: DatabaseValueConvertible {
    let text: String?

    var databaseValue: DatabaseValue { text.databaseValue }

    static func fromDatabaseValue(_ value: DatabaseValue) -> Outcome? {
      if value.isNull { return Outcome(text: nil) }
      return String.fromDatabaseValue(value).map { Outcome(text: $0) }
    }
  }

  // MARK: - The state the tag covers

  /// The vault as the last keyed write left it, told from the rows: sessions restored by an
  /// undo since count as still in the trash, and tombstones of purges since as not yet there.
  struct View {
    var rows = LedgerRows()
    var inconsistent: Set<SessionID> = []

    /// Restored by an undo since the last keyed write: counted as still in the trash.
    var undone: Set<SessionID> = []
    /// Purged since the last keyed write: their tombstones counted as not yet there.
    var purged: Set<SessionID> = []
    /// Whether `rows` holds every session's entry (not when `tagged` hashed them without
    /// keeping them).
    var complete = true
    /// The rows, when they are all there.
    var kept: LedgerRows? { complete ? rows : nil }

    /// The whole view: the trash, tombstones and agreement (`readAllButSessions`), then every
    /// session, one range of the ledger's index per status.
    static func read(_ db: Database) throws -> View {
      let construction = try Ledger.stamp(db)?.construction ?? Ledger.construction
      var view = try readAllButSessions(db, settings: construction >= 2)
      for status in [SessionStatus.complete, .needsReflection] {
        try scanSessions(db, status: status, skipping: view.undone, into: &view.rows.sessions)
      }
      return view
    }

    /// Everything but the sessions' entries, which `list` adds from its own pass over them
    /// (SessionStore.summaries) instead of reading them twice. With `settings` (a tag of
    /// format 11), the settings entry last.
    static func readAllButSessions(_ db: Database, settings: Bool) throws -> View {
      try readAllButSessions(db, settings: settings, perSession: true)
    }

    /// What a tree's tag covers beside its root (format 12): the trash, the sync header and
    /// the settings, with the rows that disagree; nothing read per session.
    static func readFlat(_ db: Database) throws -> View {
      try readAllButSessions(db, settings: true, perSession: false)
    }

    /// Only which sessions an undo restored and which a purge removed since the last keyed
    /// write (how the tree's rows count), from the trash rows they marked: for a leaf read
    /// under a stamp already checked.
    static func readSkips(_ db: Database) throws -> View {
      var view = View()
      for row in try Row.fetchAll(
        db.cachedStatement(sql: "SELECT id, outcome FROM trash WHERE outcome IS NOT NULL"))
      {
        guard let text = try? row.decode(String.self, atIndex: 0), let id = SessionID(text),
          let outcome = try? row.decode(String.self, atIndex: 1)
        else { throw StoreError.tampered(.rows) }
        switch outcome {
        case "undone": view.undone.insert(id)
        case "purged": view.purged.insert(id)
        default: throw StoreError.tampered(.rows)
        }
      }
      return view
    }

    /// These flat entries with the entries of the tree's rows, in the layout of a record.
    func rows(adding kept: (sessions: [UInt8], tombstones: [UInt8], syncRows: [UInt8]))
      -> LedgerRows
    {
      var rows = self.rows
      rows.sessions = kept.sessions
      rows.tombstones = kept.tombstones
      let header = rows.sync.first == 4 ? Array(rows.sync.prefix(LedgerRows.syncHeaderBytes)) : []
      rows.sync = header + kept.syncRows + rows.sync.dropFirst(header.count)
      return rows
    }

    private static func readAllButSessions(
      _ db: Database, settings: Bool, perSession: Bool
    ) throws -> View {
      var view = View()
      // The trash first (a few rows at most): its outcomes decide how the session and
      // tombstone rows count.
      var purged: Set<SessionID> = []
      let trashRows = try Row.fetchAll(
        db.cachedStatement(
          sql: """
            SELECT id, status, revision, batch, deleted_at, purge_after, outcome
            FROM trash ORDER BY id
            """))
      for row in trashRows {
        guard let text = try? row.decode(String.self, atIndex: 0), let id = SessionID(text),
          let statusText = try? row.decode(String.self, atIndex: 1),
          let status = Self.statusByte(statusText),
          let revision = try? row.decode(Int64.self, atIndex: 2), StoredRange.isCounter(revision),
          let batch = try? row.decode(Int64.self, atIndex: 3),
          let deletedAt = try? row.decode(Int64.self, atIndex: 4),
          let purgeAfter = try? row.decode(Int64.self, atIndex: 5),
          let outcome = try? row.decode(Outcome.self, atIndex: 6)
        else { throw StoreError.tampered(.rows) }
        view.addTrash(
          id: id, status: status, revision: UInt64(revision), batch: batch,
          deletedAt: deletedAt, purgeAfter: purgeAfter)
        switch outcome.text {
        case nil: break
        case "undone": view.undone.insert(id)
        case "purged": purged.insert(id)
        default: throw StoreError.tampered(.rows)
        }
      }
      view.purged = purged
      if perSession {
        for text in try String.fetchAll(
          db.cachedStatement(sql: "SELECT id FROM tombstone ORDER BY id"))
        {
          guard let id = SessionID(text) else { throw StoreError.tampered(.rows) }
          if !purged.contains(id) { view.addTombstone(id: id) }
        }
      }
      // Rows that disagree with each other, asked of SQLite: each query touches only the
      // trash, tombstone and reminder rows (a handful) and looks the others up by id. Three
      // statements, each cached for the connection, the trash's only when there is a trash:
      // one query of the three took ~1.2 M instructions to prepare, at every opening and
      // again at every keyed write's stamp.
      var disagreeing: [String] = []
      if !trashRows.isEmpty {
        disagreeing += try String.fetchAll(
          db.cachedStatement(
            sql: """
              SELECT t.id FROM trash t WHERE
                CASE t.outcome
                  WHEN 'undone' THEN
                    NOT EXISTS (SELECT 1 FROM session s
                      WHERE s.id = t.id AND s.status = t.status AND s.revision = t.revision)
                    OR EXISTS (SELECT 1 FROM tombstone d WHERE d.id = t.id)
                  WHEN 'purged' THEN
                    NOT EXISTS (SELECT 1 FROM tombstone d WHERE d.id = t.id)
                    OR EXISTS (SELECT 1 FROM session s WHERE s.id = t.id)
                    OR length(t.summary) + length(t.body) > 0
                  ELSE
                    EXISTS (SELECT 1 FROM session s WHERE s.id = t.id)
                    OR EXISTS (SELECT 1 FROM tombstone d WHERE d.id = t.id)
                END
              """))
      }
      disagreeing += try String.fetchAll(
        db.cachedStatement(
          sql:
            "SELECT d.id FROM tombstone d WHERE EXISTS (SELECT 1 FROM session s WHERE s.id = d.id)"
        ))
      disagreeing += try String.fetchAll(
        db.cachedStatement(
          sql: """
            SELECT r.id FROM reminder r LEFT JOIN session s ON s.id = r.id
            WHERE (s.id IS NULL OR s.status != 'needs_reflection')
              AND NOT EXISTS (SELECT 1 FROM addition a
                WHERE a.id = r.id AND a.kind = 'new' AND a.status = 'needs_reflection')
            """))
      for text in disagreeing {
        if let id = SessionID(text) { view.inconsistent.insert(id) }
      }
      try readSync(db, into: &view.rows.sync, agreedRows: perSession)
      if settings { try readSettings(db, into: &view.rows.sync) }
      return view
    }

    /// The vault's settings a stranger must not change unnoticed (format 11): 0x06 ‖ whether
    /// sealed capture is on (1 byte: 0 off, 1 on) ‖ BLAKE2b-256 of the recovery slot, or 32
    /// zeros without one. The sealing key itself is not in it: it is derived from the data
    /// key, so a swapped one is put right at the next keyed opening instead.
    static func readSettings(_ db: Database, into entries: inout [UInt8]) throws {
      guard let row = try Row.fetchOne(db, sql: "SELECT sealing_key, recovery_slot FROM vault")
      else { throw StoreError.tampered(.settings) }
      let sealing: Data?
      let slot: Data?
      do {
        sealing = try row.decode(Data?.self, atIndex: 0)
        slot = try row.decode(Data?.self, atIndex: 1)
      } catch {
        throw StoreError.tampered(.settings)
      }
      entries.append(6)
      entries.append(sealing == nil ? 0 : 1)
      entries += slot.map { KeyedHash.unkeyed(Array($0)) } ?? [UInt8](repeating: 0, count: 32)
    }

    /// What sync agreed (SECURITY.md, "The ledger"): 0x04 ‖ device (16) ‖ seq (8) ‖ head
    /// (32) ‖ header hash (32) ‖ BLAKE2b-256 of the server's address (32) ‖ clock time (8) ‖
    /// clock counter (8), then for each agreed session in order of id 0x05 ‖ id (16) ‖
    /// revision (8) ‖ generation (8); integers little-endian, a missing head or hash as
    /// zeros. Nothing for a vault that does not sync. The time of the last sync and the
    /// background setting are left out: they change without the key.
    static func readSync(
      _ db: Database, into entries: inout [UInt8], agreedRows: Bool = true
    ) throws {
      guard
        let settings = try Row.fetchOne(
          db,
          sql: """
            SELECT device, seq, head, header_hash, server, clock_time, clock_counter
            FROM sync WHERE singleton = 1
            """)
      else {
        if try Int.fetchOne(db, sql: "SELECT count(*) FROM sync_row") ?? 0 > 0 {
          throw StoreError.tampered(.rows)
        }
        return
      }
      let zeros = [UInt8](repeating: 0, count: 32)
      // (A NULL head or header hash is no damage: `try?` would flatten it into one.)
      let head: Data?
      let headerHash: Data?
      do {
        head = try settings.decode(Data?.self, atIndex: 2)
        headerHash = try settings.decode(Data?.self, atIndex: 3)
      } catch {
        throw StoreError.tampered(.rows)
      }
      guard let device = try? settings.decode(Data.self, atIndex: 0), device.count == 16,
        let seq = try? settings.decode(Int64.self, atIndex: 1),
        let server = try? settings.decode(String.self, atIndex: 4),
        let time = try? settings.decode(Int64.self, atIndex: 5),
        let counter = try? settings.decode(Int64.self, atIndex: 6)
      else { throw StoreError.tampered(.rows) }
      entries.append(4)
      entries += device
      append(UInt64(bitPattern: seq), to: &entries)
      for value in [head, headerHash] { entries += value.map { [UInt8]($0) } ?? zeros }
      entries += KeyedHash.unkeyed(Array(server.utf8))
      append(UInt64(bitPattern: time), to: &entries)
      append(UInt64(bitPattern: counter), to: &entries)
      guard agreedRows else { return }
      // Stepped with SQLite's own calls: GRDB's `Row` for each agreed row was two fifths of
      // a `list` of 10,000 sessions that sync.
      try LedgerTree.rows(
        "SELECT id, revision, generation FROM sync_row INDEXED BY sync_row_revision ORDER BY id",
        [], db
      ) { handle, id in
        guard sqlite3_column_type(handle, 1) == SQLITE_INTEGER,
          sqlite3_column_type(handle, 2) == SQLITE_INTEGER
        else { throw StoreError.tampered(.rows) }
        entries.append(5)
        id.withBytes { entries.append(contentsOf: $0) }
        append(UInt64(bitPattern: sqlite3_column_int64(handle, 1)), to: &entries)
        append(UInt64(bitPattern: sqlite3_column_int64(handle, 2)), to: &entries)
      }
    }

    /// Adds a session row's entry; sessions come in order of status text, then id.
    mutating func addSession(id: SessionID, status: UInt8, revision: UInt64) {
      rows.sessions.append(1)
      id.withBytes { rows.sessions.append(contentsOf: $0) }
      rows.sessions.append(status)
      Self.append(revision, to: &rows.sessions)
    }

    /// Adds a trash row's entry; trash rows come in order of id.
    mutating func addTrash(
      id: SessionID, status: UInt8, revision: UInt64, batch: Int64, deletedAt: Int64,
      purgeAfter: Int64
    ) {
      rows.trash.append(2)
      id.withBytes { rows.trash.append(contentsOf: $0) }
      rows.trash.append(status)
      Self.append(revision, to: &rows.trash)
      Self.append(UInt64(bitPattern: batch), to: &rows.trash)
      Self.append(UInt64(bitPattern: deletedAt), to: &rows.trash)
      Self.append(UInt64(bitPattern: purgeAfter), to: &rows.trash)
    }

    /// Adds to `entries` the session entry (`S`) of each session an undo restored since the
    /// last keyed write, made from its trash row: the tag covers that row, and the session row
    /// must agree with it (`inconsistent`). The tree leaves those sessions out, but a read of
    /// many rows reads them with the rest, so it is bound to these.
    func addUndone(to entries: inout ListedEntries) {
      guard !undone.isEmpty else { return }
      let size = LedgerRows.trashBytes
      rows.trash.withUnsafeBytes { trash in
        var start = 0
        while start + size <= trash.count {
          // A trash entry begins as a session's does (kind ‖ id ‖ status ‖ revision).
          let entry = UnsafeRawBufferPointer(
            rebasing: trash[start..<start + LedgerRows.sessionBytes])
          start += size
          guard let id = SessionID(exactly: entry[1..<17]), undone.contains(id) else {
            continue
          }
          var made = Array(entry)
          made[0] = 1
          made.withUnsafeBytes {
            entries.add($0, status: entry[17] == 2 ? .complete : .needsReflection)
          }
        }
      }
    }

    /// Adds a tombstone's entry; tombstones come in order of id.
    mutating func addTombstone(id: SessionID) {
      rows.tombstones.append(3)
      id.withBytes { rows.tombstones.append(contentsOf: $0) }
    }

    /// The entries of the sessions of one status, in order of id, appended to `entries`:
    /// a range of the `session_ledger` index, with SQLite's own calls and nothing allocated
    /// per row. This is the one pass over the whole vault at every keyed open and write (but
    /// `list`'s, which makes the entries from its own pass). Rows restored by an undo since the
    /// last keyed write (`skipping`) still count as in the trash. A status other than the two
    /// is caught by the tag: its row is in neither range.
    static func scanSessions(
      _ db: Database, status: SessionStatus, skipping undone: Set<SessionID>,
      into entries: inout [UInt8], flushing flush: ((inout [UInt8]) -> Void)? = nil
    ) throws {
      let statement = try db.makeStatement(
        sql: """
          SELECT id, revision FROM session INDEXED BY session_ledger WHERE status = ?
          ORDER BY id
          """)
      try statement.setArguments([status.rawValue])
      let handle = statement.sqliteStatement
      while true {
        let code = sqlite3_step(handle)
        if code == SQLITE_DONE { break }
        guard code == SQLITE_ROW else {
          throw DatabaseError(
            resultCode: ResultCode(rawValue: code),
            message: String(cString: sqlite3_errmsg(db.sqliteConnection)), sql: statement.sql)
        }
        guard let digits = sqlite3_column_text(handle, 0), sqlite3_column_bytes(handle, 0) == 32,
          sqlite3_column_type(handle, 1) == SQLITE_INTEGER
        else { throw StoreError.tampered(.rows) }
        if !undone.isEmpty,
          let id = SessionID(storedDigits: UnsafeRawBufferPointer(start: digits, count: 32)),
          undone.contains(id)
        {
          continue
        }
        guard
          appendEntry(
            to: &entries, digits: digits, status: status, revision: sqlite3_column_int64(handle, 1))
        else { throw StoreError.tampered(.rows) }
        if let flush, entries.count >= 65_536 { flush(&entries) }
      }
    }

    /// Appends one session's entry (0x01 ‖ id ‖ status ‖ revision) made from the id's 32 hex
    /// digits as stored; false when they are not lowercase hex or the revision is negative.
    static func appendEntry(
      to entries: inout [UInt8], digits: UnsafePointer<UInt8>, status: SessionStatus,
      revision: Int64
    ) -> Bool {
      guard revision >= 0 else { return false }
      // Made on the stack, then copied in once: appending byte by byte, or growing the array
      // first, cost more than the rest of the entry together.
      var entry: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
      let valid = withUnsafeMutableBytes(of: &entry) { entry in
        hexValues.withUnsafeBufferPointer { hex in
          entry[0] = 1
          var bad: UInt8 = 0
          for index in 0..<16 {
            let high = hex[Int(digits[2 * index])], low = hex[Int(digits[2 * index + 1])]
            bad |= (high | low) & 0xF0
            entry[1 + index] = high << 4 | (low & 0x0F)
          }
          entry[17] = status == .complete ? 2 : 1
          entry.storeBytes(of: UInt64(revision).littleEndian, toByteOffset: 18, as: UInt64.self)
          return bad == 0
        }
      }
      withUnsafeBytes(of: &entry) { entries.append(contentsOf: $0.prefix(LedgerRows.sessionBytes)) }
      return valid
    }

    /// Each byte's value as a lowercase hex digit, 0xFF for any other byte (the id column's
    /// CHECK admits only lowercase hex).
    private static let hexValues: [UInt8] = (0..<256).map { byte in
      switch UInt8(byte) {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt8(byte) - UInt8(ascii: "0")
      case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt8(byte) - UInt8(ascii: "a") + 10
      default: 0xFF
      }
    }

    func tag(vaultID: [UInt8], generation: UInt64, key: SecureBytes) throws -> [UInt8] {
      try rows.tag(vaultID: vaultID, generation: generation, key: key)
    }

    static func statusByte(_ text: String) -> UInt8? {
      switch text {
      case SessionStatus.needsReflection.rawValue: 1
      case SessionStatus.complete.rawValue: 2
      default: nil
      }
    }

    static func append(_ value: UInt64, to bytes: inout [UInt8]) {
      bytes.append(littleEndian: value)
    }
  }
}
