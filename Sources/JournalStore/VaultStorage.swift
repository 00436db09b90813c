import Foundation
import JournalCore
import JournalCrypto
import JournalStorage

/// The local vault as the storage seam: `SessionStorage` for the use cases and `SyncStorage`
/// for sync, over sealed rows in one SQLite file (GRDB), the trash and the tombstones beside
/// them. The one implementation of both.
public final class VaultStorage: SessionStorage, SyncStorage {
  private let vault: Vault
  private let store: SessionStore

  public init(
    vault: Vault, keys: VaultKeys, random: some RandomSource,
    accept: ((StoreError) throws -> Bool)? = nil, check: LedgerCheck = .whole
  ) throws {
    self.vault = vault
    self.store = try vault.sessions(keys: keys, random: random, accept: accept, check: check)
  }

  /// How many keyed writes were made through this storage (a write starts a background
  /// sync, when on).
  public var writes: Int { store.writes }

  /// The ledger's stamp as this store last checked or wrote it; nil for a vault not yet
  /// protected (one that could not be written since it gained a ledger).
  public var stamp: LedgerStamp? { store.checked }

  /// Checks the vault as it is now; its stamp.
  public func recheck() throws -> LedgerStamp? { try store.recheck() }

  /// Stamps the vault as it is one generation past `generation` (or its own, if later).
  public func restamp(after generation: UInt64) throws -> LedgerStamp {
    try store.restamp(after: generation)
  }

  /// The last whole check this store made or was handed, to keep for the next command.
  public var wholeCheck: WholeCheck? { store.wholeCheck }

  /// Hands over a whole check an earlier command made and kept (`SessionStore.remember`).
  public func remember(_ check: WholeCheck) { store.remember(check) }

  /// Hands over, at the first keyed write, the whole check `kept` reads then
  /// (`SessionStore.rememberAtFirstWrite`).
  public func rememberAtFirstWrite(_ kept: @escaping () -> WholeCheck?) {
    store.rememberAtFirstWrite(kept)
  }

  /// The `count` newest sessions' list rows from the kept check's newest, when they serve
  /// (`SessionStore.keptNewest`); nil otherwise.
  public func keptNewest(_ count: Int) throws -> ListRows? { try store.keptNewest(count) }

  /// Called with each new stamp after a write.
  public var onStamp: ((LedgerStamp) -> Void)? {
    get { store.onStamp }
    set { store.onStamp = newValue }
  }

  public func summaries(needsReflection: Bool) throws -> (
    sessions: [SessionSummary], damaged: [SessionID]
  ) {
    try store.summaries(status: needsReflection ? .needsReflection : nil)
  }

  public func listRows(
    needsReflection: Bool, include: @escaping @Sendable (SessionSummary) -> Bool
  ) throws -> (rows: ListRows, damaged: [SessionID]) {
    try store.listRows(status: needsReflection ? .needsReflection : nil, include: include)
  }

  public func session(_ id: SessionID) throws -> Session { try store.session(id) }

  public func streamSummaries(
    needsReflection: Bool, order: ReadOrder,
    include: @escaping @Sendable (SessionSummary) -> Bool, newest: Int?,
    begin: (_ count: Int, _ damaged: [SessionID]) throws -> Void,
    _ body: (SessionSummary) throws -> Void
  ) throws -> [SessionID] {
    try store.streamSummaries(
      status: needsReflection ? .needsReflection : nil, order: order, include: include,
      newest: newest, begin: begin, body)
  }

  public func streamSessions(
    order: ReadOrder, include: @escaping @Sendable (SessionSummary) -> Bool, newest: Int?,
    begin: (_ count: Int, _ damaged: [SessionID]) throws -> Void,
    _ body: (Session) throws -> Void
  ) throws -> [SessionID] {
    try store.streamSessions(
      order: order, include: include, newest: newest, begin: begin, body)
  }

  public func streamSessions<Made: Sendable>(
    order: ReadOrder, include: @escaping @Sendable (SessionSummary) -> Bool,
    transform: @escaping @Sendable (Session) -> Made?, _ body: (Made) throws -> Void
  ) throws -> [SessionID] {
    try store.streamSessions(order: order, include: include, transform: transform, body)
  }

  public func streamMatching<Made: Sendable>(
    order: ReadOrder, include: @escaping @Sendable (SessionSummary) -> Bool,
    matches: @escaping @Sendable (Session) -> Bool,
    transform: @escaping @Sendable (Session) -> Made?, _ body: (Made) throws -> Void
  ) throws -> [SessionID] {
    try store.streamMatching(
      order: order, include: include, matches: matches, transform: transform, body)
  }

  public func openEvery() throws -> (intact: Int, damaged: [SessionID]) { try store.openEvery() }

  /// Opens the sealed additions into sessions (one keyed write).
  public func openAdditions(
    keys: VaultKeys, now: Date, random: some RandomSource, reserved: Set<SessionID> = []
  ) throws -> OpenedAdditions {
    try store.openAdditions(keys: keys, now: now, random: random, reserved: reserved)
  }

  public func resolve(_ text: String) throws -> SessionID { try store.resolve(text) }

  /// Turns sealed capture on (its public key) or off (nil), in a keyed write.
  public func setSealing(publicKey: [UInt8]?) throws { try store.setSealing(publicKey: publicKey) }

  /// Replaces or removes the recovery slot, in a keyed write.
  public func setRecoverySlot(_ slot: [UInt8]?) throws { try store.setRecoverySlot(slot) }

  public func save(_ session: Session) throws { try store.upsert(session) }

  public func update(_ id: SessionID, _ change: (inout Session) throws -> Void) throws -> Session {
    try store.update(id, change)
  }

  public func importSessions(
    dryRun: Bool, restorePurged: Bool, overlap: Bool,
    _ produce: (_ take: (Session) throws -> Void) throws -> Void
  ) throws -> ImportCount {
    try store.importSessions(
      dryRun: dryRun, restorePurged: restorePurged, overlap: overlap, produce)
  }

  public func delete(_ ids: [SessionID], now: Date, purgeAfter: Date) throws -> Deletion {
    try store.trash(ids, now: now, purgeAfter: purgeAfter)
  }

  public func restore(_ deletion: Deletion?, now: Date) throws -> [SessionID]? {
    try vault.undo(deletion, now: now).map(\.ids)
  }

  public func isPending(_ deletion: Deletion) throws -> Bool {
    try vault.isTrashed(deletion)
  }

  public func purgeExpired(now: Date) throws -> Int { try vault.purgeExpired(now: now) }

  public func tombstones() throws -> [SessionID] {
    try store.checkIfListingDidNot()
    return try vault.tombstones()
  }

  public func changes(since point: Date) throws -> StorageChanges {
    let (summaries, damaged) = try store.summaries(status: nil)
    let saved = summaries.filter { $0.updated > point }.sorted { $0.updated < $1.updated }
    return StorageChanges(saved: saved.map(\.id), purged: try tombstones(), damaged: damaged)
  }

  // MARK: - SyncStorage

  public var keyHeader: KeyHeader { vault.header }

  public func syncSettings() throws -> SyncSettings? { try vault.syncSettings() }

  public func beginSync(_ settings: SyncSettings) throws { try store.beginSync(settings) }

  public func leaveSync() throws { try store.leaveSync() }

  public func noteSync(at time: Date) throws { try vault.noteSync(at: time) }

  public func setSyncBackground(_ on: Bool) throws { try vault.setSyncBackground(on) }

  public func syncPending() throws -> (sessions: Int, removals: Int) { try vault.syncPending() }

  public func syncOutbox(limit: Int?) throws -> (changed: [SessionID], removed: [SessionID]) {
    try store.syncOutbox(limit: limit)
  }

  public func syncAgreed() throws -> [SessionID] { try store.syncAgreed() }

  public func syncLocal(_ ids: [SessionID]) throws -> (
    local: [SessionID: SyncLocal], tombstoned: Set<SessionID>
  ) {
    try store.syncLocal(ids)
  }

  public func fingerprint(_ session: Session, _ field: SyncField) throws -> [UInt8] {
    try store.fingerprint(session, field)
  }

  public func commitSync(_ commit: SyncCommit) throws -> Bool { try store.commitSync(commit) }
}
