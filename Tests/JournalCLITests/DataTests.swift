import Foundation
import GRDB
import Glibc
import JournalTestSupport
import Testing

/// Export, import, backup and verify, as real processes.
@Suite(.serialized) struct DataTests {
  static let jrnlFixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("../Fixtures/jrnl-4.6-export.json").standardized.path

  /// Sessions covering every field and status survive export → import into a fresh vault,
  /// field by field, times and ids included.
  @Test func roundTrip() throws {
    // Given sessions of every shape
    let f = CLIFixture().initialise()
    let full = f.new(
      "--treatment", "other:San Pedro", "--dose", "a cup", "--environment", "the desert, with R.",
      "--music", "wind", "--mood-after", "9", "--reflection", "line one\n\nline three ✨")
    let plain = f.new("--treatment", "mdma", "--date", "2026-11-18 07:05")
    let partial = f.new("--mood-before", "2")
    f.run("reflect", partial, "--mood-after", "4")
    let ids = [full, plain, partial]
    let originals = ids.map { f.show($0) }
    // When exported and imported elsewhere
    let export = f.home.file("export.json")
    let exported = f.run("export", "--output", export)
    #expect(exported.status == 0)
    #expect(exported.stderr.hasPrefix("journal: the export is not encrypted"))
    var info = stat()
    lstat(export, &info)
    #expect(info.st_mode & 0o777 == 0o600)
    let other = CLIFixture().initialise()
    let imported = other.run("import", export)
    #expect(imported.status == 0)
    #expect(imported.stderr == "journal: journal export: added 3, updated 0, left 0 unchanged\n")
    // Then
    for (id, original) in zip(ids, originals) {
      #expect(
        NSDictionary(dictionary: other.show(id)) == NSDictionary(dictionary: original), "\(id)")
    }
    let again = other.run("import", export)
    #expect(again.stderr == "journal: journal export: added 0, updated 0, left 3 unchanged\n")
  }

  /// The committed export (Tests/Fixtures/export) imports through the real binary, and the
  /// journal it made exports, with the clock at the fixture's export time, to the same bytes.
  @Test func exportFixtureRoundTrip() throws {
    // Given
    let f = CLIFixture().initialise()
    let fixture = try #require(Fixtures.bytes("export/export-v2.json"))
    // When
    let imported = f.run("import", Fixtures.path("export/export-v2.json"))
    let exported = f.run("export", extra: ["JOURNAL_DEBUG_NOW": "2026-11-21T18:30:00.000Z"])
    // Then
    #expect(imported.status == 0)
    #expect(imported.stderr == "journal: journal export: added 3, updated 0, left 0 unchanged\n")
    #expect(exported.status == 0)
    #expect(Array(exported.stdout.utf8) == fixture)
  }

  /// The real jrnl export imports; a dry run changes nothing; a second import adds nothing.
  @Test func jrnlImport() {
    let f = CLIFixture().initialise()
    let dry = f.run("import", Self.jrnlFixture, "--dry-run")
    #expect(dry.status == 0)
    #expect(dry.stderr == "journal: jrnl export: would add 4, would update 0, left 0 unchanged\n")
    #expect(f.sessions().isEmpty)
    #expect(f.run("import", Self.jrnlFixture).status == 0)
    let sessions = f.sessions()
    #expect(sessions.count == 4)
    #expect(sessions.allSatisfy { $0["status"] as? String == "complete" })
    #expect(sessions.last?["treatment"] as? String == "psilocybin")
    #expect(
      f.run("import", Self.jrnlFixture).stderr
        == "journal: jrnl export: added 0, updated 0, left 4 unchanged\n")
  }

  /// jrnl records no mood: an imported entry's mood before is "not recorded" in show, null
  /// in --json and export, a dash in list, and left out of the trends' averages (which say
  /// how many sessions they rest on); never an invented 5.
  @Test func jrnlMoodNotRecorded() throws {
    let f = CLIFixture().initialise()
    let rated = f.new("--mood-before", "8")
    #expect(f.run("import", Self.jrnlFixture).status == 0)
    let imported = try #require(f.sessions().first { $0["short_id"] as? String != rated })
    #expect(imported["mood_before"] is NSNull)
    let id = try #require(imported["short_id"] as? String)
    let show = f.run("show", id)
    #expect(show.status == 0)
    #expect(show.stdout.contains("  Mood before   not recorded\n"), "\(show.stdout)")
    #expect(!show.stdout.contains("neutral"))
    #expect(f.show(id)["mood_before"] is NSNull)
    let line = f.run("list").stdout.split(separator: "\n").first { $0.hasPrefix(id) }
    #expect(line?.contains("  mood  –     ") == true, "\(line ?? "")")
    let export = f.run("export", "--format", "csv").stdout
    #expect(export.contains(",(imported from jrnl; no intention recorded),,"))
    let trends = f.run("trends", "--json")
    let object = try JSONSerialization.jsonObject(with: Data(trends.stdout.utf8)) as? [String: Any]
    let overall = try #require(object?["overall"] as? [String: Any])
    #expect(overall["sessions"] as? Int == 5)
    #expect(overall["with_mood_before"] as? Int == 1)
    #expect(overall["average_mood_before"] as? Double == 8)
  }

  /// Editing an imported session at a terminal: the mood-before slider starts with nothing
  /// chosen and Enter leaves it not recorded, instead of saving the 5 it would start at.
  @Test func editKeepsMoodNotRecorded() throws {
    let f = CLIFixture().initialise()
    #expect(f.run("import", Self.jrnlFixture).status == 0)
    let id = try #require(f.sessions().first?["short_id"] as? String)
    let process = f.cli.interactive(["edit", id], extra: ["TERM": "xterm"])
    #expect(process.expect("When was it?"))
    process.write("\r")
    #expect(process.expect("Treatment ["))
    process.write("\r")
    #expect(process.expect("Dose (optional)"))
    process.write("\r")
    #expect(process.expect("Intention"))
    process.write("\u{04}")
    #expect(process.expect("Enter with nothing chosen"))
    #expect(process.expect("Mood before"))
    #expect(process.expect("not chosen"))
    process.write("\r")
    #expect(process.expect("Mood after"))
    process.signal(SIGINT)
    _ = process.wait()
    #expect(f.show(id)["mood_before"] is NSNull)
  }

  /// jrnl's own journal file, given instead of its JSON export, is recognised: one error
  /// that says how to export it, exit 2, nothing of the file repeated, the vault unchanged.
  @Test func jrnlJournalFileRefused() {
    let f = CLIFixture().initialise()
    let file = f.home.write(
      "journal.txt",
      "[2026-11-01 20:00] First @psilocybin session, private words.\nThe room felt enormous.\n\n"
        + "[2026-11-08 19:30] Integration walk.\nLighter shoulders.\n")
    let result = f.run("import", file)
    #expect(result.status == 2)
    #expect(
      result.stderr == """
        journal: error: nothing was imported: this is a jrnl journal file, not its export
        journal: hint: export it with "jrnl --export json > journal.json" and import that file

        """)
    #expect(f.sessions().isEmpty)
  }

  /// A malformed file is refused whole, with its place, and the vault does not change.
  @Test func malformedImport() throws {
    let f = CLIFixture().initialise()
    _ = f.new()
    let before = f.run("list", "--json").stdout
    let truncated = f.home.write(
      "bad.json", "{\"format\": \"journal-export\", \"version\": 1, \"sessions\": [")
    let result = f.run("import", truncated)
    #expect(result.status == 2)
    #expect(
      result.stderr == """
        journal: error: nothing was imported: the end of the file is not valid JSON
        journal: hint: fix the file and import it again; the vault is unchanged

        """)
    let newer = f.home.write(
      "newer.json", "{\"format\": \"journal-export\", \"version\": 9, \"sessions\": []}")
    #expect(f.run("import", newer).status == 10)
    // A directory opens but cannot be read: named like a file that does not open.
    let directory = f.run("import", f.home.path)
    #expect(directory.status == 2)
    #expect(
      directory.stderr.hasPrefix(
        #"journal: error: nothing was imported: "\#(f.home.path)" cannot be read"#))
    #expect(f.run("list", "--json").stdout == before)
  }

  /// What a file says never reaches the terminal as it is: a key of its own repeated (with
  /// a window title, a screen clear and a line break in it) is skipped, as any key journal
  /// does not read is, and a key it reads said twice is named; a file name is shown escaped.
  @Test func importNeverEchoesTheFile() throws {
    let f = CLIFixture().initialise()
    let planted = #""\u001b]0;PWNED\u0007\u001b[2J\nforged: line""#
    let skipped = f.home.write(
      "keys.json",
      #"{"format":"journal-export","version":2,\#(planted):1,\#(planted):2,"sessions":[]}"#)
    let result = f.run("import", skipped)
    #expect(result.status == 0, "\(result)")
    #expect(!result.stderr.contains("\u{1B}") && !result.stderr.contains("forged"))
    let twice = f.home.write(
      "twice.json", #"{"format":"journal-export","version":2,"version":2,"sessions":[]}"#)
    let refused = f.run("import", twice)
    #expect(refused.status == 2)
    #expect(refused.stderr.hasPrefix("journal: error: nothing was imported: version appears twice"))
    let missing = f.run("import", f.home.path + "/\u{1B}[2Jmissing.json")
    #expect(missing.status == 2)
    #expect(
      missing.stderr.hasPrefix(
        #"journal: error: nothing was imported: "\#(f.home.path)/\u{1B}[2Jmissing.json""#
          .replacingOccurrences(of: "\u{1B}", with: #"\u{1B}"#)), "\(missing.stderr)")
  }

  /// CSV and Markdown exports, filters, and refusing to overwrite a file.
  @Test func formatsAndFilters() throws {
    let f = CLIFixture().initialise()
    let early = f.new("--date", "2026-11-01 10:00", "--intention", "=cmd|' /C calc'!A0")
    let late = f.new("--treatment", "ketamine")
    let csv = f.run("export", "--format", "csv")
    #expect(csv.stdout.hasPrefix("id,date,treatment,treatment_name,dose,intention,mood_before,"))
    #expect(csv.stdout.contains(",'=cmd|' /C calc'!A0,"))
    let markdown = f.run("export", "--format", "markdown")
    #expect(markdown.stdout.hasPrefix("# Journal\n\nExported "))
    #expect(markdown.stdout.contains("## Fri 2026-11-20 18:00 · Ketamine"))
    let since = f.run("export", "--format", "csv", "--since", "2026-11-10")
    #expect(since.stdout.contains(late) && !since.stdout.contains(early))
    let until = f.run("export", "--format", "csv", "--until", "2026-11-01")
    #expect(until.stdout.contains(early) && !until.stdout.contains(late))
    let byTreatment = f.run("export", "--format", "csv", "--treatment", "ketamine")
    #expect(byTreatment.stdout.contains(late) && !byTreatment.stdout.contains(early))
    let target = f.home.write("exists.json", "keep me")
    let refused = f.run("export", "--output", target)
    #expect(refused.status == 7)
    #expect(try String(contentsOfFile: target, encoding: .utf8) == "keep me")
  }

  /// An export to a file killed before it is done (here at its last step: every byte
  /// written and on disk, the file not yet named) leaves nothing behind, in plaintext or
  /// otherwise; finished, the file is there, 0600.
  @Test func anExportKilledLeavesNothing() throws {
    let f = CLIFixture().initialise()
    _ = f.new("--intention", "words that must not stay on a disk")
    let directory = f.home.file("out")
    #expect(mkdir(directory, 0o700) == 0)
    let target = directory + "/export.json"
    let killed = f.run(
      "export", "--output", target, extra: ["JOURNAL_DEBUG_KILL_AT": "output-before-name"])
    #expect(killed.status == 128 + SIGKILL, "\(killed)")
    #expect(try FileManager.default.contentsOfDirectory(atPath: directory).isEmpty)
    #expect(f.run("export", "--output", target).status == 0)
    var info = stat()
    #expect(lstat(target, &info) == 0 && info.st_mode & 0o777 == 0o600)
    #expect(try String(contentsOfFile: target, encoding: .utf8).contains("must not stay"))
  }

  /// A backup taken while other processes write opens with the same passphrase and verifies.
  @Test func backupUnderConcurrentWrites() throws {
    let f = CLIFixture().initialise()
    for _ in 0..<3 { _ = f.new() }
    let writers = (0..<6).map { _ in
      f.cli.interactive([
        "new", "--no-input", "--intention", "written during the backup", "--mood-before", "5",
      ])
    }
    let backups = f.home.file("backups")
    mkdir(backups, 0o700)
    // Several backups while the writers derive their keys and save.
    let copies = (0..<4).map { backups + "/copy-\($0).db" }
    let results = copies.map { f.run("backup", $0) }
    for writer in writers { _ = writer.wait() }
    for (copy, result) in zip(copies, results) {
      #expect(result.status == 0, "\(result)")
      let verified = f.run("verify", "--vault", copy)
      #expect(verified.status == 0, "\(verified)")
      let listed = f.run("list", "--json", "--vault", copy).stdout
      let count = listed.components(separatedBy: "\"short_id\"").count - 1
      #expect((3...9).contains(count))
    }
    let copy = copies[0]
    #expect(f.run("backup", copy).status == 7)
  }

  /// A backup never writes through a file or link planted beside its destination.
  @Test func backupIgnoresPlantedFiles() throws {
    let f = CLIFixture().initialise()
    _ = f.new()
    let shared = f.home.file("shared")
    mkdir(shared, 0o777)
    let trap = f.home.file("trap")
    symlink(trap, shared + "/copy.db-wal")
    symlink(trap + "-shm", shared + "/copy.db-shm")
    let result = f.run("backup", shared + "/copy.db")
    #expect(result.status == 0, "\(result)")
    #expect(!FileManager.default.fileExists(atPath: trap))
    #expect(!FileManager.default.fileExists(atPath: trap + "-shm"))
    var info = stat()
    #expect(lstat(shared + "/copy.db", &info) == 0 && info.st_mode & 0o777 == 0o600)
    #expect(
      (try FileManager.default.contentsOfDirectory(atPath: shared)).filter {
        $0.hasPrefix(".journal-backup")
      }.isEmpty)
  }

  /// SQLite copies a damaged page as it is: a backup of a vault whose file is damaged is
  /// kept (it may be all there is) and said to hold the damage (exit 5), never "wrote".
  @Test func backupOfADamagedFileSaysSo() throws {
    let f = CLIFixture().initialise()
    _ = f.new()
    let queue = try DatabaseQueue(path: f.vaultPath)
    let (root, size) = try queue.read { db in
      (
        try Int.fetchOne(db, sql: "SELECT rootpage FROM sqlite_master WHERE name = 'session'"),
        try Int.fetchOne(db, sql: "PRAGMA page_size")
      )
    }
    try queue.close()
    let page = try #require(root), pageSize = try #require(size)
    // The session table's page says it holds 65,535 cells: it holds one.
    let handle = try FileHandle(forUpdating: URL(fileURLWithPath: f.vaultPath))
    try handle.seek(toOffset: UInt64((page - 1) * pageSize + 3))
    try handle.write(contentsOf: Data([0xff, 0xff]))
    try handle.close()
    let copy = f.home.file("copy.db")
    let result = f.run("backup", copy)
    #expect(result.status == 5, "\(result)")
    #expect(
      result.stderr.hasPrefix(
        #"journal: error: the copy "\#(copy)" was written, but it is damaged (SQLite: "#
      ), "\(result.stderr)")
    #expect(!result.stderr.contains("wrote"))
    var info = stat()
    #expect(lstat(copy, &info) == 0 && info.st_mode & 0o777 == 0o600 && info.st_size > 0)
    #expect(f.run("verify", "--vault", copy).status == 5)
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: f.home.path).filter {
        $0.hasPrefix(".journal-backup")
      }.isEmpty)
  }

  /// verify names each damaged session and exits 5; all intact, it exits 0.
  @Test func verify() throws {
    let f = CLIFixture().initialise()
    let good = f.new()
    let bad = f.new()
    #expect(f.run("verify").stderr == "journal: all 2 sessions are intact\n")
    try f.tamper("UPDATE session SET body = zeroblob(length(body)) WHERE id LIKE ?", [bad + "%"])
    let result = f.run("verify")
    #expect(result.status == 5)
    #expect(
      result.stderr.contains("journal: error: session \"\(bad)\" is damaged and cannot be read\n"))
    #expect(!result.stderr.contains(good))
  }
}
