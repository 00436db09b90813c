import Foundation
import GRDB
import Glibc
import JournalTestSupport
import Testing

/// Delete, the undo window, and the purge, with real processes.
@Suite(.serialized) struct DeleteTests {
  /// `journal delete id` at a terminal, answered yes, its undo countdown showing.
  func counting(_ f: CLIFixture, _ id: String) -> Spawned {
    let process = f.cli.interactive(["delete", id], extra: ["TERM": "xterm"])
    #expect(process.expect("Delete this session? [y/N] "))
    process.write("y\r")
    #expect(process.expect("Press u to undo ("))
    return process
  }

  /// delete --yes, then undo from another command: the session is back, whole.
  @Test func deleteThenUndo() {
    let f = CLIFixture().initialise()
    let id = f.new("--dose", "3 g")
    f.run("reflect", id, "--mood-after", "8", "--reflection", "kept")
    let before = f.show(id)
    let deleted = f.run("delete", id, "--yes")
    #expect(deleted.status == 0)
    #expect(deleted.stdout == "")
    #expect(
      deleted.stderr == "journal: deleted session \(id); \"journal undo\" restores it within 10 s\n"
    )
    #expect(f.run("show", id).status == 6)
    let undone = f.run("undo", extra: ["JOURNAL_PASSPHRASE_FILE": ""])
    #expect(undone.status == 0, "undo needs no passphrase")
    #expect(undone.stderr == "journal: restored session \(id)\n")
    #expect(NSDictionary(dictionary: f.show(id)) == NSDictionary(dictionary: before))
    let again = f.run("undo")
    #expect(again.status == 6)
    #expect(again.stderr.hasPrefix("journal: nothing to undo\n"))
  }

  /// Several ids at once are one deletion, undone together.
  @Test func severalAtOnce() {
    let f = CLIFixture().initialise()
    let a = f.new(), b = f.new()
    let deleted = f.run("delete", a, b, "--yes")
    #expect(deleted.stderr.hasPrefix("journal: deleted 2 sessions;"))
    #expect(f.sessions().isEmpty)
    #expect(f.run("undo").status == 0)
    #expect(f.sessions().count == 2)
  }

  /// Without a terminal, delete needs --yes; nothing is deleted.
  @Test func needsConfirmation() {
    let f = CLIFixture().initialise()
    let id = f.new()
    let result = f.run("delete", id)
    #expect(result.status == 2)
    #expect(
      result.stderr == """
        journal: error: deleting needs a confirmation and there is no terminal to ask
        journal: hint: add --yes to go ahead without asking

        """)
    #expect(f.sessions().count == 1)
  }

  /// Once the window has passed (set to 0 s rather than waited out), the next command
  /// purges the session: its ciphertext is nowhere in the vault file or its WAL.
  @Test func purgeAfterWindow() throws {
    // Given a session's sealed bytes
    let f = CLIFixture().initialise()
    let id = f.new("--reflection", String(repeating: "words that must vanish ", count: 300))
    _ = f.new()
    let queue = try DatabaseQueue(path: f.vaultPath)
    let needles: [Data] = try queue.read { db in
      let row = try Row.fetchOne(
        db, sql: "SELECT summary, body FROM session WHERE id LIKE ?", arguments: [id + "%"])
      let summary: Data = row?[0] ?? Data()
      let body: Data = row?[1] ?? Data()
      return [summary.subdata(in: 8..<40), body.subdata(in: 8..<40), body.suffix(32)]
    }
    try queue.close()
    // When it is deleted with a 0 s window and any command runs
    #expect(f.run("delete", id, "--yes", extra: ["JOURNAL_UNDO_WINDOW": "0s"]).status == 0)
    #expect(f.run("list").status == 0)
    // Then
    #expect(f.run("undo").status == 6)
    let directory = (f.vaultPath as NSString).deletingLastPathComponent
    for name in try FileManager.default.contentsOfDirectory(atPath: directory) {
      let bytes = try Data(contentsOf: URL(fileURLWithPath: directory + "/" + name))
      for needle in needles { #expect(bytes.range(of: needle) == nil, "\(name)") }
    }
  }

  /// In a terminal: the session is named, confirmed, and the countdown's "u" undoes.
  @Test func countdownUndo() {
    let f = CLIFixture(extra: ["NO_COLOR": ""]).initialise()
    let id = f.new("--treatment", "ketamine")
    let process = f.cli.interactive(["delete", id], extra: ["TERM": "xterm"])
    #expect(process.expect("\(id)  Fri 2026-11-20 18:00  Ketamine"))
    #expect(process.expect("Delete this session? [y/N] "))
    process.write("y\n")
    #expect(process.expect("Press u to undo ("))
    process.write("u")
    #expect(process.expect("Restored session \(id)."))
    #expect(process.wait().status == 0)
    #expect(f.sessions().count == 1)
  }

  /// Enter ends the countdown early; the window stays open for "journal undo".
  @Test func countdownEnter() {
    let f = CLIFixture().initialise()
    let id = f.new()
    let process = f.cli.interactive(["delete", id])
    #expect(process.expect("Delete this session? [y/N] "))
    process.write("y\n")
    #expect(process.expect("Press u within 10 s to undo it"))
    process.write("\r")
    #expect(process.wait().status == 0)
    #expect(f.sessions().isEmpty)
    #expect(f.run("undo").status == 0)
    #expect(f.sessions().count == 1)
  }

  /// `journal undo` from another shell during the countdown: the countdown sees it within a
  /// second and says the session is back, never "Deleted".
  @Test func undoneElsewhere() {
    let f = CLIFixture().initialise()
    let id = f.new()
    let process = counting(f, id)
    #expect(f.run("undo").status == 0)
    #expect(process.expect(#"Restored session \#(id): "journal undo" ran elsewhere."#))
    #expect(process.wait().status == 0)
    #expect(!process.screenText.contains("Deleted session \(id).\r\n"))
    #expect(f.sessions().count == 1)
  }

  /// A command typed during the countdown, a key at a time, is no undo (its "u" comes after
  /// other keys): the first key ends the countdown, the deletion standing, and nothing
  /// typed reaches the shell.
  @Test func typingOnIsNoUndo() {
    let f = CLIFixture().initialise()
    let id = f.new()
    let process = counting(f, id)
    for key in "journal list\r" { process.write(String(key)) }
    let result = process.wait()
    #expect(result.status == 0, "\(result)")
    #expect(!process.screenText.contains("Restored"), "\(process.screenText)")
    #expect(f.sessions().isEmpty)
    #expect(f.run("undo").status == 0, "still within the window")
  }

  /// A paste during the countdown that begins with u (`uptime`) is no undo either.
  @Test func aPasteIsNoUndo() {
    let f = CLIFixture().initialise()
    let id = f.new()
    let process = counting(f, id)
    process.write("\u{1B}[200~uptime\u{1B}[201~")
    let result = process.wait()
    #expect(result.status == 0, "\(result)")
    #expect(!process.screenText.contains("Restored"), "\(process.screenText)")
    #expect(f.sessions().isEmpty)
  }

  /// Ctrl-C during the countdown: the count is cleared and the last line says how to undo.
  @Test func interruptedCountdown() {
    let f = CLIFixture().initialise()
    let id = f.new()
    let process = counting(f, id)
    process.write("\u{03}")
    #expect(process.wait().status != 0)
    let last = process.screenText.components(separatedBy: "\r\u{1B}[K").last ?? ""
    #expect(
      last.hasPrefix(
        #"Deleted session \#(id). "journal undo" restores it until the window closes."#),
      "\(process.screenText)")
    #expect(!last.contains("Press u"))
    #expect(f.run("undo").status == 0)
  }

  /// At 40 columns the countdown line fits on one line, so redrawing it in place never
  /// stacks copies.
  @Test func narrowCountdown() {
    let f = CLIFixture().initialise()
    let id = f.new()
    let process = f.cli.interactive(["delete", id], extra: ["TERM": "xterm", "COLUMNS": "40"])
    #expect(process.expect("Delete this session? [y/N] "))
    process.write("y\r")
    #expect(process.expect("undo ("))
    process.write("\r")
    #expect(process.wait().status == 0)
    let drawn = process.screenText.components(separatedBy: "\r\u{1B}[K").dropFirst()
      .filter { $0.contains("undo (") }
    #expect(!drawn.isEmpty)
    for line in drawn {
      // What shows: the text without the terminal's mode switches (bracketed paste on, off).
      let shown = line.replacing(/\u{1B}\[[0-9;?]*[A-Za-z]/, with: "")
      #expect(shown.count < 40, "\(shown.debugDescription)")
    }
  }

  /// Answering no deletes nothing.
  @Test func declined() {
    let f = CLIFixture().initialise()
    let id = f.new()
    let process = f.cli.interactive(["delete", id])
    #expect(process.expect("Delete this session? [y/N] "))
    process.write("\n")
    let result = process.wait()
    #expect(result.status == 130)
    #expect(result.stderr == "journal: nothing was deleted\n", "\(result)")
    #expect(f.sessions().count == 1)
  }

  /// kill -9 at random moments during delete and undo: the session is always either fully
  /// present or fully in its window, never half, never twice. The moments come from a seed
  /// the failure message names (JOURNAL_TEST_SEED replays it).
  @Test func killedMidway() throws {
    // A long window, so a slow machine never purges between rounds.
    let f = CLIFixture(extra: ["JOURNAL_UNDO_WINDOW": "10m"]).initialise()
    let id = f.new()
    let seed = SeededGenerator.runSeed
    var generator = SeededGenerator(seed: seed)
    for round in 0..<16 {
      let command = round % 2 == 0 ? ["delete", id, "--yes"] : ["undo"]
      let process = f.cli.interactive(command)
      usleep(UInt32.random(in: 0...250_000, using: &generator))
      process.signal(SIGKILL)
      _ = process.wait()
      let queue = try DatabaseQueue(path: f.vaultPath)
      let counts = try queue.read { db in
        (
          try Int.fetchOne(
            db, sql: "SELECT count(*) FROM session WHERE id LIKE ?", arguments: [id + "%"]) ?? -1,
          try Int.fetchOne(
            db, sql: "SELECT count(*) FROM trash WHERE id LIKE ? AND outcome IS NULL",
            arguments: [id + "%"]) ?? -1
        )
      }
      try queue.close()
      #expect(
        counts.0 + counts.1 == 1,
        "round \(round) (seed \(seed)): session \(counts.0), trash \(counts.1)")
    }
    if f.sessions().isEmpty { #expect(f.run("undo").status == 0) }
    #expect(f.show(id)["intention"] as? String == "to listen inward")
  }
}

/// Undo with values planted in the trash (the second read's lower findings): a reminder of
/// values journal never writes is not restored (the session is), a row too damaged to go
/// back stays and is named, and a planted batch number is never "the latest deletion".
struct PlantedUndoTests {
  @Test func undoRestoresWhatItCan() throws {
    let f = CLIFixture(extra: ["JOURNAL_UNDO_WINDOW": "1h"]).initialise()
    let a = f.new("--remind", "3h")
    let b = f.new()
    #expect(f.run("delete", a, b, "--yes").status == 0)
    let queue = try DatabaseQueue(path: f.vaultPath)
    try queue.writeWithoutTransaction { db in
      try db.execute(sql: "PRAGMA ignore_check_constraints = ON")
      try db.execute(
        sql: "UPDATE trash SET reminder_repeat = 0 WHERE id LIKE ?", arguments: [a + "%"])
      try db.execute(sql: "UPDATE trash SET summary = x'00' WHERE id LIKE ?", arguments: [b + "%"])
    }
    try queue.close()
    let undone = f.run("undo")
    #expect(undone.status == 0, "\(undone)")
    #expect(undone.stderr.contains("restored session \(a)"), "\(undone.stderr)")
    #expect(undone.stderr.contains(#"session "\#(b)" in the trash is damaged"#))
    #expect(undone.stderr.contains(#"the reminder of session "\#(a)" was damaged"#))
    #expect(f.run("show", a).status == 0)
  }

  @Test func plantedBatchIsNotTheLatest() throws {
    let f = CLIFixture(extra: ["JOURNAL_UNDO_WINDOW": "1h"]).initialise()
    let older = f.new()
    let newer = f.new()
    #expect(f.run("delete", older, "--yes").status == 0)
    try f.tamper("UPDATE trash SET batch = 9223372036854775807")
    #expect(f.run("verify", "--accept", "--yes").status == 0)
    #expect(f.run("delete", newer, "--yes").status == 0)
    let undone = f.run("undo")
    #expect(undone.stderr.contains("restored session \(newer)"), "\(undone)")
  }
}
