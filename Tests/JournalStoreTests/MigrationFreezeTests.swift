import Foundation
import GRDB
import JournalCrypto
import Testing

@testable import JournalStore

/// A shipped migration is never edited (GRDB's rule and ours): a vault made by one version
/// of journal must open in every later one. Each migration's result (the schema SQLite keeps,
/// and the format number it sets) is hashed here and compared with what it was when it
/// shipped, so an edit fails the tests instead of stranding a person's vault.
struct MigrationFreezeTests {
  /// BLAKE2b-256 of the schema after each migration, as shipped. A new migration adds a line;
  /// a line never changes.
  static let shipped: [(migration: String, digest: String)] = [
    (
      "v1: vault header and sessions",
      "99c9fe33e5132ec91cf39f3babb6fa9d97864fb4f2b65fb9283154b53251a013"
    ),
    (
      "v2: trash for undoable deletions, tombstones",
      "4ce92b4728524a72888ab1cf8d6331b94da213be5cd7201e083b534403ee17e9"
    ),
    ("v3: reminders", "e65c5d7a50f479982a94e67d684920af5ccdf17657f9f605e3b2eafeafad987d"),
    ("v4: list index", "aabe843f300ae9d9372e321c922858c90c5ce3637b5920ea14db9b4ccd77992e"),
    (
      "v5: revisions and the ledger",
      "b50b8fd2576a29f7f335b8af93f405103b01543b1dc0ef72b8ae39ebc6b593d8"
    ),
    (
      "v6: sessions closed without a reflection",
      "bc3bbdefa890b2c15677de6d935d1064392e6833b29feba5e4301d09884ccf7c"
    ),
    ("v7: sealed additions", "b70fe2995144aee439f90455889d7e0d9b7c5c64f98d3d292d2aeb9e108c29dc"),
    ("v8: recovery slot", "1aa494e25e9c8cfd6e4bdba92ce1bf98cc51ac26cce9855c217e760d8d73f04c"),
    ("v9: key rotation", "3c472db7dcebd2faf75ebb40f4f4832a66a237de19c8e889d53b4a3adaaf26c4"),
    ("v10: sync", "3b9300e0d3686e3b1c9e8b3792fa64186848b6cb7318a65f89f5f7c903b08360"),
    (
      "v11: marks in the summary, settings in the ledger",
      "b17e36e4d93bf7c0d6e9ada185f347ca90e35c010136a20c0b8885e7fc04f3f8"
    ),
    ("v12: the ledger's tree", "300f1ff1c801fb6df773a9104848a0d24462d9324a5079d2b2248c3f4d558cdb"),
    (
      "v13: what sync has to send",
      "15e1aa07a5df13bb550e68a5d31fa83a4fe9da077a162d9daac350eaaf4bffb6"
    ),
    ("v14: notes and tags", "42246893545271e3742a5b0f1b8bd466670ba2686a9f16956ec57d1fe1fe1df2"),
  ]

  /// The schema after each migration, in order, and its digest.
  static func digests() throws -> [(String, String)] {
    let queue = try DatabaseQueue()
    var out: [(String, String)] = []
    for (index, identifier) in Vault.migrator.migrations.enumerated() {
      try Vault.migrator.migrate(queue, upTo: identifier)
      if index == 0 {
        try queue.write { db in
          try db.execute(
            sql: """
              INSERT INTO vault (singleton, format_version, vault_id, kdf_algorithm,
                kdf_opslimit, kdf_memlimit, kdf_salt, wrapped_key)
              VALUES (1, 1, zeroblob(16), 'argon2id13', 2, 67108864, zeroblob(16), zeroblob(88))
              """)
        }
      }
      let text = try queue.read { db in
        let schema = try Row.fetchAll(
          db,
          sql: """
            SELECT type, name, tbl_name, sql FROM sqlite_master
            WHERE name NOT LIKE 'sqlite_%' AND name != 'grdb_migrations' ORDER BY type, name
            """
        ).map { row in
          [row[0], row[1], row[2], row[3]].map { "\($0 ?? "")" }.joined(separator: "|")
        }
        let version = try Int.fetchOne(db, sql: "SELECT format_version FROM vault") ?? 0
        return schema.joined(separator: "\n") + "\nformat_version=\(version)"
      }
      let digest = KeyedHash.unkeyed(Array(text.utf8)).map { String(format: "%02x", $0) }
        .joined()
      out.append((identifier, digest))
    }
    return out
  }

  /// Every shipped migration still makes exactly the schema it made when it shipped.
  @Test func shippedMigrationsAreUnchanged() throws {
    let now = try Self.digests()
    if ProcessInfo.processInfo.environment["JOURNAL_PRINT_MIGRATION_DIGESTS"] != nil {
      for (migration, digest) in now { print(#"    ("\#(migration)", "\#(digest)"),"#) }
    }
    #expect(now.count >= Self.shipped.count, "a shipped migration was removed")
    for (index, shipped) in Self.shipped.enumerated() where index < now.count {
      #expect(now[index].0 == shipped.migration, "migration \(index + 1) was renamed or moved")
      #expect(
        now[index].1 == shipped.digest,
        "the migration \"\(shipped.migration)\" was edited after it shipped: add a new one")
    }
    // A migration added since must be added to the table above in the same change.
    #expect(now.count == Self.shipped.count, "a new migration is not in the shipped table")
  }
}
