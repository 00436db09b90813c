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

  /// Every pending reminder, soonest first. A damaged one (see `damagedReminders`) is left
  /// out: it never stops the others from being listed or delivered.
  public func reminders() throws -> [Reminder] {
    try read { db in
      try Row.fetchAll(
        db, sql: "SELECT id, due, repeat_seconds, last_fired FROM reminder ORDER BY due, id"
      ).compactMap { try? Self.reminder($0) }
    }
  }

  /// The reminders due at `now` (damaged ones left out).
  public func dueReminders(now: Date) throws -> [Reminder] {
    try read { db in
      try Row.fetchAll(
        db,
        sql:
          "SELECT id, due, repeat_seconds, last_fired FROM reminder WHERE due <= ? ORDER BY due, id",
        arguments: [Self.millis(now)]
      ).compactMap { try? Self.reminder($0) }
    }
  }

  /// The short ids of the sessions whose reminder row is damaged (a time or interval out of
  /// range, a value of the wrong type): each is left out of the reminders until it is set
  /// again, which replaces it.
  public func damagedReminders() throws -> [String] {
    try read { db in
      try Row.fetchAll(db, sql: "SELECT id, due, repeat_seconds, last_fired FROM reminder")
        .compactMap { row -> String? in
          do {
            _ = try Self.reminder(row)
            return nil
          } catch StoreError.damagedReminder(let id) {
            return id
          } catch {
            return "?"
          }
        }
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

  /// Decodes a reminder row; a value of the wrong type or a number out of range (an edited
  /// file) is a damaged reminder, rather than trapping later in date arithmetic (a
  /// `repeat_seconds` of 9223372036854775 once ended every `reminders run` with SIGILL).
  private static func reminder(_ row: Row) throws -> Reminder {
    let text = (try? row.decode(String.self, atIndex: 0)) ?? ""
    guard let id = SessionID(text) else {
      throw StoreError.damagedReminder(id: String(text.prefix(8)))
    }
    // (`try?` would flatten a NULL last_fired, which is no damage, into one.)
    let fired: Int64?
    do {
      fired = try row.decode(Int64?.self, atIndex: 3)
    } catch {
      throw StoreError.damagedReminder(id: id.short)
    }
    guard let due = try? row.decode(Int64.self, atIndex: 1),
      let repeatSeconds = try? row.decode(Int64.self, atIndex: 2)
    else { throw StoreError.damagedReminder(id: id.short) }
    guard let dueDate = StoredRange.date(millis: due),
      StoredRange.repeatSeconds.contains(repeatSeconds)
    else { throw StoreError.damagedReminder(id: id.short) }
    var lastFired: Date?
    if let fired {
      guard let date = StoredRange.date(millis: fired) else {
        throw StoreError.damagedReminder(id: id.short)
      }
      lastFired = date
    }
    return Reminder(
      id: id, due: dueDate, repeatInterval: TimeInterval(repeatSeconds), lastFired: lastFired)
  }
}
