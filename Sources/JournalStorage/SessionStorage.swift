import Foundation
import JournalCore

/// Where the use cases keep sessions: the storage seam.
///
/// `JournalVault` talks to this protocol only; the local vault (JournalStore's
/// `VaultStorage`, GRDB over one SQLite file) is its one implementation, and sync is the second
/// user of the same seam (`SyncStorage`), never another extension of the store. Every method either does all it says
/// or throws having changed nothing (each is one transaction in the vault).
public protocol SessionStorage: AnyObject {
  /// Summaries newest first, optionally only those waiting for reflection, and the ids of
  /// rows that could not be opened.
  func summaries(needsReflection: Bool) throws -> (sessions: [SessionSummary], damaged: [SessionID])

  /// What `list` shows of the sessions (only those waiting for reflection, or all) that
  /// `include` takes, newest first, and the ids of rows that could not be opened: 32 bytes a
  /// session (`ListRow`).
  func listRows(
    needsReflection: Bool, include: @escaping @Sendable (SessionSummary) -> Bool
  ) throws -> (rows: ListRows, damaged: [SessionID])

  /// The whole session with this id.
  func session(_ id: SessionID) throws -> Session

  /// The summaries (only those waiting for reflection, or all) that `include` takes, handed
  /// to `body` one at a time in `order` (`begin` told first how many, and which rows could
  /// not be opened so far); the ids of rows that could not be opened. Memory
  /// does not grow with the journal beyond a few bytes a session.
  func streamSummaries(
    needsReflection: Bool, order: ReadOrder,
    include: @escaping @Sendable (SessionSummary) -> Bool, newest: Int?,
    begin: (_ count: Int, _ damaged: [SessionID]) throws -> Void,
    _ body: (SessionSummary) throws -> Void
  ) throws -> [SessionID]

  /// Every whole session whose summary `include` takes, handed to `body` one at a time in
  /// `order`; the ids of rows that could not be opened. As `streamSummaries`, memory does not
  /// grow with the journal.
  func streamSessions(
    order: ReadOrder, include: @escaping @Sendable (SessionSummary) -> Bool, newest: Int?,
    begin: (_ count: Int, _ damaged: [SessionID]) throws -> Void,
    _ body: (Session) throws -> Void
  ) throws -> [SessionID]

  /// Every whole session whose summary `include` takes, opened and handed to `transform`
  /// on every core, what it makes handed to `body` in `order`; the ids of rows that could not
  /// be opened.
  func streamSessions<Made: Sendable>(
    order: ReadOrder, include: @escaping @Sendable (SessionSummary) -> Bool,
    transform: @escaping @Sendable (Session) -> Made?, _ body: (Made) throws -> Void
  ) throws -> [SessionID]

  /// For a search: every whole session whose summary `include` takes and that `matches`,
  /// opened and handed to `transform` on every core, what it makes handed to `body` in
  /// `order`; the ids of rows that could not be opened. Reads every row once in the
  /// storage's own order, and only the matches again in `order`.
  func streamMatching<Made: Sendable>(
    order: ReadOrder, include: @escaping @Sendable (SessionSummary) -> Bool,
    matches: @escaping @Sendable (Session) -> Bool,
    transform: @escaping @Sendable (Session) -> Made?, _ body: (Made) throws -> Void
  ) throws -> [SessionID]

  /// Opens every session without keeping any: how many opened, and the ids of those that
  /// did not.
  func openEvery() throws -> (intact: Int, damaged: [SessionID])

  /// The one session whose id starts with what the person typed.
  func resolve(_ text: String) throws -> SessionID

  /// Saves `session` under its id, new or replacing.
  func save(_ session: Session) throws

  /// Reads the session, lets `change` edit it, and saves the result, in one transaction.
  func update(_ id: SessionID, _ change: (inout Session) throws -> Void) throws -> Session

  /// Brings in the sessions `produce` hands over one at a time, all or nothing (anything it
  /// throws undoes them all); the later edit of two copies wins; a purged session comes back
  /// only with `restorePurged`, and one in the trash is left there. With `overlap` (a source
  /// that cannot stall, such as a regular file), `produce` may run on another thread while
  /// this one writes; it is done before this returns.
  func importSessions(
    dryRun: Bool, restorePurged: Bool, overlap: Bool,
    _ produce: (_ take: (Session) throws -> Void) throws -> Void
  ) throws -> ImportCount

  /// Moves sessions to the trash as one deletion, purged after `purgeAfter`.
  func delete(_ ids: [SessionID], now: Date, purgeAfter: Date) throws -> Deletion

  /// Restores `deletion` (or the latest, when nil) if its window is still open at `now`;
  /// nil when there is nothing to restore.
  func restore(_ deletion: Deletion?, now: Date) throws -> [SessionID]?

  /// Whether `deletion` still waits in the trash: not undone (by anyone) and not purged.
  func isPending(_ deletion: Deletion) throws -> Bool

  /// Purges deletions whose window has closed; returns how many sessions went.
  @discardableResult
  func purgeExpired(now: Date) throws -> Int

  /// The ids of sessions purged for good.
  func tombstones() throws -> [SessionID]

  /// What changed after `point`: sessions saved since (by their `updated` time) and
  /// sessions purged (all tombstones: a purge keeps no time).
  func changes(since point: Date) throws -> StorageChanges
}

/// One deletion: its batch and when its window closes.
public struct Deletion: Sendable, Equatable {
  public let batch: Int64
  public let purgeAfter: Date

  public init(batch: Int64, purgeAfter: Date) {
    self.batch = batch
    self.purgeAfter = purgeAfter
  }
}

/// What `SessionStorage.changes(since:)` found.
public struct StorageChanges: Sendable, Equatable {
  /// Sessions saved after the point, oldest change first.
  public let saved: [SessionID]
  /// Sessions purged for good.
  public let purged: [SessionID]
  /// Rows that could not be opened to tell when they changed.
  public let damaged: [SessionID]

  public init(saved: [SessionID], purged: [SessionID], damaged: [SessionID]) {
    self.saved = saved
    self.purged = purged
    self.damaged = damaged
  }
}
