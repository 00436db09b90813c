import Foundation
import JournalPostgres
import JournalSync
import JournalTestSupport
import Testing

/// The sync server's schema on a real PostgreSQL (the private cluster Scripts/test starts):
/// one role can never read or change another role's rows, tried for real (issue 19).
struct RowLevelSecurityTests {
  /// The admin connection string Scripts/test exports; nil (the tests skipped, loudly) when
  /// PostgreSQL could not be had.
  static let admin = ProcessInfo.processInfo.environment["JOURNAL_TEST_POSTGRES"]

  /// A role of its own for each test, made by the admin: its connection string.
  static func role(_ name: String, _ admin: PostgresConnection, base: String) throws -> String {
    let password = UUID().uuidString
    try admin.execute("DROP ROLE IF EXISTS \(name)")
    try admin.execute("CREATE ROLE \(name) LOGIN PASSWORD '\(password)'")
    let others = base.split(separator: " ").filter {
      !$0.hasPrefix("user=") && !$0.hasPrefix("password=")
    }
    return (others + ["user=\(name)", "password=\(password)"]).joined(separator: " ")
  }

  /// A database of its own for a test, so tests running at once do not meet.
  static func database(_ name: String, admin base: String) throws -> String {
    let admin = try PostgresConnection(base)
    try admin.execute("DROP DATABASE IF EXISTS \(name)")
    try admin.execute("CREATE DATABASE \(name)")
    return base.replacingOccurrences(of: "dbname=postgres", with: "dbname=\(name)")
  }

  @Test(.enabled(if: admin != nil, "needs the test PostgreSQL cluster (Scripts/test starts it)"))
  func rolesSeeOnlyTheirOwnRows() throws {
    // Given the schema, made by the admin, and two people's roles
    let base = try Self.database("journal_rls", admin: try #require(Self.admin))
    let admin = try PostgresConnection(base)
    try admin.executeScript(PostgresSchema.sql)
    try admin.executeScript(PostgresSchema.sql)  // again: safe to run twice
    let alice = try PostgresConnection(try Self.role("journal_alice", admin, base: base))
    let bob = try PostgresConnection(try Self.role("journal_bob", admin, base: base))
    let vault = [UInt8](repeating: 0xA1, count: 16)
    let device = [UInt8](repeating: 0xD1, count: 16)
    let tag = [UInt8](repeating: 7, count: 32)
    // When Alice writes her vault and a change, through journal's functions
    #expect(
      try alice.execute("SELECT journal_add_vault($1::bytea, $2::bytea)", [vault, [1, 2, 3]])
        .values == [[[1]]])
    let push = """
      SELECT journal_push($1::bytea, $2::bigint, $3::bigint, $4::bytea, '\\x01', $5::bytea,
        NULL, '{}', ARRAY[$4::bytea], ARRAY['\\x090909'::bytea])
      """
    #expect(
      try alice.execute(push, [vault, Self.bigint(0), Self.bigint(1), device, tag]).values
        == [[[1]]])
    // Then Bob sees none of it, cannot write to the tables, and journal's functions write
    // only his own rows: a push to her vault finds none of his
    for table in ["journal_vault", "journal_row", "journal_link"] {
      #expect(try bob.execute("SELECT count(*) FROM \(table)").values == [[Self.bigint(0)]])
      #expect(throws: SyncError.self) { try bob.execute("DELETE FROM \(table)") }
    }
    #expect(throws: SyncError.self) { try bob.execute("UPDATE journal_row SET seq = 5") }
    #expect(throws: SyncError.self) {
      try bob.execute(
        "INSERT INTO journal_row (vault_id, row_id, seq, body) VALUES ($1::bytea, $2::bytea, 2, '\\x01')",
        [vault, device])
    }
    #expect(
      try bob.execute(push, [vault, Self.bigint(1), Self.bigint(2), device, tag]).values
        == [[[0]]])
    // And a vault of his with the same id is his own, beside hers
    #expect(
      try bob.execute("SELECT journal_add_vault($1::bytea, $2::bytea)", [vault, [4]]).values
        == [[[1]]])
    // And Alice's rows are as she wrote them
    let rows = try alice.execute(
      "SELECT header, counter FROM journal_vault WHERE vault_id = $1::bytea", [vault])
    #expect(rows.values == [[[1, 2, 3], Self.bigint(1)]])
    #expect(try alice.execute("SELECT body FROM journal_row").values == [[[9, 9, 9]]])
    #expect(try alice.execute("SELECT count(*) FROM journal_link").values == [[Self.bigint(1)]])
  }

  /// A bad password and an unknown host are one-line connection errors; a statement the
  /// server refuses carries its SQLSTATE.
  @Test(.enabled(if: admin != nil, "needs the test PostgreSQL cluster (Scripts/test starts it)"))
  func errorsAreNamed() throws {
    let base = try #require(Self.admin)
    let wrong = base.replacingOccurrences(
      of: #"password=\S+"#, with: "password=not-it", options: .regularExpression)
    #expect {
      try PostgresConnection(wrong)
    } throws: { error in
      error as? SyncError == .connection(.passwordRefused(role: "journal_admin"))
    }
    let admin = try PostgresConnection(base)
    #expect(
      throws: SyncError.statement(
        sqlState: "42P01", said: ServerText(#"relation "nowhere" does not exist"#))
    ) {
      try admin.execute("SELECT * FROM nowhere")
    }
  }

  /// Without the client library, connecting says so in one line; nothing else loads it.
  @Test func clientLibraryMissing() {
    #expect(throws: SyncError.clientLibraryMissing(name: "libpq-not-here.so.5")) {
      try PostgresConnection("host=127.0.0.1", library: "libpq-not-here.so.5")
    }
  }

  /// A bigint in PostgreSQL's binary format: 8 bytes, big-endian.
  static func bigint(_ value: Int64) -> [UInt8]? {
    withUnsafeBytes(of: value.bigEndian) { Array($0) }
  }
}
