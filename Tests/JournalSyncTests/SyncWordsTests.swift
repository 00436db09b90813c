import Foundation
import JournalTestSupport
import Testing

@testable import JournalPostgres
@testable import JournalSync

/// Each real state gets its own words (issue 33): an address edited into the vault file, a
/// role holding no copy of the journal, a password refused or missing, a table dropped, a
/// role holding no journal to join, and LOCALHOST. None of them is called tampering with the
/// server or a server that cannot be reached when it is not.
struct SyncWordsTests {
  /// An address edited into the vault file is named as such, with or without the agent,
  /// and never contacted.
  @Test(SyncTests.needsServer, arguments: [false, true])
  func editedAddress(unlocked: Bool) throws {
    let (_, a, _, _) = try SyncTests.pair("words_address_\(unlocked)")
    if unlocked { a.ok("unlock") }
    defer { if unlocked { a.run("lock") } }
    try Device.tamper(a.vaultPath, "UPDATE sync SET server = 'postgres://someone@127.0.0.1:1/x'")
    let refused = a.run("sync")
    #expect(refused.status == 12, "\(refused)")
    #expect(
      refused.stderr.hasPrefix(
        "journal: error: the sync server's address in this journal's file was changed outside "
          + "journal; that server was not contacted\n"),
      "\(refused)")
  }

  /// Connecting as another role than the journal syncs with is not tampering: it says which
  /// role holds no copy, and that nothing was lost (exit 13).
  @Test(SyncTests.needsServer) func anotherRole() throws {
    // Given a journal set up with an address that names no role (PGUSER decides)
    let server = try TestServer("words_role")
    let other = try server.addRole("words_role")
    let a = Device(server, pgpass: server.pgpass("both", roles: [server.login, other]))
    _ = a.initialise(sessions: 1)
    let address = "postgres://\(server.host):\(server.port)/\(server.database)"
    a.ok("sync", "setup", address, extra: ["PGUSER": server.role])
    // When it syncs as another role
    let before = a.export()
    let wrong = a.run("sync", extra: ["PGUSER": other.name])
    // Then it says so, and no one's journal changed
    #expect(wrong.status == 13, "\(wrong)")
    #expect(
      wrong.stderr.hasPrefix(
        "journal: error: the server holds no copy of this journal for role \"\(other.name)\"; "
          + "this device has read 1 change of it\n"),
      "\(wrong)")
    #expect(a.export() == before)
    a.ok("sync", extra: ["PGUSER": server.role])
  }

  /// A wrong password in ~/.pgpass, and none at all, are said as what they are.
  @Test(SyncTests.needsServer) func passwordRefusedOrMissing() throws {
    let (server, a, _, _) = try SyncTests.pair("words_password", sessions: 1)
    let wrong = server.pgpass("wrong", roles: [(server.role, "not-the-password")])
    let refused = a.run("sync", extra: ["PGPASSFILE": wrong])
    #expect(refused.status == 13, "\(refused)")
    #expect(
      refused.stderr.hasPrefix(
        "journal: error: the sync server refused the password for role \"\(server.role)\"\n"),
      "\(refused)")
    let none = a.run("sync", extra: ["PGPASSFILE": server.home.write("empty", "")])
    #expect(none.status == 13, "\(none)")
    #expect(
      none.stderr.hasPrefix(
        "journal: error: the sync server asks for a password, and ~/.pgpass has none for role "
          + "\"\(server.role)\" there\n"),
      "\(none)")
  }

  /// A table dropped on the server: the journal here is whole, and the hint says how to send
  /// it again, not to wait.
  @Test(SyncTests.needsServer) func droppedTable() throws {
    let (server, a, _, ids) = try SyncTests.pair("words_dropped", sessions: 1)
    a.ok("edit", ids[0], "--dose", "KEPT-HERE")
    try server.tables.executeScript("DROP TABLE journal_link")
    let refused = a.run("sync")
    #expect(refused.status == 13, "\(refused)")
    #expect(
      refused.stderr.hasPrefix(
        "journal: error: the sync server no longer has journal's tables for this database\n"),
      "\(refused)")
    #expect(refused.stderr.contains("journal sync leave"))
    #expect(a.export().contains("KEPT-HERE"))
  }

  /// Joining where the role holds no journal is "not possible now" (exit 7), naming the role.
  @Test(SyncTests.needsServer) func nothingToJoin() throws {
    let server = try TestServer("words_empty")
    let c = Device(server)
    let refused = c.run("sync", "join", server.url)
    #expect(refused.status == 7, "\(refused)")
    #expect(
      refused.stderr.hasPrefix(
        "journal: error: the server holds no journal for role \"\(server.role)\"\n"),
      "\(refused)")
  }

  /// Host names are case-insensitive: LOCALHOST is this computer.
  @Test func localhostInCapitals() throws {
    for text in ["postgres://me@LOCALHOST/j", "host=LocalHost dbname=j"] {
      let address = try ServerAddress(text, environment: [:])
      #expect(!address.conninfo.contains("sslmode"), "\(address.conninfo)")
    }
  }
}
