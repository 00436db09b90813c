import Foundation
import GRDB
import Glibc
import JournalCore
import JournalCrypto
import JournalTestSupport
import Testing

/// Values planted in the vault file by someone who can write it but holds no key (plain
/// `sqlite3`): extremes in every clear column of every table, and extremes inside sealed
/// additions, which anyone can make. Whatever is planted, every command, keyed or keyless,
/// ends with a documented exit code and no signal: a planted value is damage of its row,
/// never a crash that locks a person out of their journal.
@Suite(.serialized) struct PlantedValueTests {
  /// Extremes written into a clear column: numbers at and past the ends of their ranges,
  /// NULL, blobs of the wrong length (one the bit pattern of a NaN), text where a number goes.
  static let values: [(name: String, value: DatabaseValue)] = [
    ("0", 0.databaseValue), ("-1", (-1).databaseValue), ("INT64_MIN", Int64.min.databaseValue),
    ("INT64_MAX", Int64.max.databaseValue), ("INT64_MAX-1000", (Int64.max - 1000).databaseValue),
    ("NULL", .null), ("NaN blob", Data([0x7F, 0xF8, 0, 0, 0, 0, 0, 0]).databaseValue),
    ("empty blob", Data().databaseValue),
    ("long blob", Data(repeating: 0xFF, count: 300).databaseValue),
    ("text", "9e99".databaseValue), ("1e308", 1e308.databaseValue),
  ]

  /// The values every test run plants; Scripts/torture plants them all.
  static var lightValues: [(name: String, value: DatabaseValue)] {
    values.filter { ["INT64_MAX", "-1", "NaN blob", "INT64_MIN"].contains($0.name) }
  }

  /// A journal holding one of everything a clear column can belong to, made once: sessions
  /// waiting, reflected and closed, a reminder, a deletion in its undo window, a purged
  /// deletion (a tombstone), a deletion undone (its mark in the trash), a new session and
  /// later fields added without the passphrase, waiting. Each case plants a value in a copy.
  final class Template: @unchecked Sendable {
    let fixture = ReliabilityFixture(extra: ["JOURNAL_UNDO_WINDOW": "10s"])
    var waiting = ""
    var reflected = ""
    var trashed = ""

    /// When each run happens: the day the template was made, an hour on.
    static let later = "2026-11-20T11:00:00Z"

    init() {
      let f = fixture
      f.initialise()
      func at(_ time: String, _ arguments: String..., keyless: Bool = false) -> CLI.Result {
        var extra = ["JOURNAL_DEBUG_NOW": time]
        if keyless { extra["JOURNAL_PASSPHRASE_FILE"] = "" }
        return f.cli.run(arguments, extra: extra)
      }
      let t0 = "2026-11-20T10:00:00Z"
      waiting = f.new(intention: "to be met kindly", "--remind", "3h") ?? ""
      reflected = f.new(intention: "to listen", "--reflection", "it went well") ?? ""
      let closed = f.new(intention: "to rest") ?? ""
      _ = at(t0, "close", closed)
      let purged = f.new(intention: "to let go") ?? ""
      _ = at(t0, "delete", purged, "--yes")
      let undone = f.new(intention: "to come back") ?? ""
      _ = at("2026-11-20T10:59:00Z", "delete", undone, "--yes")
      _ = at("2026-11-20T10:59:01Z", "undo")
      trashed = f.new(intention: "to wait in the trash") ?? ""
      // A long window, so that every later run still finds it in the trash.
      _ = f.cli.run(
        ["delete", trashed, "--yes"],
        extra: ["JOURNAL_DEBUG_NOW": "2026-11-20T10:59:30Z", "JOURNAL_UNDO_WINDOW": "1d"])
      // Purges the first deletion (keyless), leaving its mark for the next keyed write.
      _ = at(Self.later, "status", keyless: true)
      // Written without the passphrase: a new session, and later fields of the waiting one.
      let sealedNew = f.cli.run(
        ["new", "--intention", "written while locked", "--mood-before", "4"],
        extra: ["JOURNAL_DEBUG_NOW": Self.later, "JOURNAL_PASSPHRASE_FILE": ""])
      let sealedLater = at(Self.later, "reflect", waiting, "--music", "rain", keyless: true)
      precondition(
        [waiting, reflected, closed, purged, undone, trashed].allSatisfy { !$0.isEmpty }
          && sealedNew.status == 0 && sealedLater.status == 0,
        "the template journal could not be made: \(sealedNew) \(sealedLater)")
    }

    /// Every (table, column) of the vault file, as SQLite lists them.
    func columns() throws -> [(table: String, column: String)] {
      let queue = try DatabaseQueue(path: fixture.vaultPath)
      defer { try? queue.close() }
      return try queue.read { db in
        let tables = try String.fetchAll(
          db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        return try tables.flatMap { table in
          try Row.fetchAll(db, sql: "PRAGMA table_info(\(table))").map { row in
            (table, row["name"] as String)
          }
        }
      }
    }

    /// A fresh copy of the template's whole machine (HOME, runtime and temporary directories).
    func copy() -> ReliabilityFixture {
      let copy = ReliabilityFixture(extra: ["JOURNAL_UNDO_WINDOW": "10s"])
      for directory in ["home", "run", "tmp"] {
        let source = fixture.root.file(directory)
        let target = copy.root.file(directory)
        rmdir(target)
        let cp = Process()
        cp.executableURL = URL(fileURLWithPath: "/bin/cp")
        cp.arguments = ["-a", source, target]
        try? cp.run()
        cp.waitUntilExit()
      }
      return copy
    }
  }

  /// The commands each planted value is tried with: with the key (a passphrase file) and
  /// without (sealed capture, reminders, status, undo).
  static func commands(_ t: Template) -> [(arguments: [String], keyless: Bool)] {
    let keyed: [[String]] = [
      ["list"], ["list", "--json"], ["show", t.waiting], ["show", t.waiting, "--json"],
      ["export", "--format", "json"], ["export", "--format", "markdown"], ["verify"],
      ["verify", "--accept", "--yes"], ["search", "kindly"], ["trends"], ["capture", "off"],
      ["delete", t.reflected, "--yes"], ["remind", t.waiting, "--in", "3h"],
      ["reflect", t.waiting, "--environment", "home"], ["undo"],
    ]
    let keyless: [[String]] = [
      ["status"], ["reminders", "list"], ["reminders", "run"], ["undo"], ["capture"],
      ["new", "--intention", "planted", "--mood-before", "5"],
      ["reflect", t.waiting, "--reflection", "planted"], ["unlock", "--status"], ["drafts"],
    ]
    return keyed.map { ($0, false) } + keyless.map { ($0, true) }
  }

  static let template = Template()

  /// One command on a copy with one value planted: a documented exit code, no signal, no
  /// runtime trap, and (when it fails) one line saying why.
  static func check(_ f: ReliabilityFixture, _ arguments: [String], keyless: Bool, _ what: String)
    -> Bool
  {
    var extra = ["JOURNAL_DEBUG_NOW": Template.later, "JOURNAL_NOTIFY_COMMAND": "/bin/true"]
    if keyless { extra["JOURNAL_PASSPHRASE_FILE"] = "" }
    let result = f.cli.run(arguments, extra: extra)
    let documented = Set(ExitCodes.documented).subtracting([1])
    let ok =
      documented.contains(result.status) && !result.stderr.contains("Fatal error")
      && !result.stderr.contains("crashed") && !result.stderr.contains("internal error")
    #expect(ok, "\(what): journal \(arguments.joined(separator: " ")): \(result)")
    return ok
  }

  /// Every clear column of every table, each extreme value: no command crashes.
  @Test func everyClearColumn() throws {
    let t = Self.template
    let all = Torture.environment["JOURNAL_TORTURE_PLANTED"] != nil
    let values = all ? Self.values : Self.lightValues
    let commands = Self.commands(t)
    var generator = TortureRandom(31)
    var planted = 0
    var runs = 0
    var crashes = 0
    for (table, column) in try t.columns() {
      for (name, value) in values {
        let f = t.copy()
        do {
          try f.tamper("UPDATE \(table) SET \(column) = ?", [value])
        } catch {
          // A value the column's own type refuses even with CHECKs off (an INTEGER PRIMARY
          // KEY given a blob): nothing was planted.
          continue
        }
        planted += 1
        // Light runs try a sample of the commands for each value; torture runs try them all.
        let chosen =
          all
          ? Array(commands.indices)
          : generator.positions(commands.count, count: 4)
        for index in chosen {
          let (arguments, keyless) = commands[index]
          runs += 1
          if !Self.check(f, arguments, keyless: keyless, "\(table).\(column) = \(name)") {
            crashes += 1
          }
        }
      }
    }
    #expect(planted > 100)
    Torture.report("planted clear values", ["planted": planted, "runs": runs, "crashes": crashes])
  }

  /// A field of a plaintext as an attacker would write it: any tag, any bytes.
  typealias Field = (tag: FieldCodec.Tag, bytes: [UInt8])

  static func time(_ millis: Int64) -> [UInt8] {
    withUnsafeBytes(of: millis.littleEndian) { Array($0) }
  }

  /// A plaintext of these fields, in the order given (the layout wants ascending tags).
  static func plaintext(_ fields: [Field]) -> [UInt8] {
    var out: [UInt8] = [1]
    for field in fields { FieldCodec.put(field.tag, bytes: field.bytes, into: &out) }
    return out
  }

  /// A whole new session's fields with one replaced (or, with nil bytes, left out).
  static func newSession(replacing tag: FieldCodec.Tag? = nil, with bytes: [UInt8]? = nil)
    -> [Field]
  {
    let now = time(1_795_600_000_000)
    var fields: [Field] = [
      (.date, now), (.treatment, Array("psilocybin".utf8)), (.moodBefore, [5]),
      (.status, Array("needs_reflection".utf8)), (.created, now), (.updated, now),
      (.intention, Array("planted".utf8)),
    ]
    if let tag {
      fields.removeAll { $0.tag == tag }
      if let bytes {
        fields.append((tag, bytes))
        fields.sort { $0.tag.rawValue < $1.tag.rawValue }
      }
    }
    return fields
  }

  /// What an attacker can seal: every time of a new session and of later fields at its
  /// extremes and of the wrong length, moods out of range, statuses that contradict the
  /// fields, treatments that do not fit, invalid UTF-8.
  static var sealedCases: [(name: String, kind: String, fields: [Field])] {
    var cases: [(String, String, [Field])] = []
    let extremes: [(String, [UInt8])] = [
      ("INT64_MIN", time(.min)), ("INT64_MAX", time(.max)), ("-1", time(-1)), ("0", time(0)),
      ("year 10000", time(253_402_300_800_000)), ("7 bytes", [1, 2, 3, 4, 5, 6, 7]),
      ("9 bytes", [UInt8](repeating: 0xFF, count: 9)), ("empty", []),
    ]
    for tag in [FieldCodec.Tag.date, .created, .updated] {
      for (name, bytes) in extremes {
        cases.append(("new \(tag) \(name)", "new", newSession(replacing: tag, with: bytes)))
      }
      cases.append(("new \(tag) missing", "new", newSession(replacing: tag)))
    }
    for mood: [UInt8] in [[0], [11], [255], [5, 5], []] {
      cases.append(("new mood \(mood)", "new", newSession(replacing: .moodBefore, with: mood)))
    }
    for status in ["complete", "closed", "draft", "", "needs_reflection\u{0}"] {
      cases.append(
        ("new status \(status)", "new", newSession(replacing: .status, with: Array(status.utf8))))
    }
    for treatment in ["other", "aspirin", ""] {
      cases.append(
        (
          "new treatment \(treatment)", "new",
          newSession(replacing: .treatment, with: Array(treatment.utf8))
        ))
    }
    cases.append(
      ("new intention not UTF-8", "new", newSession(replacing: .intention, with: [0xC3, 0x28])))
    cases.append(("new no intention", "new", newSession(replacing: .intention)))
    cases.append(("new marks itself", "new", newSession() + [(.addedSealed, time(0))]))
    for (name, bytes) in extremes {
      cases.append(
        ("later written \(name)", "later", [(.updated, bytes), (.music, Array("x".utf8))]))
    }
    for mood: [UInt8] in [[0], [11], [255], [5, 5]] {
      cases.append(
        ("later mood \(mood)", "later", [(.moodAfter, mood), (.updated, time(1_795_600_000_000))]))
    }
    cases.append(("later nothing", "later", [(.updated, time(1_795_600_000_000))]))
    cases.append(("later date", "later", [(.date, time(0)), (.updated, time(1_795_600_000_000))]))
    return cases
  }

  /// Every value inside a sealed addition at its extremes, sealed to the vault's real key as
  /// anyone can: each is named as damage (or opened, when it is a value journal accepts), the
  /// other sessions still read, and nothing crashes.
  @Test func everySealedValue() throws {
    let t = Self.template
    var runs = 0
    var crashes = 0
    for (name, kind, fields) in Self.sealedCases {
      let f = t.copy()
      let key = try Self.sealingKey(f)
      let box = try SealedBox.seal(Self.plaintext(fields), to: Array(key))
      let id = kind == "new" ? String(repeating: "ab", count: 16) : t.waiting
      let full = kind == "new" ? id : try Self.fullID(f, t.waiting)
      try f.tamper(
        "INSERT INTO addition (id, kind, status, added_at, box) VALUES (?, ?, NULL, 1795600000000, ?)",
        [full, kind, Data(box)])
      for arguments in [["list"], ["show", t.reflected], ["verify"], ["export"], ["status"]] {
        runs += 1
        if !Self.check(f, arguments, keyless: arguments == ["status"], "sealed \(name)") {
          crashes += 1
        }
      }
      // The addition was opened or removed by the first keyed command: none waits.
      #expect(try Self.waitingAdditions(f) == 0, "sealed \(name)")
      #expect(f.run("show", t.reflected).status == 0, "sealed \(name): the others still read")
    }
    Torture.report(
      "planted sealed values", ["cases": Self.sealedCases.count, "runs": runs, "crashes": crashes])
  }

  static func fullID(_ f: ReliabilityFixture, _ prefix: String) throws -> String {
    let queue = try DatabaseQueue(path: f.vaultPath)
    defer { try? queue.close() }
    return try queue.read { db in
      try String.fetchOne(
        db, sql: "SELECT id FROM session WHERE id LIKE ?", arguments: [prefix + "%"]) ?? prefix
    }
  }

  static func sealingKey(_ f: ReliabilityFixture) throws -> Data {
    let queue = try DatabaseQueue(path: f.vaultPath)
    defer { try? queue.close() }
    return try queue.read { db in
      try Data.fetchOne(db, sql: "SELECT sealing_key FROM vault") ?? Data()
    }
  }

  static func waitingAdditions(_ f: ReliabilityFixture) throws -> Int {
    let queue = try DatabaseQueue(path: f.vaultPath)
    defer { try? queue.close() }
    return try queue.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM addition") ?? 0 }
  }
}

/// The exit codes the man page documents.
enum ExitCodes {
  static let documented: [Int32] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 130]
}
