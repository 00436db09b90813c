import Foundation
import GRDB
import Glibc
import JournalTestSupport
import Testing

/// Tamper evidence as a person meets it (issue 17): the command that notices says so in one
/// line with exit 12 and changes nothing, and `verify --accept` trusts a restored copy.
struct RollbackTests {
  /// Puts the files of the copy at `source` in the vault's place, as restoring a backup or a
  /// synced folder rolling back would.
  func restore(_ f: CLIFixture, from source: String) throws {
    for suffix in ["", "-wal", "-shm"] { unlink(f.vaultPath + suffix) }
    try FileManager.default.copyItem(atPath: source, toPath: f.vaultPath)
    chmod(f.vaultPath, 0o600)
  }

  /// 5. The whole vault replaced by an older copy of itself: noticed by this computer's record,
  /// said in one line, nothing changed; `verify --accept` trusts it on purpose.
  @Test func olderCopyOfTheWholeVault() throws {
    let f = CLIFixture().initialise()
    _ = f.new()
    let backup = f.home.file("backup.db")
    #expect(f.run("backup", backup).status == 0)
    let later = f.new()
    try restore(f, from: backup)
    let refused = f.run("list")
    #expect(refused.status == 12, "\(refused)")
    #expect(refused.stderr.contains("older than the one this computer last saw"))
    #expect(refused.stderr.contains("journal verify --accept"))
    #expect(refused.stderr.split(separator: "\n").count <= 2)
    // Nothing was changed: still the older copy, still refused.
    #expect(f.run("new", "--intention", "x", "--mood-before", "5").status == 12)
    #expect(f.run("list").status == 12)
    // Trusting it on purpose, without a terminal, needs --yes.
    #expect(f.run("verify", "--accept").status != 0)
    let accepted = f.run("verify", "--accept", "--yes")
    #expect(accepted.status == 0, "\(accepted)")
    #expect(accepted.stderr.contains("trusted as it is now"))
    #expect(f.sessions().count == 1)
    #expect(!f.sessions().contains { ($0["short_id"] as? String).map(later.hasPrefix) ?? false })
    #expect(f.run("verify", "--accept", "--yes").stderr.contains("nothing to accept"))
  }

  /// `list --json` and `trends` refuse what `list` refuses, before anything is written out:
  /// an older copy of the whole vault, and a row deleted from the file.
  @Test func streamedListsRefuseWhatListRefuses() throws {
    let f = CLIFixture().initialise()
    let first = f.new()
    let backup = f.home.file("backup.db")
    #expect(f.run("backup", backup).status == 0)
    _ = f.new()
    #expect(f.run("list", "--json").status == 0)
    #expect(f.run("trends").status == 0)
    try restore(f, from: backup)
    for arguments in [["list", "--json"], ["trends"]] {
      let refused = f.cli.run(arguments)
      #expect(refused.status == 12, "\(arguments) \(refused)")
      #expect(refused.stdout.isEmpty, "\(arguments) \(refused)")
      #expect(refused.stderr.contains("older than the one this computer last saw"))
    }
    // A row deleted behind the ledger's back, in a vault this computer trusts again.
    #expect(f.run("verify", "--accept", "--yes").status == 0)
    _ = f.new()
    let queue = try DatabaseQueue(path: f.vaultPath)
    try queue.write { db in
      try db.execute(
        sql: "DELETE FROM session WHERE id LIKE ?", arguments: [first.lowercased() + "%"])
    }
    try queue.close()
    for arguments in [["list", "--json"], ["trends"]] {
      let refused = f.cli.run(arguments)
      #expect(refused.status == 12, "\(arguments) \(refused)")
      #expect(refused.stdout.isEmpty, "\(arguments) \(refused)")
    }
  }

  /// The list index or the session table pointed at a decoy's pages with a session left
  /// out (the schema edited in the file): every command that reads it refuses, and writes
  /// nothing out; an export's file is not left behind. The ledger finds the decoy (exit 12);
  /// `verify` finds an index's in the file's structure first (exit 5, damaged).
  @Test(arguments: [Decoy.Target.listIndex, .table])
  func everyWholeReadRefusesADecoy(target: Decoy.Target) throws {
    let f = CLIFixture().initialise()
    let hidden = f.new()
    _ = f.new()
    let queue = try DatabaseQueue(path: f.vaultPath)
    try queue.writeWithoutTransaction { db in
      let columns = try String.fetchAll(db, sql: Decoy.columnsSQL)
      try db.execute(
        sql: Decoy.script(
          of: target, columns: columns,
          change: "DELETE FROM decoy WHERE id LIKE '\(hidden.lowercased())%'"))
    }
    try queue.close()
    let file = f.home.file("export.json")
    let export = ["export", "--format", "json"]
    let reads: [([String], Int32)] =
      switch target {
      case .listIndex:
        [
          (["list", "--json"], 12), (["trends"], 12), (export, 12),
          (export + ["--output", file], 12), (["verify"], 5),
        ]
      case .table:
        [
          (export, 12), (export + ["--output", file], 12), (["search", "inward"], 12),
          (["verify"], 12),
        ]
      }
    for (arguments, status) in reads {
      let refused = f.cli.run(arguments)
      #expect(refused.status == status, "\(target) \(arguments) \(refused)")
      #expect(refused.stdout.isEmpty, "\(target) \(arguments) \(refused)")
    }
    #expect(!FileManager.default.fileExists(atPath: file))
  }

  /// 1. A session row deleted from the file: exit 12, the session named (this computer saw
  /// it), and the file left as it was; without this computer's record, said without a name.
  /// The record holds the sessions' entries from the last command that read every row (a
  /// `list`); after writes of one session only, the deletion is refused all the same.
  @Test func deletedSession() throws {
    let f = CLIFixture().initialise()
    let a = f.new()
    let b = f.new()
    #expect(f.run("list").status == 0)
    try f.tamper("DELETE FROM session WHERE id LIKE ?", [a + "%"])
    let result = f.run("list")
    #expect(result.status == 12, "\(result)")
    #expect(result.stderr.contains(#"session "\#(a.prefix(8))" is missing"#), "\(result)")
    try FileManager.default.removeItem(atPath: f.home.path + "/.local/state/journal/seen")
    let unnamed = f.run("list")
    #expect(unnamed.status == 12)
    #expect(unnamed.stderr.contains("a session was removed or put back"))
    #expect(f.run("verify").status == 12)
    #expect(f.run("verify", "--accept", "--yes").status == 0)
    #expect(f.sessions().count == 1)
    // Writes of one session since the last `list`: still refused, by the command that reads
    // the session, and by the next that reads them all.
    _ = f.new()
    try f.tamper("DELETE FROM session WHERE id LIKE ?", [b + "%"])
    #expect(f.run("show", b).status == 12)
    #expect(f.run("new", "--intention", "x", "--mood-before", "5").status == 0)
    #expect(f.run("list").status == 12)
  }

  /// `list` checks the vault from its own pass over the rows, and an undo and a purge made
  /// without the key since the last write still add up. `list --needs-reflection` right after
  /// it binds what it shows to the check `list` kept (SECURITY.md, "The last whole check,
  /// kept in memory"): a complete session removed since is left to the next command that
  /// reads every row; without a kept check it checks the whole vault, and refuses it.
  @Test func listChecksWhatItDoesNotShow() throws {
    let f = CLIFixture(extra: ["JOURNAL_UNDO_WINDOW": "10m"]).initialise()
    let complete = f.new()
    #expect(f.run("reflect", complete, "--reflection", "done").status == 0)
    let waiting = f.new(), other = f.new()
    #expect(f.run("delete", other, "--yes").status == 0)
    #expect(f.run("undo").status == 0)
    #expect(f.run("list", "--needs-reflection").status == 0)
    #expect(f.run("list").status == 0)
    try f.tamper("DELETE FROM session WHERE id LIKE ?", [complete + "%"])
    // Bound to the whole check the `list` kept: the waiting sessions are as it saw them.
    let bound = f.run("list", "--needs-reflection")
    #expect(bound.status == 0, "\(bound)")
    #expect(bound.stdout.contains(waiting.prefix(8)))
    let directory = f.runtime.path + "/journal"
    let kept = try FileManager.default.contentsOfDirectory(atPath: directory)
      .filter { $0.hasPrefix("checked-") }
    #expect(kept.count == 1)
    // Without it (the computer restarted), the listing checks the whole vault.
    for name in kept { unlink(directory + "/" + name) }
    let result = f.run("list", "--needs-reflection")
    #expect(result.status == 12, "\(result)")
    #expect(result.stderr.contains(#"session "\#(complete.prefix(8))" is missing"#))
    #expect(!result.stdout.contains(waiting.prefix(8)))
    #expect(f.run("list").status == 12)
  }

  /// A session's summary damaged after a `list` kept its check (the stamp is the same: the
  /// ledger holds ids, statuses and revisions): the next `list` names it, and so does every
  /// `list -n` after it, although the newest it shows are not the damaged one.
  @Test func listOfTheNewestNamesDamageAListingFound() throws {
    let f = CLIFixture().initialise()
    for _ in 0..<3 { _ = f.new() }
    let listed = f.run("list")
    #expect(listed.status == 0)
    let ids = listed.stdout.split(separator: "\n").map { String($0.prefix(8)) }
    #expect(ids.count == 3)
    #expect(f.run("list", "-n", "1").stdout.hasPrefix(ids[0]))
    try f.tamper(
      "UPDATE session SET summary = (SELECT summary FROM session WHERE id LIKE ?) WHERE id LIKE ?",
      [ids[1] + "%", ids[2] + "%"])
    let whole = f.run("list")
    #expect(whole.status == 5, "\(whole)")
    #expect(whole.stderr.contains(ids[2]), "\(whole)")
    for _ in 0..<2 {
      let newest = f.run("list", "-n", "1")
      #expect(newest.status == 5, "\(newest)")
      #expect(newest.stdout.hasPrefix(ids[0]), "\(newest)")
      #expect(newest.stderr.contains(ids[2]), "\(newest)")
    }
  }

  /// Two copies of one vault (a backup and the file it was made from) come to the same stamp
  /// with a session dated otherwise in each: `list -n` of each shows its own newest, never
  /// the order the other's listing kept.
  @Test func copiesOfOneVaultKeepTheirOwnNewest() throws {
    let f = CLIFixture().initialise()
    let older = f.new()
    let newer = try #require(
      f.run(
        "new", "--intention", "later", "--mood-before", "5", "--date", "2026-11-21 18:00"
      ).stdout.split(separator: "\n").first.map(String.init))
    #expect(f.run("list").status == 0)
    let copy = f.home.file("copy.db")
    #expect(f.run("backup", copy).status == 0)
    // The vault's write carries its kept check (the older session now the newest); the
    // copy's moves the same session back, to the same revision: the same stamp.
    #expect(f.run("edit", older, "--date", "2026-11-25 18:00").status == 0)
    #expect(f.run("edit", older, "--date", "2026-11-10 18:00", "--vault", copy).status == 0)
    let ofCopy = f.run("list", "-n", "1", "--vault", copy)
    #expect(ofCopy.status == 0, "\(ofCopy)")
    #expect(ofCopy.stdout.hasPrefix(newer.prefix(8)), "\(ofCopy)")
    #expect(f.run("list", "-n", "1").stdout.hasPrefix(older.prefix(8)))
    // And the copy's own listing keeps its own order, the vault's listing its.
    #expect(f.run("list", "--vault", copy).status == 0)
    #expect(f.run("list", "-n", "1").stdout.hasPrefix(older.prefix(8)))
    #expect(f.run("list", "-n", "1", "--vault", copy).stdout.hasPrefix(newer.prefix(8)))
  }

  /// 2. An older version of a session's body put back after an edit: the session is named.
  @Test func olderBodyPutBack() throws {
    let f = CLIFixture().initialise()
    let id = f.new()
    let queue = try GRDBQueue(f.vaultPath)
    let old = try queue.body(of: id)
    #expect(f.run("edit", id, "--intention", "a different intention").status == 0)
    try f.tamper("UPDATE session SET body = ? WHERE id LIKE ?", [old, id + "%"])
    let result = f.run("show", id)
    #expect(result.status == 12, "\(result)")
    #expect(result.stderr.contains(#"session "\#(id)" holds an older version of itself"#))
    #expect(!result.stdout.contains("to listen inward"))
  }
}

/// Reads one column straight from the file.
struct GRDBQueue {
  let path: String
  init(_ path: String) throws { self.path = path }

  func body(of prefix: String) throws -> Data {
    let queue = try GRDB.DatabaseQueue(path: path)
    defer { try? queue.close() }
    return try queue.read { db in
      try Data.fetchOne(
        db, sql: "SELECT body FROM session WHERE id LIKE ?", arguments: [prefix + "%"]) ?? Data()
    }
  }

}

/// What `verify --accept` says before it trusts a vault as it is (issue 31).
struct AcceptTests {
  /// `verify --accept` names each thing it accepts before asking (issue 31, item 2): a
  /// session put in the journal under the id of one in the trash is accepted only with the
  /// trashed copy named as dropped; answered no at a terminal, nothing changes.
  @Test func acceptNamesWhatItDrops() throws {
    let f = CLIFixture(extra: ["JOURNAL_UNDO_WINDOW": "1h"]).initialise()
    let id = f.new()
    _ = f.new()
    #expect(f.run("delete", id, "--yes").status == 0)
    try f.tamper(
      "INSERT INTO session (id, status, summary, body, revision) "
        + "SELECT id, status, summary, body, revision FROM trash")
    #expect(f.run("list").status == 12)
    // Asked at a terminal, and answered no: nothing changes.
    let asked = f.cli.interactive(["verify", "--accept"])
    #expect(asked.expect("Trust this journal as it is now"))
    asked.write("n\r")
    let declined = asked.wait()
    #expect(declined.status != 0, "\(declined)")
    #expect(
      declined.stderr.contains(
        #"found: the copy of session "\#(id)" in the trash is dropped: a session with its id "#
          + "is in the journal, and stays"), "\(declined.stderr)")
    #expect(f.run("list").status == 12)
    // With --yes, the same lines are said as it is accepted.
    let accepted = f.run("verify", "--accept", "--yes")
    #expect(accepted.status == 0, "\(accepted)")
    #expect(accepted.stderr.contains(#"the copy of session "\#(id)" in the trash is dropped"#))
    #expect(f.run("list").status == 0)
    #expect(f.run("undo").status == 6)
  }

  /// A sync server address edited into the file (issue 31, item 5) is named, escaped, by
  /// `verify --accept`; only once accepted is it trusted (tagged) for `journal sync`.
  @Test func acceptNamesAServerAddress() throws {
    let f = CLIFixture().initialise()
    _ = f.new()
    try f.tamper(
      """
      INSERT INTO sync (singleton, server, device, seq, clock_time, clock_counter, background)
      VALUES (1, 'host=evil.example.net' || char(27) || ']0;owned' || char(7), zeroblob(16), 0,
        0, 0, 0)
      """)
    #expect(f.run("list").status == 12)
    let asked = f.cli.interactive(["verify", "--accept"])
    #expect(asked.expect("Trust this journal as it is now"))
    asked.write("n\r")
    let declined = asked.wait()
    #expect(
      declined.stderr.contains(
        #"found: the sync server address was not set by this journal: "#
          + #""host=evil.example.net\u{1B}]0;owned\u{7}"; journal sync would connect there"#),
      "\(declined.stderr)")
    #expect(!declined.stderr.contains("\u{1B}"))
    #expect(try Self.serverTag(f) == nil)
    let accepted = f.run("verify", "--accept", "--yes")
    #expect(accepted.status == 0, "\(accepted)")
    #expect(accepted.stderr.contains("the sync server address was not set by this journal"))
    #expect(try Self.serverTag(f)?.count == 32)
  }

  static func serverTag(_ f: CLIFixture) throws -> Data? {
    let queue = try DatabaseQueue(path: f.vaultPath)
    defer { try? queue.close() }
    return try queue.read { db in try Data.fetchOne(db, sql: "SELECT server_tag FROM sync") }
  }
}

/// Settings a stranger could change to the person's harm (issue 31): a recovery slot
/// replaced in the file is noticed at once, not when the code is needed, and said to be a
/// setting; `verify --accept` can trust it on purpose.
struct SettingsTamperTests {
  /// A recovery code removed in the file together with a session deleted (the second read's
  /// finding 6): verify --accept names both, the setting with what it is now.
  @Test func acceptNamesTheSetting() throws {
    let f = CLIFixture().initialise()
    _ = f.new()
    let b = f.new()
    #expect(f.run("recovery-code").status == 0)
    #expect(f.run("list").status == 0)
    try f.tamper("UPDATE vault SET recovery_slot = NULL")
    try f.tamper("DELETE FROM session WHERE id LIKE ?", [b + "%"])
    let accepted = f.run("verify", "--accept", "--yes")
    #expect(accepted.status == 0, "\(accepted)")
    #expect(accepted.stderr.contains(#"session "\#(b)" is missing"#), "\(accepted.stderr)")
    #expect(
      accepted.stderr.contains("the recovery code was removed in the file"), "\(accepted.stderr)")
  }

  @Test func replacedRecoverySlot() throws {
    let f = CLIFixture().initialise()
    _ = f.new()
    #expect(f.run("recovery-code").status == 0)
    #expect(f.run("list").status == 0)
    try f.tamper("UPDATE vault SET recovery_slot = randomblob(88)")
    let refused = f.run("list")
    #expect(refused.status == 12, "\(refused)")
    #expect(refused.stderr.contains("the recovery code was replaced"), "\(refused.stderr)")
    #expect(f.run("verify", "--accept", "--yes").status == 0)
    #expect(f.run("list").status == 0)
  }
}

/// One UPDATE with plain SQL never locks a person out for good (issue 31's second read): a
/// planted id, revision, status, batch, time, setting or ledger row is named as damage of
/// that row, and `verify --accept` puts right what the sealed columns vouch for, so that
/// the journal works again, the person's words kept.
struct PlantedTypeTests {
  /// (what is planted, with CHECK constraints off as an attacker may, on the session B).
  static let plants: [String] = [
    "UPDATE session SET revision = 'x' WHERE id LIKE 'B%'",
    "UPDATE session SET revision = 1.5 WHERE id LIKE 'B%'",
    "UPDATE session SET revision = -1 WHERE id LIKE 'B%'",
    "UPDATE session SET id = upper(id) WHERE id LIKE 'B%'",
    "UPDATE session SET status = '60' WHERE id LIKE 'B%'",
    "UPDATE trash SET batch = 'x', purge_after = 253402300799999",
    "UPDATE trash SET status = '-1', revision = -1",
    "UPDATE tombstone SET id = '61'",
    "UPDATE vault SET recovery_slot = 3",
    "UPDATE ledger SET singleton = -1",
    "INSERT INTO ledger (singleton, generation, tag, construction) VALUES (2, 1, zeroblob(32), 2)",
  ]

  @Test(arguments: plants) func plantedTypeIsNamedAndAccepted(plant: String) throws {
    // Given a journal with two sessions, one in the trash, one purged, a recovery code
    // Every run at one instant (the trash must not purge by the wall clock), but the purge.
    let f = CLIFixture(
      extra: ["JOURNAL_UNDO_WINDOW": "1h", "JOURNAL_DEBUG_NOW": "2026-11-26T10:00:00Z"]
    ).initialise()
    let a = f.new()
    let b = f.new("--date", "2026-11-19 10:00")
    let gone = f.new()
    let trashed = f.new()
    #expect(
      f.run(
        "delete", gone, "--yes",
        extra: ["JOURNAL_UNDO_WINDOW": "10s", "JOURNAL_DEBUG_NOW": "2026-11-25T10:00:00Z"]
      ).status == 0)
    #expect(f.run("status").status == 0)
    #expect(f.run("delete", trashed, "--yes").status == 0)
    #expect(f.run("recovery-code").status == 0)
    #expect(f.run("list").status == 0)
    // When one value is planted with plain SQL
    let queue = try DatabaseQueue(path: f.vaultPath)
    try queue.writeWithoutTransaction { db in
      try db.execute(sql: "PRAGMA ignore_check_constraints = ON")
      try db.execute(sql: plant.replacingOccurrences(of: "'B%'", with: "'\(b)%'"))
    }
    try queue.close()
    // Then a keyed command refuses, never with a crash, and names what it can
    let refused = f.run("list")
    #expect([0, 5, 12].contains(refused.status), "\(plant): \(refused)")
    if refused.status == 12,
      plant.hasPrefix("UPDATE session") || plant.hasPrefix("UPDATE tombstone")
    {
      #expect(refused.stderr.contains("hold values journal never writes"), "\(plant): \(refused)")
    }
    // And verify --accept makes the journal work again
    let accepted = f.run("verify", "--accept", "--yes")
    #expect([0, 5].contains(accepted.status), "\(plant): \(accepted)")
    let listed = f.run("list")
    #expect([0, 5].contains(listed.status), "\(plant): \(listed)")
    #expect(listed.stdout.contains(a), "\(plant): the untouched session reads")
    if plant.contains("session") && !plant.contains("'60'") {
      #expect(listed.stdout.contains(b), "\(plant): the row was put right: \(listed)")
    }
    #expect(f.run("list").status != 12, "\(plant)")
  }
}
