import Foundation
import GRDB
import Glibc
import JournalTestSupport
import Testing

/// Writing without the passphrase, reading with it (issue 20): sealed additions made by the
/// real binary with no passphrase source and no agent, opened at the next keyed command.
@Suite struct SealedCaptureTests {
  /// The same person's machine with no passphrase file: what a locked journal is given.
  func locked(_ f: CLIFixture) -> CLI { CLI(home: f.home.path) }

  func run(_ cli: CLI, _ arguments: String..., stdin: String = "") -> CLI.Result {
    cli.run(arguments, stdin: stdin)
  }

  /// `new` and `reflect` succeed locked; `list` locked says what waits; the next keyed
  /// command opens them, marked, and says so.
  @Test func writeLockedReadUnlocked() throws {
    // Given a new journal (sealed capture is on for it) and no passphrase at hand
    let f = CLIFixture().initialise()
    let cli = locked(f)
    // When a session and, for another, a reflection are written locked
    let first = run(cli, "new", "--intention", "fresh from the session", "--mood-before", "4")
    #expect(first.status == 0, "\(first)")
    let id = first.stdout.trimmingCharacters(in: .newlines)
    #expect(id.count == 8)
    let second = run(cli, "new", "--intention", "another one", "--mood-before", "6")
    let other = second.stdout.trimmingCharacters(in: .newlines)
    let reflected = run(cli, "reflect", other, "--reflection", "it was kind", "--mood-after", "8")
    #expect(reflected.status == 0, "\(reflected)")
    #expect(
      reflected.stderr
        == "journal: sealed; it joins session \(other) when the journal is next opened with the passphrase\n"
    )
    // Then nothing of it is readable in the file, and locked commands say what waits
    let file = try Data(contentsOf: URL(fileURLWithPath: f.vaultPath))
    #expect(file.range(of: Data("fresh from the session".utf8)) == nil)
    #expect(
      run(cli, "capture").stdout
        == "writing without the passphrase is on; 3 sealed additions wait\n")
    #expect(run(cli, "status").stdout.hasPrefix("1 to reflect"), "the reflected one waits no more")
    let refused = run(cli, "list", "--no-input")
    #expect(refused.status == 9)
    #expect(
      refused.stderr.hasPrefix(
        "journal: 3 additions written without the passphrase wait; they open with the passphrase\n"
      ))
    // When the journal is next opened with the passphrase
    let listed = f.run("list", "--json")
    #expect(listed.status == 0, "\(listed)")
    #expect(
      listed.stderr.contains("opened 2 sessions written without the passphrase: \(id), \(other)"))
    #expect(f.sessions().count == 2)
    // Then both are ordinary sessions, marked for good
    let shown = f.run("show", other).stdout
    #expect(shown.contains("it was kind"))
    #expect(shown.contains("Added without the passphrase on "))
    #expect(shown.contains("Later fields added without the passphrase, last on "))
    #expect(f.show(other)["status"] as? String == "complete")
    #expect(f.show(other)["mood_after"] as? Int == 8)
    #expect(f.show(id)["intention"] as? String == "fresh from the session")
    #expect(run(cli, "capture").stdout == "writing without the passphrase is on\n")
    #expect(!f.run("list").stderr.contains("opened"), "opened once")
  }

  /// `journal unlock` opens what waits and says so; while unlocked, nothing is sealed (the
  /// agent has the key); the reminder question works locked.
  @Test func unlockOpensAndUnlockedWritesAsEver() throws {
    let runtime = AgentTests.Runtime()
    let f = CLIFixture(extra: ["XDG_RUNTIME_DIR": runtime.path]).initialise()
    let cli = CLI(home: f.home.path, extra: ["XDG_RUNTIME_DIR": runtime.path])
    let first = cli.run([
      "new", "--intention", "before unlock", "--mood-before", "3", "--remind", "3h",
    ])
    #expect(first.status == 0, "\(first)")
    let id = first.stdout.trimmingCharacters(in: .newlines)
    #expect(cli.run(["reminders"]).stdout.contains(id), "a reminder for a sealed session")
    let unlocked = f.run("unlock", "--for", "10m")
    defer { f.run("lock") }
    #expect(unlocked.status == 0, "\(unlocked)")
    #expect(
      unlocked.stderr.hasPrefix(
        "journal: 1 addition written without the passphrase waits; it opens with the passphrase\n"
          + "journal: opened 1 session written without the passphrase: \(id)\n"))
    let second = cli.run(["new", "--intention", "while unlocked", "--mood-before", "5"])
    #expect(second.status == 0, "\(second)")
    #expect(cli.run(["capture"]).stdout == "writing without the passphrase is on\n")
    let shown = cli.run(["show", second.stdout.trimmingCharacters(in: .newlines)]).stdout
    #expect(shown.contains("while unlocked"))
    #expect(!shown.contains("without the passphrase"))
    #expect(cli.run(["reminders"]).stdout.contains(id), "the reminder stays with the session")
  }

  /// A reflection written locked on a session that already has one keeps both.
  @Test func lockedReflectionKeepsTheEarlierOne() throws {
    let f = CLIFixture().initialise()
    let id = f.new()
    #expect(f.run("reflect", id, "--reflection", "first words").status == 0)
    let result = run(locked(f), "reflect", id, "--reflection", "second words")
    #expect(result.status == 0, "\(result)")
    let opened = f.run("show", id, "--json")
    #expect(opened.stderr.contains("opened later fields written without the passphrase for \(id)"))
    #expect(f.show(id)["reflection"] as? String == "first words\n\nsecond words")
  }

  /// A sealed addition whose ciphertext was altered is named by id; the others open.
  @Test func alteredAdditionIsNamed() throws {
    let f = CLIFixture().initialise()
    let cli = locked(f)
    let good = run(cli, "new", "--intention", "kept", "--mood-before", "5").stdout
      .trimmingCharacters(in: .newlines)
    let bad = run(cli, "new", "--intention", "altered", "--mood-before", "5").stdout
      .trimmingCharacters(in: .newlines)
    let queue = try DatabaseQueue(path: f.vaultPath)
    try queue.write { db in
      let row = try #require(
        try Row.fetchOne(
          db, sql: "SELECT seq, box FROM addition WHERE id LIKE ?", arguments: [bad + "%"]))
      var box: [UInt8] = Array(row["box"] as Data)
      box[60] ^= 0x01
      try db.execute(
        sql: "UPDATE addition SET box = ? WHERE seq = ?",
        arguments: [Data(box), row["seq"] as Int64])
    }
    try queue.close()
    let listed = f.run("list")
    #expect(listed.status == 0, "\(listed)")
    #expect(
      listed.stderr.contains(
        "journal: something written without the passphrase for session \"\(bad)\" did not open"
      ))
    #expect(listed.stdout.contains(good))
    #expect(!listed.stdout.contains(bad))
    #expect(f.sessions().count == 1)
  }

  /// A public key swapped into the vault is refused by locked writing; the key holder's next
  /// command sets it right, and locked writing works again.
  @Test func swappedKeyIsRefused() throws {
    let f = CLIFixture().initialise()
    let cli = locked(f)
    try f.tamper("UPDATE vault SET sealing_key = randomblob(32)")
    let refused = run(cli, "new", "--intention", "not for them", "--mood-before", "5")
    #expect(refused.status == 12, "\(refused)")
    #expect(
      refused.stderr
        == """
        journal: error: the key this journal seals new writing to is not the one this computer knows
        journal: hint: nothing was written; run "journal unlock" to check the journal with its passphrase

        """)
    #expect(run(cli, "capture").stdout == "writing without the passphrase is on\n")
    // (Not by `list`, whose check comes from its own pass over the rows, after it would put
    // the key right: a key planted where capture was off must not turn it on unasked.)
    let repaired = f.run("verify")
    #expect(repaired.stderr.contains("had been changed; it is set right again"), "\(repaired)")
    #expect(run(cli, "new", "--intention", "now it works", "--mood-before", "5").status == 0)
  }

  /// Without a pin (a computer that never opened the journal with its key), or with sealed
  /// capture off, the passphrase is asked for as ever.
  @Test func offOrUnpinnedAsksThePassphrase() throws {
    let f = CLIFixture().initialise()
    let cli = locked(f)
    #expect(f.run("capture", "off").stdout == "writing without the passphrase is off\n")
    let off = run(cli, "new", "--intention", "x", "--mood-before", "5")
    #expect(off.status == 9, "\(off)")
    #expect(f.run("capture", "on").stdout == "writing without the passphrase is on\n")
    let pins = f.home.path + "/.local/state/journal/seen"
    for name in try FileManager.default.contentsOfDirectory(atPath: pins)
    where name.hasSuffix("-sealing") {
      try FileManager.default.removeItem(atPath: pins + "/" + name)
    }
    #expect(run(cli, "new", "--intention", "x", "--mood-before", "5").status == 9)
  }

  /// A vault made before sealed capture is offered it once, not switched on.
  @Test func offeredOnceToAnOlderVault() throws {
    let f = CLIFixture().initialise()
    try f.tamper("UPDATE vault SET sealing_key = NULL, sealing_offered = 0")
    let first = f.run("list")
    #expect(first.stderr.contains(#""journal capture on" turns it on"#))
    #expect(!f.run("list").stderr.contains("journal capture on"))
    #expect(f.run("capture").stdout == "writing without the passphrase is off\n")
  }

  /// Killed with SIGKILL in the middle of a locked guided `new`: the answers are in a draft
  /// sealed to the journal's key, which the next `journal new` with the key resumes.
  @Test func killDuringSealedNewLosesNothing() throws {
    let f = CLIFixture().initialise()
    let stopped = DraftTests().startAndStop(f, .kill9, cli: locked(f))
    #expect(stopped.status != 0)
    #expect(f.sessions().isEmpty)
    // A locked run leaves the draft alone and says it waits.
    let again = locked(f).interactive(["new"])
    #expect(again.expect("Writing without your passphrase"))
    #expect(again.expect("1 unfinished draft waits"))
    again.signal(SIGKILL)
    _ = again.wait()
    // With the key, it is offered and resumed.
    let resumed = f.cli.interactive(["new"])
    #expect(resumed.expect("(4 of 5 fields answered)"))
    #expect(resumed.expect("Resume it, discard it, or keep it for later? [R/d/k] "))
    resumed.write("r\n")
    // The intention goes on from what was kept; "." ends it
    #expect(resumed.expect("to listen to the plant"))
    resumed.write(".\n")
    #expect(resumed.expect("Mood before, 1 (low) to 10 (high) "))
    resumed.write("7\n")
    #expect(resumed.expect("No thanks [3] "))
    resumed.write("\r")
    #expect(resumed.expect("Add them now? [y/N] "))
    resumed.write("\n")
    let result = resumed.wait()
    #expect(result.status == 0, "\(result)")
    let session = f.show(result.stdout.trimmingCharacters(in: .newlines))
    #expect(session["treatment"] as? String == "ayahuasca")
    #expect(session["dose"] as? String == "one cup")
    #expect(session["intention"] as? String == "to listen to the plant")
  }
}

/// An addition renamed to the id of one of the person's sessions (issue 31, item 2): one
/// in the trash with its undo open, one purged, one live. It is opened apart under a new id,
/// marked, and named; the person's session, its undo and its tombstone are untouched, and
/// the vault still adds up.
@Suite struct ClaimedIDTests {
  /// The full id of the session whose short id is `short`.
  static func full(_ f: CLIFixture, _ short: String) throws -> String {
    let queue = try DatabaseQueue(path: f.vaultPath)
    defer { try? queue.close() }
    return try queue.read { db in
      try String.fetchOne(
        db,
        sql: """
          SELECT id FROM session WHERE id LIKE ?1 UNION SELECT id FROM trash WHERE id LIKE ?1
          UNION SELECT id FROM addition WHERE id LIKE ?1
          """, arguments: [short + "%"]) ?? short
    }
  }

  /// A keyless `new`, its addition then renamed to `target` with plain SQL.
  static func forge(_ f: CLIFixture, claiming target: String, at time: String) throws {
    let locked = CLI(home: f.home.path)
    let sealed = locked.run(
      ["new", "--intention", "the forger's words", "--mood-before", "2"],
      extra: ["JOURNAL_DEBUG_NOW": time])
    precondition(sealed.status == 0, "\(sealed)")
    let short = sealed.stdout.trimmingCharacters(in: .newlines)
    try f.tamper(
      "UPDATE addition SET id = ? WHERE id = ?", [target, try Self.full(f, short)])
  }

  @Test func claimedTrashedSessionKeepsItsUndo() throws {
    // Given a session deleted a moment ago, its undo window still open
    let f = CLIFixture(extra: ["JOURNAL_UNDO_WINDOW": "1h"]).initialise()
    let id = f.new()
    let full = try Self.full(f, id)
    #expect(f.run("delete", id, "--yes").status == 0)
    // When an addition written without the key is renamed to its id and opened
    try Self.forge(f, claiming: full, at: "2026-11-21T10:00:00Z")
    let listed = f.run("list")
    // Then it is kept apart under a new id, named, and every command still works
    #expect(listed.status == 0, "\(listed)")
    #expect(listed.stderr.contains(#"claimed the id "\#(id)"; it was kept apart as "#))
    #expect(f.run("verify").status == 0)
    let undone = f.run("undo")
    #expect(undone.status == 0, "\(undone)")
    #expect(f.show(id)["intention"] as? String == "to listen inward")
    #expect(f.sessions().count == 2)
    #expect(f.run("verify").status == 0)
  }

  @Test func claimedPurgedAndLiveIDs() throws {
    // Given a purged session (a tombstone) and a live one
    let f = CLIFixture(extra: ["JOURNAL_UNDO_WINDOW": "10s"]).initialise()
    let gone = f.new()
    let goneFull = try Self.full(f, gone)
    #expect(
      f.run("delete", gone, "--yes", extra: ["JOURNAL_DEBUG_NOW": "2026-11-21T09:00:00Z"]).status
        == 0)
    #expect(f.run("status", extra: ["JOURNAL_DEBUG_NOW": "2026-11-21T09:05:00Z"]).status == 0)
    let live = f.new()
    let liveFull = try Self.full(f, live)
    // When two additions claim their ids
    try Self.forge(f, claiming: goneFull, at: "2026-11-21T10:00:00Z")
    try Self.forge(f, claiming: liveFull, at: "2026-11-21T10:00:01Z")
    let listed = f.run("list", "--json")
    // Then neither takes a place: the purged id stays purged, the live session is itself
    #expect(listed.status == 0, "\(listed)")
    #expect(listed.stderr.contains(#"claimed the id "\#(gone)""#))
    #expect(listed.stderr.contains(#"claimed the id "\#(live)""#))
    #expect(f.show(live)["intention"] as? String == "to listen inward")
    #expect(f.run("show", gone).status == 6)
    #expect(f.sessions().count == 3)
    #expect(f.run("verify").status == 0)
  }
}

/// "Added without the passphrase" is for good (issue 31, item 4): the mark shows in `list`,
/// is a named field of `list --json`, `show --json`, every export format and `share`, and an
/// export imported into another journal keeps it; a file without it never gains one.
@Suite struct MarksTravelTests {
  @Test(.enabled(if: ShareTests.available, "needs age (apt-get install age)"))
  func marksGoWhereTheSessionGoes() throws {
    // Given a session written locked and opened, and one written with the key
    let f = CLIFixture().initialise()
    let locked = CLI(home: f.home.path)
    let sealed = locked.run(["new", "--intention", "written locked", "--mood-before", "3"])
    #expect(sealed.status == 0, "\(sealed)")
    let marked = sealed.stdout.trimmingCharacters(in: .newlines)
    let plain = f.new()
    // Then list marks one of them
    let listed = f.run("list")
    #expect(listed.status == 0, "\(listed)")
    let lines = listed.stdout.split(separator: "\n")
    #expect(
      lines.first { $0.hasPrefix(marked) }?.hasSuffix("(added without the passphrase)") == true,
      "\(listed.stdout)")
    #expect(lines.first { $0.hasPrefix(plain) }?.contains("without the passphrase") == false)
    // And JSON names the mark, for the marked session only
    let key = "added_without_passphrase"
    let sessions = f.sessions()
    #expect(sessions.first { ($0["short_id"] as? String) == marked }?[key] is String)
    #expect(sessions.first { ($0["short_id"] as? String) == plain }?[key] == nil)
    #expect(f.show(marked)[key] is String)
    // And every export format carries it
    let json = f.run("export").stdout
    #expect(json.components(separatedBy: "\"\(key)\"").count == 2, "\(json)")
    #expect(
      f.run("export", "--format", "markdown").stdout.contains("*Added without the passphrase on "))
    let csv = f.run("export", "--format", "csv").stdout
    #expect(csv.hasPrefix("id,") && csv.split(separator: "\r\n").first?.contains(key) == true)
    // (Shared with chosen fields too: the mark is not a field to leave out.)
    let therapist = try ShareTests.keyPair(f, "therapist.txt")
    let sharedFile = f.home.file("shared.age")
    let shared = f.run(
      "share", marked, "--to", therapist.recipient, "--fields", "intention", "--format", "json",
      "--output", sharedFile)
    #expect(shared.status == 0, "\(shared)")
    #expect(try ShareTests.decrypt(sharedFile, identity: therapist.identity).contains(key))
    // And an export imported into another journal keeps it, never inventing one
    let file = f.home.file("export.json")
    #expect(f.run("export", "--output", file).status == 0)
    let other = CLIFixture().initialise()
    #expect(other.run("import", file).status == 0)
    #expect(other.show(marked)[key] as? String == f.show(marked)[key] as? String)
    #expect(other.show(plain)[key] == nil)
    #expect(other.run("list").stdout.contains("(added without the passphrase)"))
  }
}

/// An addition renamed to the id of a session the person then imports (the reviewer's
/// finding 2): the import never leaves the stranger's text in the person's place; the marked
/// one is kept apart and named. And an update from a file keeps the marks it does not have.
@Suite struct ImportClaimTests {
  @Test func importedSessionTakesItsOwnID() throws {
    // Given the person's own session, exported, and a new journal where an addition took
    // its id before the import
    let f = CLIFixture().initialise()
    _ = f.new("--intention", "my real words")
    let file = f.home.file("e.json")
    #expect(f.run("export", "--output", file).status == 0)
    let full = try ClaimedIDTests.full(f, f.sessionPrefix())
    let other = CLIFixture().initialise()
    #expect(other.run("list").status == 0)
    try ClaimedIDTests.forge(other, claiming: full, at: "2026-11-21T10:00:00Z")
    #expect(other.run("list").status == 0)
    // When the export is imported
    let imported = other.run("import", file)
    // Then the person's words are under their id, and the stranger's kept apart, named
    #expect(imported.status == 0, "\(imported)")
    #expect(imported.stderr.contains("was kept apart as"), "\(imported.stderr)")
    #expect(other.show(String(full.prefix(8)))["intention"] as? String == "my real words")
    #expect(other.sessions().count == 2)
    #expect(other.run("verify").status == 0)
  }

  /// A file's marked copy of a session the journal holds unmarked is kept apart under an id
  /// made from the one it claims: the dry run names the id the import then uses, and the
  /// same file imported again changes nothing (it was a copy more each time).
  @Test func aCopyKeptApartOnceIsFoundAgain() throws {
    let f = CLIFixture().initialise()
    let id = f.new("--intention", "my real words")
    let file = f.home.file("e.json")
    #expect(f.run("export", "--output", file).status == 0)
    var document = try #require(
      try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: file)))
        as? [String: Any])
    var session = try #require((document["sessions"] as? [[String: Any]])?.first)
    session["added_without_passphrase"] = "2026-11-21T11:21:40.000Z"
    session["intention"] = "words written without the passphrase"
    document["sessions"] = [session]
    try JSONSerialization.data(withJSONObject: document).write(to: URL(fileURLWithPath: file))
    let dry = f.run("import", file, "--dry-run")
    #expect(dry.status == 0, "\(dry)")
    let named = try #require(
      dry.stderr.range(of: #"kept apart as ""#).map { range in
        String(dry.stderr[range.upperBound...].prefix(8))
      }, "\(dry.stderr)")
    let imported = f.run("import", file)
    #expect(imported.stderr.contains(#"kept apart as "\#(named)""#), "\(imported.stderr)")
    #expect(f.sessions().count == 2)
    let again = f.run("import", file)
    #expect(again.status == 0, "\(again)")
    #expect(!again.stderr.contains("kept apart"), "\(again.stderr)")
    #expect(f.sessions().count == 2)
    #expect(f.show(id)["intention"] as? String == "my real words")
    #expect(f.show(named)["intention"] as? String == "words written without the passphrase")
    // Deleted, it stays deleted: the file's copy is left out as one in the trash is.
    #expect(f.run("delete", named, "--yes").status == 0)
    #expect(f.run("import", file).status == 0)
    #expect(f.sessions().count == 1)
  }
}

/// A random sealing key planted while capture is off (the reviewer's finding 5) never turns
/// writing without the passphrase back on: it is refused as a changed setting, and nothing
/// puts a key in place before the ledger was asked.
@Suite struct PlantedSealingKeyTests {
  @Test func captureOffStaysOff() throws {
    let f = CLIFixture().initialise()
    _ = f.new()
    #expect(f.run("capture", "off").status == 0)
    try f.tamper("UPDATE vault SET sealing_key = randomblob(32)")
    let locked = CLI(home: f.home.path)
    for command in [["list"], ["verify"]] {
      let refused = f.run(command[0])
      #expect(refused.status == 12, "\(command): \(refused)")
      #expect(refused.stderr.contains("settings were changed"), "\(refused.stderr)")
      let written = locked.run(["new", "--intention", "evil", "--mood-before", "2"])
      #expect(written.status != 0, "\(command): \(written)")
    }
  }
}
