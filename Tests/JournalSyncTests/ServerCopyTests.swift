import Foundation
import JournalTestSupport
import Testing

@testable import JournalPostgres

/// What a device finds wrong with the server's copy, it finds whether it joins or syncs
/// (issue 33): a damaged key header, a refused join that leaves nothing behind, and a server
/// whose schema is newer than this journal knows.
struct ServerCopyTests {
  /// A key header damaged on the server with no change naming a new one is refused by the
  /// devices that sync (exit 12), nothing sent or applied, and by a new device before it is
  /// asked for a passphrase the header could no longer open.
  @Test(SyncTests.needsServer) func damagedHeaderNoticedByEveryDevice() throws {
    // Given a journal on two devices, and a change waiting on one
    let (server, a, b, ids) = try SyncTests.pair("header_damaged", sessions: 1)
    a.ok("edit", ids[0], "--dose", "NOT-SENT")
    let links = try server.count("SELECT count(*) FROM journal_link")
    // When the server's copy of the key header is damaged
    try server.tables.execute(
      "UPDATE journal_vault SET header = set_byte(header, 40, (get_byte(header, 40) + 1) % 256)")
    // Then both devices refuse it, and the change is not sent
    for device in [a, b] {
      let refused = device.run("sync")
      #expect(refused.status == 12, "\(refused)")
      #expect(refused.stderr.contains("the key header was changed"), "\(refused)")
    }
    #expect(try server.count("SELECT count(*) FROM journal_link") == links)
    // And a new device is told the same, not that its passphrase is wrong
    let c = Device(server)
    let joining = c.run("sync", "join", server.url)
    #expect(joining.status == 12, "\(joining)")
    #expect(joining.stderr.contains("the key header was changed"), "\(joining)")
    #expect(!FileManager.default.fileExists(atPath: c.vaultPath))
  }

  /// A join that refuses what the server holds leaves no journal behind and one coherent
  /// hint; once the server's copy is whole again, `join` works.
  @Test(SyncTests.needsServer) func refusedJoinLeavesNothing() throws {
    // Given a journal on a server, one of its rows altered
    let (server, a, _, _) = try SyncTests.pair("join_refused", sessions: 2)
    let flip = "UPDATE journal_row SET body = set_byte(body, 40, (get_byte(body, 40) + %d) %% 256)"
    try server.tables.execute(String(format: flip, 1))
    // When a new device joins
    let c = Device(server)
    let refused = c.run("sync", "join", server.url)
    // Then it refuses in one error and one hint, and keeps nothing
    #expect(refused.status == 12, "\(refused)")
    let lines = refused.stderr.split(separator: "\n")
    #expect(lines.count == 2, "\(refused)")
    #expect(lines.last?.hasPrefix("journal: hint: nothing was kept on this device") == true)
    #expect(!FileManager.default.fileExists(atPath: c.vaultPath))
    // When the server's copy is whole again, joining works
    try server.tables.execute(String(format: flip, 255))
    let joined = c.ok("sync", "join", server.url)
    #expect(joined.stdout.contains("received 2 sessions"), "\(joined)")
    #expect(c.export() == a.export())
  }

  /// A server whose schema is newer than this journal knows is not written to by devices
  /// that already sync (exit 10), as `setup` and `join` already refused it.
  @Test(SyncTests.needsServer) func newerSchemaStopsEveryDevice() throws {
    let (server, a, b, ids) = try SyncTests.pair("schema_newer", sessions: 1)
    a.ok("edit", ids[0], "--dose", "NOT-SENT-TO-A-NEWER-SERVER")
    let links = try server.count("SELECT count(*) FROM journal_link")
    let newer = PostgresSchema.version + 1
    try server.tables.execute("UPDATE journal_schema SET version = \(newer)")
    for device in [a, b] {
      let refused = device.run("sync")
      #expect(refused.status == 10, "\(refused)")
      #expect(
        refused.stderr.hasPrefix(
          "journal: error: the server's journal schema is version \(newer); this journal reads "
            + "\(PostgresSchema.version)\n"),
        "\(refused)")
    }
    #expect(try server.count("SELECT count(*) FROM journal_link") == links)
  }
}
