import Foundation
import GRDB
import JournalCore
import JournalCrypto
import JournalStorage

/// Rows holding clear values journal never writes: a session or trash row whose id is not 32
/// lowercase hex digits, whose revision is not a whole number from 0 to 2^53, or whose status
/// is neither of the two; a trash row whose batch or times are out of range; a tombstone
/// whose id is not an id. Anyone who can write the file can plant one with one UPDATE
/// (SQLite's CHECK constraints are theirs to switch off, and `'x' >= 0` passes one).
///
/// Each is damage of that row: the ledger's check names it rather than refusing the journal
/// as a whole without a name, and trusting the vault as it is (`journal verify --accept`)
/// puts right what the row's sealed columns can tell (the id's case, the revision its columns
/// open at, the status its summary holds) and drops, after naming it, only a row that no key
/// of this vault opens at any revision (SECURITY.md, "Values read in the clear").
struct MalformedRows {
  /// One row, as it is shown (its id's first characters, escaped), and what trusting the
  /// vault does with it.
  struct Row {
    let table: String
    let rowid: Int64
    let shown: String
    let fix: Fix
  }

  enum Fix {
    /// Written again with these clear values, which its sealed columns vouch for.
    case putRight(id: String, revision: Int64, status: String)
    /// A trash row whose batch or times were planted: a batch of its own, purged now.
    case purgeNow(batch: Int64)
    /// Nothing opens it: removed.
    case drop
  }

  /// The revisions tried when the stored one cannot be trusted: a row is written once per
  /// edit, so its revision is far below this in any journal a person keeps.
  static let revisionsTried: Int64 = 4096

  static let sessionCondition = """
    typeof(id) != 'text' OR length(id) != 32 OR id GLOB '*[^0-9a-f]*'
      OR typeof(revision) != 'integer' OR revision < 0 OR revision > \(StoredRange.counter.upperBound)
      OR status NOT IN ('needs_reflection', 'complete')
    """

  static let trashTimes = """
    typeof(batch) != 'integer' OR batch < 0 OR batch >= \(StoredRange.counter.upperBound)
      OR typeof(deleted_at) != 'integer' OR typeof(purge_after) != 'integer'
      OR deleted_at NOT BETWEEN \(StoredRange.millis.lowerBound) AND \(StoredRange.millis.upperBound)
      OR purge_after NOT BETWEEN \(StoredRange.millis.lowerBound) AND \(StoredRange.millis.upperBound)
      OR purge_after < deleted_at
    """

  static let tombstoneCondition = """
    typeof(id) != 'text' OR length(id) != 32 OR id GLOB '*[^0-9a-f]*'
    """

  /// How each such row is shown: the first eight characters of its id, as text, escaped
  /// (it is the writer's word), or "row N" when it has none.
  static func shown(_ value: DatabaseValue, rowid: Int64) -> String {
    guard let text = String.fromDatabaseValue(value), !text.isEmpty else { return "row \(rowid)" }
    return String(Quoted.data(String(text.prefix(8))).dropFirst().dropLast())
  }

  /// Whether the vault holds any such row (the ledger's check asks first; no key needed).
  static func shownRows(_ db: Database) throws -> [String] {
    var out: [String] = []
    for (table, condition) in [
      ("session", sessionCondition),
      ("trash", "outcome IS NULL AND (\(sessionCondition) OR \(trashTimes))"),
      ("tombstone", tombstoneCondition),
    ] {
      for row in try GRDB.Row.fetchAll(
        db, sql: "SELECT rowid, id FROM \(table) WHERE \(condition) ORDER BY rowid LIMIT 20")
      {
        out.append(shown(row[1] as DatabaseValue, rowid: row[0]))
      }
    }
    return out
  }

  /// Every such row and what trusting the vault does with it, tried with `cipher` (the
  /// vault's record key).
  static func find(_ db: Database, cipher: RecordCipher) throws -> [Row] {
    var rows: [Row] = []
    for table in ["session", "trash"] {
      let condition =
        table == "session"
        ? sessionCondition : "outcome IS NULL AND (\(sessionCondition) OR \(trashTimes))"
      for row in try GRDB.Row.fetchAll(
        db,
        sql: "SELECT rowid, id, revision, summary FROM \(table) WHERE \(condition) ORDER BY rowid")
      {
        let rowid: Int64 = row[0]
        let id = row[1] as DatabaseValue
        let shown = Self.shown(id, rowid: rowid)
        guard let found = recover(id: id, revision: row[2], summary: row[3], cipher: cipher)
        else {
          rows.append(Row(table: table, rowid: rowid, shown: shown, fix: .drop))
          continue
        }
        rows.append(
          Row(
            table: table, rowid: rowid, shown: shown,
            fix: .putRight(id: found.id.hex, revision: found.revision, status: found.status)))
      }
    }
    // Trash rows whose id, revision and status are sound but whose batch or times are not.
    for row in try GRDB.Row.fetchAll(
      db,
      sql: """
        SELECT rowid, id FROM trash WHERE outcome IS NULL AND NOT (\(sessionCondition))
          AND (\(trashTimes)) ORDER BY rowid
        """)
    {
      let rowid: Int64 = row[0]
      rows.append(
        Row(
          table: "trash", rowid: rowid, shown: shown(row[1] as DatabaseValue, rowid: rowid),
          fix: .purgeNow(batch: 0)))
    }
    for row in try GRDB.Row.fetchAll(
      db, sql: "SELECT rowid, id FROM tombstone WHERE \(tombstoneCondition) ORDER BY rowid")
    {
      let rowid: Int64 = row[0]
      rows.append(
        Row(
          table: "tombstone", rowid: rowid, shown: shown(row[1] as DatabaseValue, rowid: rowid),
          fix: .drop))
    }
    return rows
  }

  /// The id (its case undone), revision and status a row's sealed summary vouches for: the
  /// first revision (the stored one first, when it is one) its summary opens at under that
  /// id. Nil when it opens at none.
  static func recover(
    id: DatabaseValue, revision: DatabaseValue, summary: DatabaseValue, cipher: RecordCipher
  ) -> (id: SessionID, revision: Int64, status: String)? {
    guard let text = String.fromDatabaseValue(id), let candidate = SessionID(text.lowercased()),
      let sealed = Data.fromDatabaseValue(summary)
    else { return nil }
    let bytes = Array(sealed)
    var tried: [Int64] = []
    if let stored = Int64.fromDatabaseValue(revision), StoredRange.isCounter(stored),
      revision.storage.isInteger
    {
      tried.append(stored)
    }
    tried += (0..<revisionsTried).filter { !tried.contains($0) }
    for revision in tried {
      if let summary = try? cipher.open(
        bytes, id: candidate.bytes, column: .summary, revision: UInt64(revision),
        { plain in try RecordCodec.decodeSummary(plain, id: candidate) })
      {
        return (candidate, revision, summary.status.stored.rawValue)
      }
    }
    return nil
  }

  /// Carries out what `find` decided, in the keyed write that then stamps the vault.
  static func apply(_ rows: [Row], _ db: Database) throws {
    for row in rows {
      switch row.fix {
      case .putRight(let id, let revision, let status):
        // A row of the same id already sound keeps its place; this one goes.
        let taken =
          try Bool.fetchOne(
            db, sql: "SELECT EXISTS (SELECT 1 FROM \(row.table) WHERE id = ? AND rowid != ?)",
            arguments: [id, row.rowid]) ?? false
        if taken {
          try db.execute(sql: "DELETE FROM \(row.table) WHERE rowid = ?", arguments: [row.rowid])
        } else {
          try db.execute(
            sql: "UPDATE \(row.table) SET id = ?, revision = ?, status = ? WHERE rowid = ?",
            arguments: [id, revision, status, row.rowid])
        }
      case .purgeNow:
        // A batch of its own after every one in range, purged at the next command: the
        // person deleted it; only the window was planted.
        let next =
          (try Int64.fetchOne(
            db,
            sql:
              "SELECT max(batch) FROM trash WHERE typeof(batch) = 'integer' AND batch BETWEEN 0 AND ?",
            arguments: [StoredRange.counter.upperBound - 1]) ?? 0) + 1
        try db.execute(
          sql: "UPDATE trash SET batch = ?, deleted_at = ?, purge_after = ? WHERE rowid = ?",
          arguments: [next, StoredRange.millis(Date()), StoredRange.millis(Date()), row.rowid])
      case .drop:
        try db.execute(sql: "DELETE FROM \(row.table) WHERE rowid = ?", arguments: [row.rowid])
      }
    }
  }
}

extension DatabaseValue.Storage {
  /// Whether the value is stored as an integer (SQLite's typeof = 'integer').
  fileprivate var isInteger: Bool {
    if case .int64 = self { return true }
    return false
  }
}
