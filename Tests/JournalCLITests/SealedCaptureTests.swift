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
        "journal: error: something written without the passphrase for session \"\(bad)\" did not open"
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
    let repaired = f.run("list")
    #expect(repaired.stderr.contains("had been changed; it is set right again"))
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
