import Foundation
import GRDB
import Glibc
import JournalTestSupport
import Testing

/// A passphrase that leaked (issue 22): `passwd --new-key` moves the journal to a new data key
/// under a new passphrase, and a crash at any point of it loses nothing.
struct KeyChangeTests {
  static let none = ["JOURNAL_PASSPHRASE_FILE": ""]

  /// An export of `count` sessions to import: every field varied a little.
  static func sessions(_ count: Int) -> String {
    let rows = (0..<count).map { index in
      let id = String(format: "%08x-1111-4111-8111-%012x", index + 1, index + 1)
      let day = String(format: "2026-%02d-%02dT10:00:00Z", index % 12 + 1, index % 28 + 1)
      let reflection = index % 3 == 0 ? #""reflection \#(index)""# : "null"
      let status = index % 3 == 0 ? "complete" : "needs_reflection"
      return """
        {"id": "\(id)", "date": "\(day)", "treatment": "psilocybin", "treatment_name": null,
         "dose": "dose \(index)", "intention": "intention \(index)", "mood_before": \(index % 10 + 1),
         "environment": null, "music": null, "mood_after": null, "reflection": \(reflection),
         "status": "\(status)", "created": "\(day)", "updated": "\(day)"}
        """
    }
    return
      #"{"format": "journal-export", "version": 1, "exported": "2026-11-21T10:00:00Z", "sessions": ["#
      + rows.joined(separator: ",\n") + "]}"
  }

  /// After a key change this computer's record still holds the entries, so a session
  /// removed from the file afterwards is named, not only noticed (issue 31).
  @Test func removedAfterAChangeIsNamed() throws {
    let f = CLIFixture().initialise()
    let id = f.new()
    _ = f.new()
    let newFile = f.home.write("new", "a new and longer passphrase\n")
    chmod(newFile, 0o600)
    #expect(f.run("passwd", "--new-key", "--new-passphrase-file", newFile).status == 0)
    try f.tamper("DELETE FROM session WHERE id LIKE ?", [id + "%"])
    let refused = f.run("list", extra: ["JOURNAL_PASSPHRASE_FILE": newFile])
    #expect(refused.status == 12, "\(refused)")
    #expect(refused.stderr.contains(#"session "\#(id)" is missing"#), "\(refused.stderr)")
  }

  /// The new passphrase opens it, the old one no longer; a backup made before still opens
  /// with the old one; the recovery code is made anew; an unsaved draft and a sealed
  /// addition waiting come through.
  @Test func changeKey() throws {
    let f = CLIFixture().initialise()
    let id = f.new()
    let backup = f.home.file("before.db")
    #expect(f.run("backup", backup).status == 0)
    let oldCode = f.home.write("old-code", f.run("recovery-code").stdout)
    let sealed = CLI(home: f.home.path).run([
      "new", "--intention", "sealed before", "--mood-before", "3",
    ])
    #expect(sealed.status == 0, "\(sealed)")
    let before = f.run("export").stdout
    let newFile = f.home.write("new", "a passphrase after the leak\n")
    let changed = f.run("passwd", "--new-key", "--new-passphrase-file", newFile)
    #expect(changed.status == 0, "\(changed)")
    #expect(changed.stderr.contains("the key is new: 2 sessions sealed again under it"))
    #expect(changed.stderr.contains("copies made before (backups, a copied journal) still open"))
    let newCode = f.home.write("new-code", changed.stdout)
    #expect(changed.stdout.split(separator: "-").count == 8)
    let withNew = ["JOURNAL_PASSPHRASE_FILE": newFile]
    #expect(f.run("list").status == 4, "the old passphrase no longer opens it")
    let after = f.run("export", extra: withNew)
    #expect(after.status == 0, "\(after)")
    #expect(f.run("show", id, extra: withNew).stdout.contains("to listen inward"))
    #expect(after.stdout.contains("sealed before"))
    #expect(before.contains("\"sessions\""))
    // The backup: still the old key, still the old passphrase.
    #expect(f.run("list", "--vault", backup).status == 0)
    // The old recovery code opens nothing now; the new one does.
    let other = f.home.write("other", "yet another passphrase\n")
    let oldUse = f.run(
      "passwd", "--recovery-code-file", oldCode, "--new-passphrase-file", other, extra: Self.none)
    #expect(oldUse.status == 4, "\(oldUse)")
    let newUse = f.run(
      "passwd", "--recovery-code-file", newCode, "--new-passphrase-file", other, extra: Self.none)
    #expect(newUse.status == 0, "\(newUse)")
  }

  /// Killed (SIGKILL) at every point of a key change of 600 sessions: the next command with
  /// the new passphrase finishes it, and the journal holds exactly the sessions it had.
  @Test(arguments: [
    "key-change-begun", "key-change-drafts", "key-change-batch-1", "key-change-batch-2",
    "key-change-additions", "key-change-finished",
  ])
  func killedAtAnyPoint(_ point: String) throws {
    let f = CLIFixture().initialise()
    let file = f.home.write("many.json", Self.sessions(600))
    #expect(f.run("import", file).status == 0)
    let before = f.run("export").stdout
    let newFile = f.home.write("new", "a passphrase after the leak\n")
    let killed = f.run(
      "passwd", "--new-key", "--new-passphrase-file", newFile,
      extra: ["JOURNAL_DEBUG_KILL_AT": point])
    #expect(killed.status == 137, "\(killed)")
    let withNew = ["JOURNAL_PASSPHRASE_FILE": newFile]
    let queue = try DatabaseQueue(path: f.vaultPath)
    let midway = try queue.read { db in
      try Bool.fetchOne(db, sql: "SELECT rotation_key IS NOT NULL FROM vault") ?? false
    }
    try queue.close()
    #expect(midway == (point != "key-change-finished"), "the crash fell where it was asked")
    let resumed = f.run("list", "--json", extra: withNew)
    #expect(resumed.status == 0, "\(resumed.stderr)")
    #expect(resumed.stderr.contains("was interrupted; it is finished now") == midway)
    let after = f.run("export", extra: withNew)
    #expect(after.status == 0)
    #expect(Self.withoutExportTime(after.stdout) == Self.withoutExportTime(before))
    #expect(f.run("verify", extra: withNew).status == 0)
    #expect(f.run("list").status == 4)
  }

  static func withoutExportTime(_ export: String) -> String {
    export.split(separator: "\n").filter { !$0.contains("\"exported\"") }.joined(separator: "\n")
  }
}
