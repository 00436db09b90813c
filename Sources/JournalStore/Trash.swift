import Foundation
import GRDB
import JournalCore
import JournalStorage

/// Deleted sessions during their undo window, and their purge.
///
/// A deletion moves whole rows, sealed columns untouched, from `session` to `trash` in one
/// transaction, with the instant after which they are purged. Undo moves the latest batch
/// back in one transaction. Neither needs a key: undo must be quick, and a purge must run on
/// any command. A purge deletes the rows (secure_delete zeroes their cells and freed pages)
/// and then checkpoints the WAL with TRUNCATE, so no earlier copy of a page holding their
/// ciphertext stays in the WAL file; each purged id is kept as a tombstone for a later sync.
///
/// Undo and purge leave the trash row behind, marked `undone` or `purged` with its ciphertext
/// removed, for the ledger: they run without the key, and the ledger tells from those marks
/// what the last keyed write saw. The next keyed write removes them (`Ledger.settle`).
extension Vault {
  /// What an undo restored.
  public struct Restored: Sendable, Equatable {
    public let ids: [SessionID]
    /// Sessions of the deletion whose trash row holds values journal never writes (planted):
    /// left in the trash, where their window ends as it would.
    public var stayed: [SessionID] = []
    /// Sessions restored without their reminder, whose values in the trash were planted.
    public var remindersDropped: [SessionID] = []
  }

  /// Moves the sessions with these ids to the trash as one batch, purged at `purgeAfter`, in
  /// the keyed write `db` (SessionStore.trash), after the ledger has settled the trash.
  func trash(
    _ ids: [SessionID], now: Date, purgeAfter: Date, _ db: Database
  ) throws -> Deletion {
    let deletedAt = Self.millis(now)
    let purge = max(Self.millis(purgeAfter), deletedAt)
    // The next batch after the last one in range: a planted number is no batch of ours.
    let batch =
      (try Int64.fetchOne(
        db, sql: "SELECT max(batch) FROM trash WHERE batch BETWEEN ? AND ?",
        arguments: [StoredRange.counter.lowerBound, StoredRange.counter.upperBound - 1]) ?? 0) + 1
    for id in ids {
      try db.execute(
        sql: """
          INSERT INTO trash (id, batch, deleted_at, purge_after, status, summary, body,
            reminder_due, reminder_repeat, reminder_last_fired, revision)
          SELECT s.id, ?, ?, ?, s.status, s.summary, s.body, r.due, r.repeat_seconds,
            r.last_fired, s.revision
          FROM session s LEFT JOIN reminder r ON r.id = s.id WHERE s.id = ?
          """,
        arguments: [batch, deletedAt, purge, id.hex])
      guard db.changesCount == 1 else { throw StoreError.noMatch(prefix: id.short) }
      try db.execute(sql: "DELETE FROM session WHERE id = ?", arguments: [id.hex])
      // A deleted session's reminder is cancelled with it, and comes back with an undo.
      try db.execute(sql: "DELETE FROM reminder WHERE id = ?", arguments: [id.hex])
    }
    return Deletion(batch: batch, purgeAfter: StoredRange.date(millis: purge) ?? purgeAfter)
  }

  /// Restores the most recent deletion if its window is still open at `now` (the window is
  /// half-open: at `purge_after` itself it has closed). Nil when there is nothing to undo.
  public func undoLatest(now: Date) throws -> Restored? {
    try undo(nil, now: now)
  }

  /// Restores one given deletion (the countdown's own), if its window is still open. A
  /// deletion is its batch and its window's end together: a batch number undone elsewhere
  /// can be taken again by a later deletion, which is not this one.
  public func undo(_ wanted: Deletion?, now: Date) throws -> Restored? {
    let instant = Self.millis(now)
    return try write { db in
      // Only a batch journal could have numbered: a planted one is never "the latest".
      let sql =
        wanted == nil
        ? """
        SELECT batch FROM trash WHERE purge_after > ? AND outcome IS NULL
          AND typeof(batch) = 'integer' AND batch BETWEEN 0 AND \(StoredRange.counter.upperBound - 1)
        ORDER BY batch DESC LIMIT 1
        """
        : """
        SELECT batch FROM trash WHERE purge_after > ? AND batch = ? AND purge_after = ?
          AND outcome IS NULL LIMIT 1
        """
      let arguments: StatementArguments =
        wanted.map { [instant, $0.batch, Self.millis($0.purgeAfter)] } ?? [instant]
      guard let batch = try Int64.fetchOne(db, sql: sql, arguments: arguments) else { return nil }
      let rows = try Row.fetchAll(
        db, sql: "SELECT rowid, id FROM trash WHERE batch = ? AND outcome IS NULL ORDER BY id",
        arguments: [batch])
      var restored = Restored(ids: [])
      for row in rows {
        let rowid: Int64 = row[0]
        let id = (try? row.decode(String.self, atIndex: 1)).flatMap(SessionID.init)
        // Row by row: one whose values journal never writes (a planted status, a column
        // too short) is left in the trash and named, never failing the others' undo.
        do {
          try db.execute(
            sql: """
              INSERT INTO session (id, status, summary, body, revision)
              SELECT id, status, summary, body, revision FROM trash WHERE rowid = ?
              """,
            arguments: [rowid])
        } catch let error as DatabaseError
          where error.resultCode == .SQLITE_CONSTRAINT || error.resultCode == .SQLITE_MISMATCH
        {
          if let id { restored.stayed.append(id) }
          continue
        }
        guard let id else { continue }
        // The reminder comes back only with values journal could have written.
        try db.execute(
          sql: """
            INSERT OR REPLACE INTO reminder (id, due, repeat_seconds, last_fired)
            SELECT id, reminder_due, reminder_repeat, reminder_last_fired FROM trash
            WHERE rowid = ? AND reminder_due IS NOT NULL AND reminder_repeat IS NOT NULL
              AND typeof(reminder_due) = 'integer'
              AND reminder_due BETWEEN \(StoredRange.millis.lowerBound) AND \(StoredRange.millis.upperBound)
              AND typeof(reminder_repeat) = 'integer'
              AND reminder_repeat BETWEEN \(StoredRange.repeatSeconds.lowerBound) AND \(StoredRange.repeatSeconds.upperBound)
              AND (reminder_last_fired IS NULL OR (typeof(reminder_last_fired) = 'integer'
                AND reminder_last_fired BETWEEN \(StoredRange.millis.lowerBound) AND \(StoredRange.millis.upperBound)))
            """,
          arguments: [rowid])
        let reminderRestored = db.changesCount > 0
        let hadReminder =
          try Bool.fetchOne(
            db, sql: "SELECT reminder_due IS NOT NULL FROM trash WHERE rowid = ?",
            arguments: [rowid]) ?? false
        if hadReminder, !reminderRestored { restored.remindersDropped.append(id) }
        // The row stays, marked and without its ciphertext, for the ledger (see above).
        try db.execute(
          sql: """
            UPDATE trash SET outcome = 'undone', summary = X'', body = X'', reminder_due = NULL,
              reminder_repeat = NULL, reminder_last_fired = NULL
            WHERE rowid = ?
            """,
          arguments: [rowid])
        restored = Restored(
          ids: restored.ids + [id], stayed: restored.stayed,
          remindersDropped: restored.remindersDropped)
      }
      return restored
    }
  }

  /// Purges every deletion whose window has closed at `now`. Returns how many sessions.
  @discardableResult
  public func purgeExpired(now: Date) throws -> Int {
    let instant = Self.millis(now)
    // Every command calls this: a plain read first, so the common case (nothing to purge)
    // takes no write lock.
    let due = try read { db in
      try Bool.fetchOne(
        db,
        sql: "SELECT EXISTS (SELECT 1 FROM trash WHERE purge_after <= ? AND outcome IS NULL)",
        arguments: [instant])
    }
    // A vault that cannot be written keeps its expired trash until it can be: nothing in
    // the trash is ever shown.
    guard due == true, readOnly == nil else { return 0 }
    let purged = try write { db -> Int in
      let ids = try String.fetchAll(
        db, sql: "SELECT id FROM trash WHERE purge_after <= ? AND outcome IS NULL",
        arguments: [instant])
      guard !ids.isEmpty else { return 0 }
      // The ciphertext goes (secure_delete zeroes the cells it leaves); the row stays, marked,
      // for the ledger, and the next keyed write removes it.
      try db.execute(
        sql: """
          UPDATE trash SET outcome = 'purged', summary = X'', body = X'', reminder_due = NULL,
            reminder_repeat = NULL, reminder_last_fired = NULL
          WHERE purge_after <= ? AND outcome IS NULL
          """,
        arguments: [instant])
      for id in ids {
        try db.execute(sql: "INSERT OR IGNORE INTO tombstone (id) VALUES (?)", arguments: [id])
      }
      return ids.count
    }
    if purged > 0 {
      do {
        try truncateWAL()
      } catch StoreError.busy {
        // Another journal is reading: the WAL is emptied when the last connection closes
        // (SQLite checkpoints and removes it then), or by the next purge.
      }
    }
    return purged
  }

  /// Whether `deletion` is still in the trash: not undone (here or by another process) and
  /// not purged.
  public func isTrashed(_ deletion: Deletion) throws -> Bool {
    try read { db in
      try Bool.fetchOne(
        db,
        sql: """
          SELECT EXISTS (SELECT 1 FROM trash WHERE batch = ? AND purge_after = ?
            AND outcome IS NULL)
          """,
        arguments: [deletion.batch, Self.millis(deletion.purgeAfter)]) ?? false
    }
  }

  /// The sessions waiting in the trash (for tests and status).
  public func trashedIDs() throws -> [SessionID] {
    try read { db in
      try String.fetchAll(db, sql: "SELECT id FROM trash WHERE outcome IS NULL ORDER BY id")
        .compactMap(SessionID.init)
    }
  }

  /// The ids of purged sessions, kept so that a later sync can tell a deletion from a
  /// session it has not seen yet.
  public func tombstones() throws -> [SessionID] {
    try read { db in
      try String.fetchAll(db, sql: "SELECT id FROM tombstone ORDER BY id")
        .compactMap(SessionID.init)
    }
  }

  /// Copies the WAL into the database and empties it, so the WAL holds no old page images.
  func truncateWAL() throws {
    do {
      try database.writeWithoutTransaction { db in
        let row = try Row.fetchOne(db, sql: "PRAGMA wal_checkpoint(TRUNCATE)")
        // (busy, log frames, checkpointed frames); busy = 1 when a reader held it back.
        if let busy: Int = row?[0], busy != 0 { throw StoreError.busy }
      }
    } catch {
      throw Vault.map(error, path: path)
    }
  }

  static func millis(_ date: Date) -> Int64 {
    StoredRange.millis(date)
  }

  func read<T>(_ body: (Database) throws -> T) throws -> T {
    do {
      return try database.read(body)
    } catch {
      throw Vault.map(error, path: path)
    }
  }

  /// Runs `body` with SQLite's page cache at `kibibytes` (2,000 otherwise), for a write of
  /// many rows.
  func withCacheSize<T>(kibibytes: Int, _ body: () throws -> T) throws -> T {
    try database.writeWithoutTransaction { db in
      try db.execute(sql: "PRAGMA cache_size = -\(kibibytes)")
    }
    defer {
      try? database.writeWithoutTransaction { db in
        try db.execute(sql: "PRAGMA cache_size = -2000")
      }
    }
    return try body()
  }

  func write<T>(_ body: (Database) throws -> T) throws -> T {
    if let readOnly { throw StoreError.readOnly(path: path, reason: readOnly) }
    do {
      return try database.writeWithoutTransaction { db in
        var result: T?
        try db.inTransaction(.immediate) {
          result = try body(db)
          return .commit
        }
        guard let result else { throw StoreError.busy }
        return result
      }
    } catch {
      throw Vault.map(error, path: path)
    }
  }
}
