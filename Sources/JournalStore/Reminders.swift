import Foundation
import GRDB

/// Reminders to reflect, kept in the clear (session id, due time, repeat, last fired) so
/// that they can fire without the passphrase. No reminder holds anything of the session
/// but its id. See SECURITY.md, "Reminders".
extension Vault {
  /// One pending reminder.
  public struct Reminder: Sendable, Equatable {
    public let id: String
    public let due: Date
    public let repeatInterval: TimeInterval
    public let lastFired: Date?

    /// Whether the session has been waiting since a reminder came due at least once.
    public func isWaiting(at now: Date) -> Bool { lastFired != nil || due <= now }
  }

  /// The status of a session, read from the clear column (no key needed).
  public func status(of id: String) throws -> String? {
    try read { db in
      try String.fetchOne(db, sql: "SELECT status FROM session WHERE id = ?", arguments: [id])
    }
  }

  /// Ids of sessions starting with `prefix` (at most a few), from the clear column.
  public func sessionIDs(startingWith prefix: String) throws -> [String] {
    try read { db in
      try String.fetchAll(
        db, sql: "SELECT id FROM session WHERE id >= ? AND id < ? ORDER BY id LIMIT 6",
        arguments: [prefix, prefix + "g"])
    }
  }

  /// Sets (or replaces) the reminder of a session waiting for reflection.
  public func setReminder(_ id: String, due: Date, repeatInterval: TimeInterval) throws {
    try write { db in
      try db.execute(
        sql: """
          INSERT INTO reminder (id, due, repeat_seconds, last_fired)
          SELECT id, ?, ?, NULL FROM session WHERE id = ? AND status = 'needs_reflection'
          ON CONFLICT (id) DO UPDATE SET due = excluded.due,
            repeat_seconds = excluded.repeat_seconds, last_fired = NULL
          """,
        arguments: [Self.millis(due), Int64(repeatInterval.rounded()), id])
    }
  }

  /// Cancels a session's reminder. Returns whether there was one.
  @discardableResult
  public func cancelReminder(_ id: String) throws -> Bool {
    try write { db in
      try db.execute(sql: "DELETE FROM reminder WHERE id = ?", arguments: [id])
      return db.changesCount > 0
    }
  }

  /// Every pending reminder, soonest first.
  public func reminders() throws -> [Reminder] {
    try read { db in
      try Row.fetchAll(
        db, sql: "SELECT id, due, repeat_seconds, last_fired FROM reminder ORDER BY due, id"
      ).map(Self.reminder)
    }
  }

  /// Fires what is due: calls `deliver` with the reminders due at `now`, then moves each to
  /// its next time (from `next`), in one transaction — so two runs at once fire once.
  public func fireDue(
    now: Date, next: (Reminder) -> Date, deliver: ([Reminder]) -> Void
  ) throws -> [Reminder] {
    let instant = Self.millis(now)
    return try write { db in
      let due = try Row.fetchAll(
        db,
        sql:
          "SELECT id, due, repeat_seconds, last_fired FROM reminder WHERE due <= ? ORDER BY due, id",
        arguments: [instant]
      ).map(Self.reminder)
      guard !due.isEmpty else { return [] }
      for reminder in due {
        try db.execute(
          sql: "UPDATE reminder SET due = ?, last_fired = ? WHERE id = ?",
          arguments: [Self.millis(next(reminder)), instant, reminder.id])
      }
      deliver(due)
      return due
    }
  }

  private static func reminder(_ row: Row) -> Reminder {
    let due: Int64 = row[1]
    let repeatSeconds: Int64 = row[2]
    let fired: Int64? = row[3]
    return Reminder(
      id: row[0], due: Date(timeIntervalSince1970: Double(due) / 1000),
      repeatInterval: TimeInterval(repeatSeconds),
      lastFired: fired.map { Date(timeIntervalSince1970: Double($0) / 1000) })
  }
}
