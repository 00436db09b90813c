import Foundation
import JournalTestSupport
import Testing

/// SECURITY.md is precise enough to write a decryptor from: Scripts/decrypt-vault.py (Python,
/// PyNaCl, no journal code) reads a vault the real binary wrote.
struct IndependentReaderTests {
  static let available = IndependentReader.available

  /// A CI run without PyNaCl fails here instead of passing with the reader's tests skipped.
  @Test(.enabled(if: Prerequisites.areRequired, "only CI requires PyNaCl"))
  func readerIsThereUnderCI() {
    #expect(Self.available, "\(IndependentReader.python) has no PyNaCl (Scripts/test installs it)")
  }

  /// Every field written through the CLI is read back by the independent reader.
  @Test(.enabled(if: available, "needs python3 with PyNaCl (pip install pynacl)"))
  func pythonReaderAgrees() throws {
    let f = CLIFixture().initialise()
    let id = f.new("--treatment", "other:San Pedro", "--dose", "a cup")
    f.run("reflect", id, "--mood-after", "9", "--reflection", "light\nand space", "--music", "rain")
    let (status, data, _) = try Self.read(f)
    #expect(status == 0)
    let sessions = try JSONSerialization.jsonObject(with: data) as? [[String: Any]] ?? []
    let session = try #require(sessions.first)
    #expect(session["treatment"] as? String == "other")
    #expect(session["treatment_name"] as? String == "San Pedro")
    #expect(session["dose"] as? String == "a cup")
    #expect(session["intention"] as? String == "to listen inward")
    #expect(session["reflection"] as? String == "light\nand space")
    #expect(session["music"] as? String == "rain")
    #expect(session["mood_before"] as? Int == 5)
    #expect(session["mood_after"] as? Int == 9)
    #expect(session["status"] as? String == "complete")
    #expect((session["date"] as? String)?.hasPrefix("2026-11-20T18:00:00") == true)
  }

  /// Tags and integration notes (format 14): the reader takes them as SECURITY.md lays them
  /// out, leaves a deleted note out, and checks the summary's note moods against the notes.
  @Test(.enabled(if: available, "needs python3 with PyNaCl (pip install pynacl)"))
  func pythonReaderNotesAndTags() throws {
    let later = ["JOURNAL_DEBUG_NOW": "2026-11-28T09:00:00Z"]
    let f = CLIFixture(extra: ["JOURNAL_DEBUG_NOW": "2026-11-21T18:00:00Z"]).initialise()
    let id = f.new("--tag", "Grief", "--tag", "inner child")
    #expect(f.run("note", id, "the dream came back", "--mood", "7", extra: later).status == 0)
    #expect(f.run("note", id, "gone", extra: later).status == 0)
    #expect(f.run("note", id, "--delete", "2", "--yes", extra: later).status == 0)
    let (status, data, stderr) = try Self.read(f)
    #expect(status == 0, "\(stderr)")
    let sessions = try JSONSerialization.jsonObject(with: data) as? [[String: Any]] ?? []
    let session = try #require(sessions.first)
    #expect(session["tags"] as? [String] == ["grief", "inner child"], "\(session)")
    let notes = session["notes"] as? [[String: Any]] ?? []
    #expect(notes.map { $0["text"] as? String } == ["the dream came back"], "\(session)")
    #expect(notes.first?["mood"] as? Int == 7)
    #expect(session["damaged"] == nil)
  }

  /// A session closed without a reflection (format 6): sealed "closed", "complete" in the
  /// clear column; the reader takes it as SECURITY.md says, and still checks the ledger.
  @Test(.enabled(if: available, "needs python3 with PyNaCl (pip install pynacl)"))
  func pythonReaderClosed() throws {
    let f = CLIFixture().initialise()
    let id = f.new()
    #expect(f.run("close", id).status == 0)
    let (status, data, stderr) = try Self.read(f)
    #expect(status == 0, "\(stderr)")
    let sessions = try JSONSerialization.jsonObject(with: data) as? [[String: Any]] ?? []
    #expect(sessions.first?["status"] as? String == "closed", "\(sessions)")
    #expect(sessions.first?["damaged"] == nil)
  }

  /// A mood before that was not recorded (a jrnl import) is stored as no tag 4 at all, and
  /// the reader, as SECURITY.md says, gives it as null.
  @Test(.enabled(if: available, "needs python3 with PyNaCl (pip install pynacl)"))
  func pythonReaderMoodNotRecorded() throws {
    let f = CLIFixture().initialise()
    #expect(f.run("import", DataTests.jrnlFixture).status == 0)
    let (status, data, stderr) = try Self.read(f)
    #expect(status == 0, "\(stderr)")
    let sessions = try JSONSerialization.jsonObject(with: data) as? [[String: Any]] ?? []
    #expect(sessions.count == 4)
    #expect(sessions.allSatisfy { $0["mood_before"] is NSNull }, "\(sessions)")
  }

  /// The reader checks the ledger as SECURITY.md describes it: a vault after saves, edits, an
  /// undone deletion and a purge (keyless marks still in the trash) adds up; with a row
  /// deleted from the file, or a tombstone dropped, it does not.
  @Test(.enabled(if: available, "needs python3 with PyNaCl (pip install pynacl)"))
  func pythonReaderChecksTheLedger() throws {
    let f = CLIFixture(extra: ["JOURNAL_UNDO_WINDOW": "0s"]).initialise()
    let a = f.new(), b = f.new()
    _ = f.new()
    f.run("reflect", a, "--reflection", "seen")
    f.run("delete", b, "--yes", extra: ["JOURNAL_UNDO_WINDOW": "10m"])
    f.run("undo")
    f.run("delete", b, "--yes")
    f.run("undo")  // purges first, without the key; nothing left to undo
    let (status, data, stderr) = try Self.read(f)
    #expect(status == 0, "\(stderr)")
    let sessions = try JSONSerialization.jsonObject(with: data) as? [[String: Any]] ?? []
    #expect(sessions.count == 2)
    try f.tamper("DELETE FROM tombstone")
    let dropped = try Self.read(f)
    #expect(dropped.status != 0)
    #expect(dropped.stderr.contains("tampered"))
  }

  /// Sealed additions (format 7): the reader opens those waiting with the passphrase, as
  /// SECURITY.md says, and reads the marks of those journal has opened since.
  @Test(.enabled(if: available, "needs python3 with PyNaCl (pip install pynacl)"))
  func pythonReaderSealedAdditions() throws {
    let f = CLIFixture().initialise()
    let saved = f.new()
    let locked = CLI(home: f.home.path)
    let id = locked.run(["new", "--intention", "sealed words", "--mood-before", "3"]).stdout
      .trimmingCharacters(in: .newlines)
    #expect(locked.run(["reflect", saved, "--reflection", "later, sealed"]).status == 0)
    let (status, data, stderr) = try Self.read(f)
    #expect(status == 0, "\(stderr)")
    let entries = try JSONSerialization.jsonObject(with: data) as? [[String: Any]] ?? []
    let new = try #require(entries.first { $0["sealed_addition"] as? String == "new" })
    #expect((new["id"] as? String)?.hasPrefix(id) == true)
    #expect(new["intention"] as? String == "sealed words")
    #expect(new["mood_before"] as? Int == 3)
    #expect(new["damaged"] == nil)
    let later = try #require(entries.first { $0["sealed_addition"] as? String == "later" })
    #expect((later["id"] as? String)?.hasPrefix(saved) == true)
    #expect(later["reflection"] as? String == "later, sealed")
    // Opened by journal: ordinary sessions, marked.
    #expect(f.run("list").status == 0)
    let opened = try Self.read(f)
    let sessions = try JSONSerialization.jsonObject(with: opened.stdout) as? [[String: Any]] ?? []
    #expect(sessions.count == 2, "\(sessions)")
    #expect(sessions.allSatisfy { $0["sealed_addition"] == nil && $0["damaged"] == nil })
    #expect(sessions.first { ($0["id"] as? String)?.hasPrefix(id) == true }?["added_sealed"] != nil)
    #expect(
      sessions.first { ($0["id"] as? String)?.hasPrefix(saved) == true }?["later_sealed"] != nil)
  }

  /// A key change cut off half-way (format 9): the reader opens the rows before the cursor
  /// under the new key and those after under the old, as SECURITY.md says, all from the new
  /// passphrase.
  @Test(.enabled(if: available, "needs python3 with PyNaCl (pip install pynacl)"))
  func pythonReaderMidRotation() throws {
    let f = CLIFixture().initialise()
    #expect(f.run("import", f.home.write("many.json", KeyChangeTests.sessions(300))).status == 0)
    let newFile = f.home.write("new", "a passphrase after the leak\n")
    let killed = f.run(
      "passwd", "--new-key", "--new-passphrase-file", newFile,
      extra: ["JOURNAL_DEBUG_KILL_AT": "key-change-batch-1"])
    #expect(killed.status == 137)
    let (status, data, stderr) = try Self.read(f, passphraseFile: newFile)
    #expect(status == 0, "\(stderr)")
    let sessions = try JSONSerialization.jsonObject(with: data) as? [[String: Any]] ?? []
    #expect(sessions.count == 300)
    #expect(sessions.allSatisfy { $0["damaged"] == nil && $0["intention"] != nil })
  }

  /// Runs Scripts/decrypt-vault.py on the fixture's vault: its exit status, stdout, stderr.
  /// A purged session's export imported again (issue 31, item 3): left out with a note, so
  /// the tombstone never stands beside a live row; `--restore-purged` brings it back and
  /// removes the tombstone in the same write. `verify` and the independent reader agree on
  /// each vault (and both refuse a tombstone planted beside a live session).
  @Test(.enabled(if: available, "needs python3 with PyNaCl (pip install pynacl)"))
  func purgedSessionImportedAgain() throws {
    let f = CLIFixture(extra: ["JOURNAL_UNDO_WINDOW": "10s"]).initialise()
    let id = f.new()
    let export = f.home.file("export.json")
    #expect(f.run("export", "--output", export).status == 0)
    #expect(f.run("delete", id, "--yes").status == 0)
    let later = ["JOURNAL_DEBUG_NOW": "2099-01-01T00:00:00Z"]
    #expect(f.run("status", extra: later).status == 0)
    // When the export is imported again
    let left = f.run("import", export, extra: later)
    // Then the purged session stays purged, and says how to bring it back
    #expect(left.status == 0, "\(left)")
    #expect(
      left.stderr.contains(
        "left out 1 session this journal deleted for good: \(id); "
          + #""journal import --restore-purged" brings them back"#), "\(left.stderr)")
    #expect(f.run("show", id, extra: later).status == 6)
    #expect(f.run("verify", extra: later).status == 0)
    #expect(try Self.read(f).status == 0)
    // When it is asked for
    let restored = f.run("import", export, "--restore-purged", extra: later)
    #expect(restored.status == 0, "\(restored)")
    #expect(restored.stderr.contains("brought back 1 session deleted for good: \(id)"))
    #expect(f.run("show", id, extra: later).status == 0)
    #expect(f.run("verify", extra: later).status == 0)
    let (status, data, stderr) = try Self.read(f)
    #expect(status == 0, "\(stderr)")
    let sessions = try JSONSerialization.jsonObject(with: data) as? [[String: Any]] ?? []
    #expect(sessions.count == 1)
    // And a tombstone planted beside the live session is refused by both
    try f.tamper(
      "INSERT INTO tombstone (id) SELECT id FROM session WHERE id LIKE ?", [id + "%"])
    let refused = f.run("verify", extra: later)
    #expect(refused.status == 12, "\(refused)")
    #expect(try Self.read(f).status != 0)
  }

  /// Format 11: a session written locked and opened has its mark in the summary, and the
  /// ledger covers the settings; the reader, written from SECURITY.md, agrees.
  @Test(.enabled(if: available, "needs python3 with PyNaCl (pip install pynacl)"))
  func pythonReaderMarksAndSettings() throws {
    let f = CLIFixture().initialise()
    let sealed = CLI(home: f.home.path).run(["new", "--intention", "locked", "--mood-before", "3"])
    #expect(sealed.status == 0, "\(sealed)")
    #expect(f.run("recovery-code").status == 0)
    #expect(f.run("list").status == 0)
    let (status, data, stderr) = try Self.read(f)
    #expect(status == 0, "\(stderr)")
    let sessions = try JSONSerialization.jsonObject(with: data) as? [[String: Any]] ?? []
    #expect(sessions.first?["added_sealed"] is String, "\(sessions)")
    // And a setting changed in the file is refused by both
    try f.tamper("UPDATE vault SET sealing_key = NULL")
    let refused = f.run("list")
    #expect(refused.status == 12, "\(refused)")
    #expect(refused.stderr.contains("settings were changed in the file"), "\(refused.stderr)")
    #expect(try Self.read(f).status != 0)
  }

  static func read(
    _ f: CLIFixture, passphraseFile: String? = nil
  ) throws -> (status: Int32, stdout: Data, stderr: String) {
    try IndependentReader.read(
      vault: f.vaultPath, passphraseFile: passphraseFile ?? f.passphraseFile)
  }
}
