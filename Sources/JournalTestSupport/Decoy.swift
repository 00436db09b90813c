/// A vault file whose list index or session table is pointed at a decoy's pages, the schema
/// edited in place as an attacker with the file could: the tests of the reads of many rows
/// (SECURITY.md, "The ledger"), which must show only what the ledger's own indexes hold.
public enum Decoy {
  /// What the decoy stands in for.
  public enum Target: Sendable {
    /// `session_list`, the index `list` and the first pass of every streamed read read.
    case listIndex
    /// The `session` table, which `search` and `verify` read, and `export` row by row.
    case table
  }

  /// The SQL, to run outside a transaction, that copies the session table (its `columns`,
  /// rowids kept) into a table `decoy`, runs `change` on it (SQL naming `decoy`), and
  /// points `target` at it (or, for the list index, at an index of it).
  public static func script(of target: Target, columns: [String], change: String) -> String {
    let list = columns.joined(separator: ", ")
    let name = target == .listIndex ? "decoy_list" : "decoy"
    let pointed = target == .listIndex ? "session_list" : "session"
    return """
      CREATE TABLE decoy AS SELECT * FROM session WHERE 0;
      INSERT INTO decoy (rowid, \(list)) SELECT rowid, \(list) FROM session;
      \(change);
      \(target == .listIndex ? "CREATE INDEX decoy_list ON decoy (status, id, revision, summary);" : "")
      PRAGMA writable_schema = ON;
      UPDATE sqlite_schema SET rootpage = (SELECT rootpage FROM sqlite_schema WHERE name = '\(name)')
        WHERE name = '\(pointed)';
      PRAGMA writable_schema = OFF;
      """
  }

  /// The SQL that gives the session table's columns, in order, one a row.
  public static let columnsSQL = "SELECT name FROM pragma_table_info('session')"
}
