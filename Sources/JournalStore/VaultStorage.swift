import Foundation
import JournalCore
import JournalCrypto
import JournalStore

public typealias ImportCount = SessionStore.ImportCount
public typealias ReadOrder = SessionStore.Order

/// The local vault as `SessionStorage`: sealed rows in one SQLite file (GRDB), the trash and
/// the tombstones beside them.
final class VaultStorage: SessionStorage {
  private let vault: Vault
  private let store: SessionStore

  init(
    vault: Vault, keys: VaultKeys, random: some RandomSource,
    accept: ((StoreError) throws -> Bool)? = nil, checkWhenListing: Bool = false
  ) throws {
    self.vault = vault
    self.store = try vault.sessions(
      keys: keys, random: random, accept: accept, checkWhenListing: checkWhenListing)
  }

  /// The keyed store itself, for sync (which writes what it agreed in one transaction).
  var sessions: SessionStore { store }

  /// The ledger's stamp as this store last checked or wrote it; nil for a vault not yet
  /// protected (one that could not be written since it gained a ledger).
  var stamp: LedgerStamp? { store.checked }

  /// Checks the vault as it is now; its stamp.
  func recheck() throws -> LedgerStamp? { try store.recheck() }

  /// Stamps the vault as it is one generation past `generation` (or its own, if later).
  func restamp(after generation: UInt64) throws -> LedgerStamp {
    try store.restamp(after: generation)
  }

  /// Called with each new stamp after a write.
  var onStamp: ((LedgerStamp) -> Void)? {
    get { store.onStamp }
    set { store.onStamp = newValue }
  }

  func summaries(needsReflection: Bool) throws -> (sessions: [SessionSummary], damaged: [SessionID])
  {
    try store.summaries(status: needsReflection ? .needsReflection : nil)
  }

  func session(_ id: SessionID) throws -> Session { try store.session(id) }

  func streamSummaries(
    needsReflection: Bool, order: ReadOrder,
    include: @escaping @Sendable (SessionSummary) -> Bool, newest: Int?,
    begin: (_ count: Int, _ damaged: [SessionID]) throws -> Void,
    _ body: (SessionSummary) throws -> Void
  ) throws -> [SessionID] {
    try store.streamSummaries(
      status: needsReflection ? .needsReflection : nil, order: order, include: include,
      newest: newest, begin: begin, body)
  }

  func streamSessions(
    order: ReadOrder, include: @escaping @Sendable (SessionSummary) -> Bool, newest: Int?,
    begin: (_ count: Int, _ damaged: [SessionID]) throws -> Void,
    _ body: (Session) throws -> Void
  ) throws -> [SessionID] {
    try store.streamSessions(
      order: order, include: include, newest: newest, begin: begin, body)
  }

  func streamSessions<Made: Sendable>(
    order: ReadOrder, include: @escaping @Sendable (SessionSummary) -> Bool,
    transform: @escaping @Sendable (Session) -> Made?, _ body: (Made) throws -> Void
  ) throws -> [SessionID] {
    try store.streamSessions(order: order, include: include, transform: transform, body)
  }

  func openEvery() throws -> (intact: Int, damaged: [SessionID]) { try store.openEvery() }

  /// Opens the sealed additions into sessions (one keyed write).
  func openAdditions(keys: VaultKeys, now: Date, random: some RandomSource) throws
    -> OpenedAdditions
  {
    try store.openAdditions(keys: keys, now: now, random: random)
  }

  func resolve(_ text: String) throws -> SessionID { try store.resolve(text) }

  /// Turns sealed capture on (its public key) or off (nil), in a keyed write.
  func setSealing(publicKey: [UInt8]?) throws { try store.setSealing(publicKey: publicKey) }

  /// Replaces or removes the recovery slot, in a keyed write.
  func setRecoverySlot(_ slot: [UInt8]?) throws { try store.setRecoverySlot(slot) }

  func save(_ session: Session) throws { try store.upsert(session) }

  func update(_ id: SessionID, _ change: (inout Session) throws -> Void) throws -> Session {
    try store.update(id, change)
  }

  func importSessions(
    dryRun: Bool, restorePurged: Bool,
    _ produce: (_ take: (Session) throws -> Void) throws -> Void
  ) throws -> ImportCount {
    try store.importSessions(dryRun: dryRun, restorePurged: restorePurged, produce)
  }

  func delete(_ ids: [SessionID], now: Date, purgeAfter: Date) throws -> Deletion {
    let deletion = try store.trash(ids, now: now, purgeAfter: purgeAfter)
    return Deletion(batch: deletion.batch, purgeAfter: deletion.purgeAfter)
  }

  func restore(_ deletion: Deletion?, now: Date) throws -> [SessionID]? {
    try vault.undo(deletion.map(Self.stored), now: now).map(\.ids)
  }

  func isPending(_ deletion: Deletion) throws -> Bool {
    try vault.isTrashed(Self.stored(deletion))
  }

  private static func stored(_ deletion: Deletion) -> Vault.Deletion {
    Vault.Deletion(batch: deletion.batch, purgeAfter: deletion.purgeAfter)
  }

  func purgeExpired(now: Date) throws -> Int { try vault.purgeExpired(now: now) }

  func tombstones() throws -> [SessionID] { try vault.tombstones() }

  func changes(since point: Date) throws -> StorageChanges {
    let (summaries, damaged) = try store.summaries(status: nil)
    let saved = summaries.filter { $0.updated > point }.sorted { $0.updated < $1.updated }
    return StorageChanges(saved: saved.map(\.id), purged: try tombstones(), damaged: damaged)
  }
}
