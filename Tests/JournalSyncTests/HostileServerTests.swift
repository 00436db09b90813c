import Foundation
import JournalSync
import JournalTestSupport
import Testing

/// A hostile server, simulated by editing its tables as its admin would (issue 19): each
/// change to what a device wrote is found by the device that reads it, named in one line
/// (exit 12), and nothing of it is applied.
struct HostileServerTests {
  enum Attack: String, CaseIterable, CustomTestStringConvertible {
    case changedRow, droppedRow, droppedLink, replayedRow, rolledBack, otherVaultsRow
    case rewrittenLink, changedHeader

    var testDescription: String { rawValue }
  }

  /// What the device reading the server is told for each.
  static func expected(_ attack: Attack) -> String {
    switch attack {
    case .changedRow, .otherVaultsRow: "is not as its change wrote it"
    case .droppedRow, .replayedRow: "is missing"
    case .droppedLink: "is missing or does not authenticate"
    case .rolledBack: "changes where this device has read"
    case .rewrittenLink: "is not the one this device read"
    case .changedHeader: "the key header was changed"
    }
  }

  @Test(SyncTests.needsServer, arguments: Attack.allCases)
  func detectedAndNothingApplied(attack: Attack) throws {
    // Given a journal on two devices, both up to date
    let (server, a, b, ids) = try SyncTests.pair("hostile_\(attack.rawValue.lowercased())")
    let tables = server.tables
    let old = try tables.execute(
      "SELECT body, seq FROM journal_row WHERE row_id = decode($1, 'hex')",
      [Array(a.fullID(ids[0]).utf8)]
    ).values.first
    // And a change on the first that the second has not read yet
    a.ok("edit", ids[0], "--dose", "NEW-DOSE")
    if attack == .changedHeader {
      let newFile = a.home.write("new", "another calm passphrase\n")
      a.ok("passwd", "--new-passphrase-file", newFile)
      a.ok("sync", extra: ["JOURNAL_PASSPHRASE_FILE": newFile])
    } else {
      a.ok("sync")
    }
    let before = b.export()
    let status = b.ok("sync", "status").stdout
    // When the server's admin changes what it holds (row-level security does not bind a
    // superuser)
    let latest = "(SELECT max(seq) FROM journal_link)"
    switch attack {
    case .changedRow:
      try tables.execute(
        """
        UPDATE journal_row SET body = set_byte(body, 40, (get_byte(body, 40) + 1) % 256)
        WHERE seq = \(latest)
        """)
    case .droppedRow:
      try tables.execute("DELETE FROM journal_row WHERE seq = \(latest)")
    case .droppedLink:
      try tables.execute("DELETE FROM journal_link WHERE seq = \(latest)")
    case .replayedRow:
      let row = try #require(old)
      try tables.execute(
        "UPDATE journal_row SET body = $1::bytea, seq = $2::bigint WHERE row_id = decode($3, 'hex')",
        [row[0], row[1], Array(a.fullID(ids[0]).utf8)])
    case .rolledBack:
      let seen = try server.count("SELECT max(seq) FROM journal_link") - 1
      try tables.executeScript(
        """
        DELETE FROM journal_row WHERE seq >= \(seen);
        DELETE FROM journal_link WHERE seq >= \(seen);
        UPDATE journal_vault SET counter = \(seen - 1);
        """)
    case .otherVaultsRow:
      // A row of another person's journal, on another server, put in this one.
      let elsewhere = try TestServer("hostile_elsewhere")
      let c = Device(elsewhere)
      _ = c.initialise(sessions: 1)
      c.ok("sync", "setup", elsewhere.url)
      let foreign = try #require(
        try elsewhere.tables.execute("SELECT row_id, body FROM journal_row").values.first)
      try tables.execute(
        """
        INSERT INTO journal_row (owner, vault_id, row_id, seq, body)
        SELECT owner, vault_id, $1::bytea, counter, $2::bytea FROM journal_vault
        """, [foreign[0], foreign[1]])
    case .rewrittenLink:
      try tables.execute(
        "UPDATE journal_link SET tag = sha256(tag) WHERE seq = \(latest) - 1")
    case .changedHeader:
      try tables.execute(
        "UPDATE journal_vault SET header = set_byte(header, 40, (get_byte(header, 40) + 1) % 256)"
      )
    }
    // Then the second device refuses it in one line, and applies nothing
    let refused = b.run("sync")
    #expect(refused.status == 12, "\(refused)")
    #expect(refused.stderr.contains(Self.expected(attack)), "\(refused.stderr)")
    #expect(refused.stderr.contains("nothing it altered was applied"))
    #expect(refused.stderr.split(separator: "\n").filter { $0.contains("error") }.count == 1)
    #expect(b.export() == before)
    #expect(b.ok("sync", "status").stdout == status)
  }
}
