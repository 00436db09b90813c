import Foundation
import JournalTestSupport
import Testing

/// Integration notes and tags end to end (issue 36): `journal note` adds, corrects, deletes
/// with the undo window and restores; `show`, JSON, export and import, search, share and
/// trends carry them; tags go on with `new` and `edit`, filter `list`, `search` and
/// `export`, and are counted by `journal tags`. Bad input is one line and a documented exit.
@Suite struct NotesAndTagsTests {
  static let today = ["JOURNAL_DEBUG_NOW": "2026-11-21T18:00:00Z"]
  static let nextWeek = ["JOURNAL_DEBUG_NOW": "2026-11-28T09:00:00Z"]

  func notes(_ f: CLIFixture, _ id: String) -> [[String: Any]] {
    f.show(id)["notes"] as? [[String: Any]] ?? []
  }

  /// A note on a session of each status leaves the status alone; they are numbered oldest
  /// first, dated, with a mood when given, from the argument or standard input.
  @Test func notesKeepTheStatus() {
    let f = CLIFixture(extra: Self.today).initialise()
    let waiting = f.new()
    let complete = f.new()
    #expect(f.run("reflect", complete, "--reflection", "it was gentle").status == 0)
    let closed = f.new()
    #expect(f.run("close", closed).status == 0)
    for id in [waiting, complete, closed] {
      let before = f.show(id)["status"] as? String
      let added = f.run("note", id, "the dream came back", "--mood", "6", extra: Self.nextWeek)
      #expect(added.status == 0, "\(added)")
      #expect(added.stderr == "journal: saved note 1 of session \(id)\n")
      let piped = f.run("note", id, stdin: "a call went\r\ndifferently\n", extra: Self.nextWeek)
      #expect(piped.stderr == "journal: saved note 2 of session \(id)\n", "\(piped)")
      #expect(f.show(id)["status"] as? String == before)
      let shown = notes(f, id)
      #expect(
        shown.map { $0["text"] as? String } == ["the dream came back", "a call went\ndifferently"])
      #expect(shown.first?["mood"] as? Int == 6)
      #expect(shown.last?["mood"] is NSNull)
      #expect(shown.first?["written"] as? String == "2026-11-28T09:00:00.000Z")
    }
    let text = f.run("show", waiting).stdout
    #expect(
      text.contains("Notes\n  1  Sat 2026-11-28 09:00, mood 6 (steady)\n    the dream came back\n"),
      "\(text)")
    #expect(f.run("list", "--needs-reflection").stdout.contains(waiting))
  }

  /// Corrected and removed moods, and every kind of bad input: one line, a hint where it
  /// helps, the documented exit, nothing changed.
  @Test func correctionsAndRefusals() {
    let f = CLIFixture(extra: Self.today).initialise()
    let id = f.new()
    #expect(f.run("note", id, "first words", "--mood", "4").status == 0)
    #expect(f.run("note", id, "--edit", "1", "better words").status == 0)
    #expect(notes(f, id).first?["text"] as? String == "better words")
    #expect(notes(f, id).first?["mood"] as? Int == 4)
    #expect(notes(f, id).first?["edited"] as? String != nil)
    #expect(f.run("note", id, "--edit", "1", "--mood", "9").status == 0)
    #expect(notes(f, id).first?["text"] as? String == "better words")
    #expect(notes(f, id).first?["mood"] as? Int == 9)
    #expect(f.run("note", id, "--edit", "1", "--no-mood").status == 0)
    #expect(notes(f, id).first?["mood"] is NSNull)
    let cases: [([String], Int32, String)] = [
      (
        ["note", id, "x", "--mood", "11"], 2,
        "journal: error: a note's mood is a whole number from 1 to 10\n"
      ),
      (["note", id, "   "], 2, "journal: error: the note is empty\n"),
      (
        ["note", id, "a\u{1B}[31mred"], 2, "journal: error: the note contains control characters\n"
      ),
      (
        ["note", id, "--edit", "3", "words"], 6, "journal: error: session \"\(id)\" has no note 3\n"
      ),
      (
        ["note", id, "--delete", "2", "--yes"], 6,
        "journal: error: session \"\(id)\" has no note 2\n"
      ),
      (
        ["note", id, "--edit", "1", "--delete", "1"], 2, "choose one of --edit, --delete and --undo"
      ),
      (["note", id, "--delete", "1"], 2, "journal: error: "),
      (["note", "ffffffff", "words"], 6, "journal: error: "),
      (["note", id, "--undo"], 6, "nothing to undo"),
    ]
    for (arguments, status, message) in cases {
      let result = f.cli.run(arguments)
      #expect(result.status == status, "\(arguments) \(result)")
      #expect(result.stderr.contains(message), "\(arguments) \(result)")
      #expect(result.stderr.split(separator: "\n").count <= 2, "\(arguments) \(result)")
    }
    #expect(notes(f, id).count == 1)
    #expect(
      f.run("note", id, "--edit", "3", "words").stderr.contains(
        "its notes are numbered 1 to 1, oldest first"))
    let tooLong = f.run("note", id, "-", stdin: String(repeating: "a", count: 1_048_577))
    #expect(
      tooLong.status == 2 && tooLong.stderr.contains("longer than 1 MiB"), "\(tooLong.stderr)")
    // The editor asked for with no terminal: standard input is not taken instead
    let noEditor = f.run("note", id, "--editor", stdin: "piped words\n")
    #expect(noEditor.status == 2, "\(noEditor)")
    #expect(
      noEditor.stderr.hasPrefix("journal: error: the editor needs a terminal; nothing was changed"),
      "\(noEditor)")
    #expect(notes(f, id).count == 1)
  }

  /// A deletion has the session's undo window: `--undo` brings the note back within it; at
  /// its end the note is gone for good (its text purged at the next write), and JSON and
  /// exports never carry it.
  @Test func deletionAndUndo() throws {
    let window = ["JOURNAL_DEBUG_NOW": "2026-11-21T18:00:00Z", "JOURNAL_UNDO_WINDOW": "10s"]
    let f = CLIFixture(extra: window).initialise()
    let id = f.new()
    #expect(f.run("note", id, "keep this").status == 0)
    #expect(f.run("note", id, "PRIVATE-WORDS-TO-FORGET").status == 0)
    let deleted = f.run("note", id, "--delete", "2", "--yes")
    #expect(
      deleted.stderr
        == "journal: deleted note 2 of session \(id); \"journal note \(id) --undo\" restores it within 10 s\n",
      "\(deleted)")
    #expect(notes(f, id).count == 1)
    #expect(!f.run("export").stdout.contains("PRIVATE-WORDS-TO-FORGET"))
    let undone = f.run("note", id, "--undo")
    #expect(undone.stderr == "journal: restored note 2 of session \(id)\n", "\(undone)")
    #expect(notes(f, id).map { $0["text"] as? String } == ["keep this", "PRIVATE-WORDS-TO-FORGET"])
    #expect(f.run("note", id, "--delete", "2", "--yes").status == 0)
    let later = ["JOURNAL_DEBUG_NOW": "2026-11-21T18:00:11Z"]
    let tooLate = f.run("note", id, "--undo", extra: later)
    #expect(tooLate.status == 6, "\(tooLate)")
    // The next write of the session purges the text; a note added later is numbered 2.
    #expect(
      f.run("note", id, "another", extra: later).stderr
        == "journal: saved note 2 of session \(id)\n")
    #expect(notes(f, id).map { $0["text"] as? String } == ["keep this", "another"])
    // No window: purged in the same write.
    let now = f.run("note", id, "--delete", "2", "--yes", extra: ["JOURNAL_UNDO_WINDOW": "0s"])
    #expect(now.stderr == "journal: deleted note 2 of session \(id) for good (no undo window)\n")
    #expect(f.run("note", id, "--undo").status == 6)
  }

  /// At a terminal: the note is asked for (a paste in one write), then how it feels now; a
  /// deletion asks, counts down, and u brings the note back.
  @Test func atATerminal() {
    let f = CLIFixture(extra: Self.today).initialise()
    let id = f.new()
    let process = f.cli.interactive(["note", id], extra: ["TERM": "xterm"] + Self.today)
    #expect(process.expect("Note — what has come up since"))
    process.write("a line pasted\rand a second\r.\r")
    #expect(process.expect("How it feels now"), "\(process.screenText)")
    process.write("7\r")
    #expect(process.wait().status == 0)
    #expect(notes(f, id).first?["text"] as? String == "a line pasted\nand a second")
    #expect(notes(f, id).first?["mood"] as? Int == 7)
    let deleting = f.cli.interactive(["note", id, "--delete", "1"], extra: ["TERM": "xterm"])
    #expect(deleting.expect("Delete this note? [y/N] "))
    deleting.write("y\r")
    #expect(deleting.expect("Press u to undo ("))
    deleting.write("u")
    #expect(deleting.expect("Restored note 1 of session \(id)."))
    #expect(deleting.wait().status == 0)
    #expect(notes(f, id).count == 1)
  }

  /// Tags: normalised, added and removed, counted, filtering list, search and export; bad
  /// ones refused with one line before anything is saved.
  @Test func tags() throws {
    let f = CLIFixture(extra: Self.today).initialise()
    let one = f.new("--tag", "Grief", "--tag", "ceremony")
    let two = f.new("--tag", "grief")
    let three = f.new()
    #expect(f.show(one)["tags"] as? [String] == ["ceremony", "grief"])
    #expect(f.show(three)["tags"] == nil)
    #expect(f.run("edit", three, "--tag", "dreams", "--intention", "to rest").status == 0)
    #expect(f.show(three)["intention"] as? String == "to rest")
    #expect(f.run("edit", one, "--untag", "ceremony").status == 0)
    #expect(f.show(one)["tags"] as? [String] == ["grief"])
    #expect(f.run("tags").stdout == "grief   2 sessions\ndreams  1 session\n")
    let json = try JSONSerialization.jsonObject(with: Data(f.run("tags", "--json").stdout.utf8))
    let tags = (json as? [String: Any])?["tags"] as? [[String: Any]]
    #expect(tags?.first?["name"] as? String == "grief" && tags?.first?["sessions"] as? Int == 2)
    let listed = f.run("list", "--tag", "GRIEF").stdout
    #expect(listed.contains(one) && listed.contains(two) && !listed.contains(three))
    #expect(
      f.run("list", "--tag", "grief", "--tag", "dreams").stderr == "journal: no session matches\n")
    let exported = f.run("export", "--tag", "dreams").stdout
    #expect(exported.contains(three) && !exported.contains(one))
    #expect(f.run("search", "rest", "--tag", "dreams").stdout.contains(three))
    for bad in ["", "a,b", String(repeating: "t", count: 65)] {
      let refused = f.run("edit", three, "--tag", bad)
      #expect(refused.status == 2, "\(refused)")
      #expect(refused.stderr.hasPrefix("journal: error: a tag "), "\(refused)")
    }
    let before = f.sessions().count
    #expect(f.run("new", "--intention", "x", "--mood-before", "5", "--tag", "a,b").status == 2)
    #expect(f.sessions().count == before)
    // No tag name is in the file in the clear
    let bytes = try Data(contentsOf: URL(fileURLWithPath: f.vaultPath))
    #expect(bytes.range(of: Data("dreams".utf8)) == nil)
  }

  /// An export brings notes and tags back whole into another journal, and importing it
  /// again adds no second note; search finds words only a note holds, `--in notes` only
  /// there; a share of chosen fields carries the notes; trends shows their moods by the
  /// weeks after the session.
  @Test func everywhereASessionGoes() throws {
    let f = CLIFixture(extra: Self.today).initialise()
    let id = f.new("--tag", "integration")
    #expect(
      f.run("note", id, "the heron at the river", "--mood", "8", extra: Self.nextWeek).status == 0)
    let export = f.home.file("export.json")
    #expect(f.run("export", "--output", export).status == 0)
    let g = CLIFixture(extra: Self.today).initialise()
    #expect(g.run("import", export).status == 0)
    #expect(g.show(id)["tags"] as? [String] == ["integration"])
    let imported = g.show(id)["notes"] as? [[String: Any]] ?? []
    #expect(imported.count == 1)
    #expect(imported.first?["id"] as? String == notes(f, id).first?["id"] as? String)
    #expect(g.run("import", export).status == 0)
    #expect((g.show(id)["notes"] as? [[String: Any]])?.count == 1)
    // Search
    #expect(f.run("search", "heron").stdout.contains(id))
    #expect(f.run("search", "heron", "--in", "notes").stdout.contains(id))
    #expect(f.run("search", "heron", "--in", "intention").stderr.contains("no session"))
    // A chosen field
    let shared = f.run("export", "--fields", "notes,date", "--format", "markdown").stdout
    #expect(shared.contains("### Notes") && shared.contains("the heron at the river"), "\(shared)")
    // Trends
    let trends = f.run("trends", extra: Self.nextWeek).stdout
    #expect(trends.contains("After a session, from the moods of your notes"), "\(trends)")
    #expect(trends.contains("week 2"), "\(trends)")
  }

  /// Imports that would each bring a session its most notes (10,000), of other notes each
  /// time: the second is refused whole (also as a dry run), with what to do next, so that
  /// the session stays one its export brings back in; importing the first again is fine.
  @Test func importsNeverGrowASessionPastItsNotes() throws {
    let f = CLIFixture().initialise()
    let id = "3662b7ff655c4a699f56c6041749e171"
    func file(_ name: String, first: Int) -> String {
      let notes = (first..<first + 10_000).map { index in
        #"{"id":"\#(String(format: "%016x", index + 1))","version":"00000000000000aa","#
          + #""written":"2026-11-20T18:00:00.000Z","text":"note \#(index)"}"#
      }
      let session =
        #"{"id":"\#(id)","date":"2026-11-20T18:00:00.000Z","treatment":"psilocybin","#
        + #""intention":"to rest","mood_before":5,"status":"needs_reflection","#
        + #""created":"2026-11-20T18:00:00.000Z","updated":"2026-11-20T18:00:00.000Z","#
        + #""notes":[\#(notes.joined(separator: ","))]}"#
      return f.home.write(
        name, #"{"format":"journal-export","version":2,"sessions":[\#(session)]}"#)
    }
    let first = file("first.json", first: 0)
    let second = file("second.json", first: 10_000)
    let imported = f.run("import", first)
    #expect(imported.status == 0, "\(imported)")
    for extra in [["--dry-run"], []] {
      let refused = f.cli.run(["import", second] + extra)
      #expect(refused.status == 2, "\(refused)")
      #expect(
        refused.stderr.hasPrefix(
          #"journal: error: nothing was imported: session "3662b7ff" would hold more than 10000 notes"#
        ), "\(refused.stderr)")
      #expect(refused.stderr.contains("then import again; the vault is unchanged"))
    }
    #expect((f.show(id)["notes"] as? [[String: Any]])?.count == 10_000)
    #expect(f.run("import", first).status == 0, "the same notes again")
    let export = f.home.file("export.json")
    #expect(f.run("export", "--output", export).status == 0)
    let g = CLIFixture().initialise()
    #expect(g.run("import", export).status == 0, "its export is brought back in")
  }

  /// Written locked (sealed capture): the note is sealed, and joins the session marked at
  /// the next opening with the passphrase; its words are nowhere in the file meanwhile.
  @Test func sealedNote() throws {
    let f = CLIFixture(extra: Self.today).initialise()
    let id = f.new()
    let locked = CLI(home: f.home.path, extra: Self.today)
    let sealed = locked.run(["note", id, "SEALED-NOTE-WORDS", "--mood", "3"])
    #expect(sealed.status == 0, "\(sealed)")
    #expect(sealed.stderr.contains("note sealed for session \(id)"))
    let bytes = try Data(contentsOf: URL(fileURLWithPath: f.vaultPath))
    #expect(bytes.range(of: Data("SEALED-NOTE-WORDS".utf8)) == nil)
    let shown = notes(f, id)
    #expect(shown.first?["text"] as? String == "SEALED-NOTE-WORDS")
    #expect(shown.first?["added_without_passphrase"] as? Bool == true)
    #expect(f.run("show", id).stdout.contains("added without the passphrase"))
  }
}

extension Dictionary where Key == String, Value == String {
  fileprivate static func + (a: [String: String], b: [String: String]) -> [String: String] {
    a.merging(b) { _, new in new }
  }
}
