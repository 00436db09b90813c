import GRDB
import GRDBSQLite

/// The statements an import runs for every session, prepared once and stepped with SQLite's
/// own calls: through GRDB's arguments (a `DatabaseValue` per column, the sealed columns
/// copied into `Data` and again into SQLite) they were a fifth of an import.
struct ImportRows {
  private let lookup: Statement
  private let gone: Statement
  private let upsert: Statement
  private let db: Database
  /// Whether any reminder was waiting when the import began: an import adds none, so with
  /// none there is none to clear when a session comes in complete.
  let reminders: Bool

  init(_ db: Database) throws {
    self.db = db
    lookup = try db.cachedStatement(sql: "SELECT revision FROM session WHERE id = ?")
    gone = try db.cachedStatement(
      sql: """
        SELECT EXISTS (SELECT 1 FROM tombstone WHERE id = ?1),
          EXISTS (SELECT 1 FROM trash WHERE id = ?1 AND outcome IS NULL)
        """)
    upsert = try db.cachedStatement(sql: SessionStore.upsertSQL)
    reminders = try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM reminder)") ?? true
  }

  /// The revision of the session row with this id (its 32 hex digits), nil when there is
  /// none. A value that is not an integer reads as SQLite converts it, as GRDB's did.
  func revision(of id: String) throws -> Int64? {
    let handle = lookup.sqliteStatement
    defer { sqlite3_reset(handle) }
    try bind(id, to: handle)
    guard try step(handle, lookup) else { return nil }
    return sqlite3_column_int64(handle, 0)
  }

  /// Whether this vault purged the id (a tombstone), and whether it holds it in the trash.
  func gone(_ id: String) throws -> (purged: Bool, trashed: Bool) {
    let handle = gone.sqliteStatement
    defer { sqlite3_reset(handle) }
    try bind(id, to: handle)
    guard try step(handle, gone) else { return (false, false) }
    return (sqlite3_column_int64(handle, 0) != 0, sqlite3_column_int64(handle, 1) != 0)
  }

  /// Writes a session's row (`SessionStore.upsertSQL`) from its sealed columns.
  func insert(id: String, status: String, summary: [UInt8], body: [UInt8], revision: Int64)
    throws
  {
    let handle = upsert.sqliteStatement
    defer {
      sqlite3_reset(handle)
      sqlite3_clear_bindings(handle)
    }
    try bind(id, to: handle)
    try check(sqlite3_bind_text(handle, 2, status, -1, SessionStore.transient))
    try summary.withUnsafeBytes { summary in
      try body.withUnsafeBytes { body in
        // SQLITE_STATIC: the bytes live until the step below, which copies them.
        try check(
          sqlite3_bind_blob(handle, 3, summary.baseAddress, Int32(summary.count), nil))
        try check(sqlite3_bind_blob(handle, 4, body.baseAddress, Int32(body.count), nil))
        try check(sqlite3_bind_int64(handle, 5, revision))
        _ = try step(handle, upsert)
      }
    }
  }

  private func bind(_ id: String, to handle: SQLiteStatement) throws {
    try check(sqlite3_bind_text(handle, 1, id, -1, SessionStore.transient))
  }

  private func check(_ code: Int32) throws {
    guard code == SQLITE_OK else { throw error(code, nil) }
  }

  private func step(_ handle: SQLiteStatement, _ statement: Statement) throws -> Bool {
    let code = sqlite3_step(handle)
    if code == SQLITE_ROW { return true }
    guard code == SQLITE_DONE else { throw error(code, statement.sql) }
    return false
  }

  private func error(_ code: Int32, _ sql: String?) -> DatabaseError {
    DatabaseError(
      resultCode: ResultCode(rawValue: code),
      message: String(cString: sqlite3_errmsg(db.sqliteConnection)), sql: sql)
  }
}
