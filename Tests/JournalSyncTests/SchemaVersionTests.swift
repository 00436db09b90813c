import Foundation
import JournalTestSupport
import Testing

@testable import JournalPostgres
@testable import JournalSync

/// Other roles on the server can stop no one's sync (issue 33): they may read their own rows
/// and call journal's two functions, nothing else, so `LOCK TABLE` is refused them. A server
/// made at schema version 1 is brought to version 2 with the journal on it intact: by a
/// device whose role owns the tables, or by the admin running the printed SQL again.
struct SchemaVersionTests {
  /// Every way another role could hold a lock that journal's pushes wait for.
  static let locks = [
    "LOCK TABLE journal_vault IN ACCESS EXCLUSIVE MODE",
    "LOCK TABLE journal_row IN ACCESS EXCLUSIVE MODE",
    "LOCK TABLE journal_link IN ACCESS EXCLUSIVE MODE",
    "LOCK TABLE journal_schema IN ACCESS EXCLUSIVE MODE",
    "LOCK TABLE journal_vault IN SHARE MODE",
    "SELECT counter FROM journal_vault FOR UPDATE",
    "SELECT counter FROM journal_vault FOR KEY SHARE",
  ]

  /// `other` is refused every lock above, and any write of its own.
  static func expectNoLock(_ other: PostgresConnection) throws {
    for statement in Self.locks + [
      "UPDATE journal_vault SET counter = 0", "DELETE FROM journal_row",
      "INSERT INTO journal_schema (version) VALUES (9)", "TRUNCATE journal_link",
    ] {
      try other.executeScript("BEGIN")
      #expect(
        throws: SyncError.statement(
          sqlState: "42501",
          said: ServerText("permission denied for table \(Self.table(statement))")
        ), "\(statement)"
      ) {
        try other.execute(statement)
      }
      try other.executeScript("ROLLBACK")
    }
  }

  static func table(_ statement: String) -> String {
    statement.split(separator: " ").first { $0.hasPrefix("journal_") }.map(String.init) ?? ""
  }

  /// Another role on a server holding a journal tries to lock its tables, and to write to
  /// them: every try is refused, and the journal's devices sync on.
  @Test(SyncTests.needsServer) func anotherRoleCannotStopSync() throws {
    // Given a journal on a server, and another role there
    let (server, a, b, ids) = try SyncTests.pair("lockout", sessions: 1)
    #expect(try server.schemaVersion() == PostgresSchema.version)
    let other = try server.otherRole("lockout")
    // When it tries to lock the tables or write to them, it is refused
    try Self.expectNoLock(other)
    // And journal's functions write nothing of anyone else's
    let vault = try #require(
      try server.tables.execute("SELECT vault_id FROM journal_vault").values.first?.first ?? nil)
    let pushed = try other.execute(
      """
      SELECT journal_push($1::bytea, 1, 2, $2::bytea, '\\x01', $3::bytea, NULL, '{}', '{}', '{}')
      """, [vault, [UInt8](repeating: 1, count: 16), [UInt8](repeating: 2, count: 32)])
    #expect(pushed.values == [[[0]]])
    // Then the journal's devices sync as before
    a.ok("edit", ids[0], "--dose", "AFTER-THE-TRIES")
    #expect(a.ok("sync").stdout == "sent 1 session\n")
    #expect(b.ok("sync").stdout == "received 1 session\n")
    #expect(a.export() == b.export())
  }

  /// A server its admin made at version 1: devices sync the way version 1 allows and say
  /// the tables should be updated; the admin runs the printed SQL, and the journal goes on
  /// at version 2, intact, another role locked out.
  @Test(SyncTests.needsServer) func hostedServerUpdatedByItsAdmin() throws {
    // Given version 1's tables, made by the server's admin
    let server = try TestServer("upgrade_hosted")
    try server.tables.executeScript(PostgresSchema.version1)
    let a = Device(server)
    let ids = a.initialise(sessions: 2)
    let setup = a.ok("sync", "setup", server.url)
    #expect(setup.stderr.contains("the server's tables are of an earlier version"), "\(setup)")
    let b = Device(server)
    b.ok("sync", "join", server.url)
    a.ok("edit", ids[0], "--dose", "ON-VERSION-ONE")
    a.ok("sync")
    #expect(try server.schemaVersion() == 1)
    // When the admin runs the printed schema
    let printed = a.ok("sync", "setup", "--print-schema").stdout
    try server.tables.executeScript(printed)
    // Then the server is at version 2, and the devices sync on without the note
    #expect(try server.schemaVersion() == PostgresSchema.version)
    let received = b.ok("sync")
    #expect(received.stdout == "received 1 session\n")
    #expect(received.stderr.isEmpty, "\(received)")
    a.ok("edit", ids[1], "--dose", "ON-VERSION-TWO")
    #expect(a.ok("sync").stdout == "sent 1 session\n")
    b.ok("sync")
    #expect(a.export() == b.export())
    #expect(b.export().contains("ON-VERSION-ONE") && b.export().contains("ON-VERSION-TWO"))
    // And another role is locked out
    try Self.expectNoLock(try server.otherRole("upgrade_hosted"))
  }

  /// A server whose tables are the person's own role's: the next sync of any device brings
  /// them from version 1 to version 2, the journal intact.
  @Test(SyncTests.needsServer) func ownServerUpdatedByAnyDevice() throws {
    // Given a journal synced on version 1's tables
    let server = try TestServer("upgrade_own")
    try server.tables.executeScript(PostgresSchema.version1)
    let (a, b) = (Device(server), Device(server))
    let ids = a.initialise(sessions: 1)
    a.ok("sync", "setup", server.url)
    b.ok("sync", "join", server.url)
    // When the tables become the person's role's (as `journal sync setup` makes them)
    for table in ["journal_schema", "journal_vault", "journal_link", "journal_row"] {
      try server.tables.execute("ALTER TABLE \(table) OWNER TO \(server.role)")
    }
    b.ok("edit", ids[0], "--dose", "SENT-AS-IT-UPDATES")
    let updating = b.ok("sync")
    // Then that sync brings them to version 2, says nothing of it, and the journal goes on
    #expect(updating.stdout == "sent 1 session\n")
    #expect(updating.stderr.isEmpty, "\(updating)")
    #expect(try server.schemaVersion() == PostgresSchema.version)
    #expect(a.ok("sync").stdout == "received 1 session\n")
    #expect(a.export() == b.export())
    try Self.expectNoLock(try server.otherRole("upgrade_own"))
  }
}
