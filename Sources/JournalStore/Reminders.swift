import Foundation
import GRDB
import JournalCore

/// Reminders to reflect, kept in the clear (session id, due time, repeat, last fired) so
/// that they can fire without the passphrase. No reminder holds anything of the session
/// but its id. See SECURITY.md, "Reminders".
extension Vault {
  /// One pending reminder.
  public struct Reminder: Sendable, Equatable {
    public let id: SessionID
    public let due: Date
    public let repeatInterval: TimeInterval
    public let lastFired: Date?

    /// Whether the session has been waiting since a reminder came due at least once.
    public func isWaiting(at now: Date) -> Bool { lastFired != nil || due <= now }
  }

  /// The status of a session, read from the clear columns (no key needed): a session, or a
  /// new one waiting sealed; complete once a sealed reflection waits for it.
  public func status(of id: SessionID) throws -> String? {
    try read { db in
      try String.fetchOne(
        db,
        sql: """
          SELECT CASE WHEN EXISTS (SELECT 1 FROM addition
                                    WHERE id = ?1 AND kind = 'later' AND status = 'complete')
            THEN 'complete'
            ELSE coalesce((SELECT status FROM session WHERE id = ?1),
                          (SELECT status FROM addition WHERE id = ?1 AND kind = 'new'))
          END
          """, arguments: [id.hex])
    }
  }

  /// How many sessions wait for reflection, from the clear column (no key needed).
  public func waitingCount() throws -> Int {
    try read { db in
      try Int.fetchOne(db, sql: Self.waitingSQL) ?? 0
    }
  }

  /// The one session whose id starts with what the person typed (any case, dashes
  /// allowed), from the clear id column: no key is needed.
  public func resolve(_ text: String) throws -> SessionID {
    guard let prefix = SessionID.normalisedPrefix(text) else {
      throw StoreError.noMatch(prefix: text)
    }
    let ids = try read { db in
      try String.fetchAll(
        db, sql: "SELECT id FROM session WHERE id >= ? AND id < ? ORDER BY id LIMIT 6",
        arguments: [prefix, prefix + "g"])
    }
    guard let first = ids.first, let id = SessionID(first) else {
      throw StoreError.noMatch(prefix: prefix)
    }
    guard ids.count == 1 else {
      throw StoreError.ambiguous(prefix: prefix, candidates: ids.map { String($0.prefix(8)) })
    }
    return id
  }

  /// Sets (or replaces) the reminder of a session waiting for reflection.
  public func setReminder(_ id: SessionID, due: Date, repeatInterval: TimeInterval) throws {
    try write { db in
      try db.execute(
        sql: """
          INSERT INTO reminder (id, due, repeat_seconds, last_fired)
          SELECT ?1, ?2, ?3, NULL
          WHERE EXISTS (SELECT 1 FROM session WHERE id = ?1 AND status = 'needs_reflection')
            OR EXISTS (SELECT 1 FROM addition
              WHERE id = ?1 AND kind = 'new' AND status = 'needs_reflection')
          ON CONFLICT (id) DO UPDATE SET due = excluded.due,
            repeat_seconds = excluded.repeat_seconds, last_fired = NULL
          """,
        arguments: [id.hex, Self.millis(due), Int64(repeatInterval.rounded())])
    }
  }

  /// Cancels a session's reminder. Returns whether there was one.
  @discardableResult
  public func cancelReminder(_ id: SessionID) throws -> Bool {
    try write { db in
      try db.execute(sql: "DELETE FROM reminder WHERE id = ?", arguments: [id.hex])
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

  /// The reminders due at `now`.
  public func dueReminders(now: Date) throws -> [Reminder] {
    try read { db in
      try Row.fetchAll(
        db,
        sql:
          "SELECT id, due, repeat_seconds, last_fired FROM reminder WHERE due <= ? ORDER BY due, id",
        arguments: [Self.millis(now)]
      ).map(Self.reminder)
    }
  }

  /// Moves delivered reminders to their next time. A reminder changed meanwhile (cancelled,
  /// set anew, or moved by another run) is left as it now is. Returns how many moved.
  @discardableResult
  public func advance(_ delivered: [Reminder], now: Date, next: (Reminder) -> Date) throws -> Int {
    try write { db in
      var moved = 0
      for reminder in delivered {
        try db.execute(
          sql: "UPDATE reminder SET due = ?, last_fired = ? WHERE id = ? AND due = ?",
          arguments: [
            Self.millis(next(reminder)), Self.millis(now), reminder.id.hex,
            Self.millis(reminder.due),
          ])
        moved += db.changesCount
      }
      return moved
    }
  }

  /// Decodes a reminder row; a value of the wrong type (an edited file) is reported as a
  /// damaged vault, and a number out of range as a damaged reminder, rather than trapping
  /// later in date arithmetic (a `repeat_seconds` of 9223372036854775 once ended every
  /// `reminders run` with SIGILL).
  private static func reminder(_ row: Row) throws -> Reminder {
    let text = try row.decode(String.self, atIndex: 0)
    guard let id = SessionID(text) else {
      throw StoreError.damagedReminder(id: String(text.prefix(8)))
    }
    let due = try row.decode(Int64.self, atIndex: 1)
    let repeatSeconds = try row.decode(Int64.self, atIndex: 2)
    let fired = try row.decode(Int64?.self, atIndex: 3)
    // Dates within years 1 to 9999 (as milliseconds), a repeat of at most ten years.
    let instants = -62_135_596_800_000...253_402_300_799_999 as ClosedRange<Int64>
    guard instants.contains(due), fired.map(instants.contains) ?? true,
      (1...315_360_000).contains(repeatSeconds)
    else { throw StoreError.damagedReminder(id: id.short) }
    return Reminder(
      id: id, due: Date(timeIntervalSince1970: Double(due) / 1000),
      repeatInterval: TimeInterval(max(60, repeatSeconds)),
      lastFired: fired.map { Date(timeIntervalSince1970: Double($0) / 1000) })
  }
}
