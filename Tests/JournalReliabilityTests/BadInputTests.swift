import Foundation
import Glibc
import JournalStore
import JournalTestSupport
import Testing

/// Bad input at the command line, for every command: each is one `journal: error:` line
/// (and at most a hint), a documented exit code, no crash, and nothing changed.
@Suite(.serialized) struct BadInputTests {
  /// (arguments, stdin, the documented exit code). `ID` is a saved session's id, `AMB` a
  /// prefix two sessions share.
  static let cases: [([String], String, Int32)] = [
    (["frobnicate"], "", 2),
    (["new", "--mood-before", "five", "--intention", "x"], "", 2),
    (["new", "--mood-before", "0", "--intention", "x"], "", 2),
    (["new", "--mood-before", "11", "--intention", "x"], "", 2),
    (["new", "--mood-before", "99999999999999999999999", "--intention", "x"], "", 2),
    (["new", "--mood-before", "-3", "--intention", "x"], "", 2),
    (["new", "--mood-before", "5", "--intention", ""], "", 2),
    (["new", "--mood-before", "5", "--intention", "-"], "", 2),
    (["new", "--mood-before", "5", "--intention", "x", "--date", ""], "", 2),
    (["new", "--mood-before", "5", "--intention", "x", "--date", "2026-13-45"], "", 2),
    (["new", "--mood-before", "5", "--intention", "x", "--date", "9999-01-01"], "", 2),
    (["new", "--mood-before", "5", "--intention", "x", "--date", "1800-01-01"], "", 2),
    (["new", "--mood-before", "5", "--intention", "x", "--treatment", ""], "", 2),
    (["new", "--mood-before", "5", "--intention", "x", "--treatment", "other:"], "", 2),
    (["new", "--mood-before", "5", "--intention", "x", "--treatment", "aspirin"], "", 2),
    (
      [
        "new", "--mood-before", "5", "--intention", "x", "--treatment",
        "other:" + String(repeating: "n", count: 5000),
      ],
      "", 2
    ),
    (
      ["new", "--mood-before", "5", "--intention", "-"], String(repeating: "x", count: 2_000_000), 2
    ),
    (["new", "--mood-before", "5", "--intention", "a\u{1B}[31mb"], "", 2),
    (["new", "--mood-before", "5", "--intention", "x", "--remind", "soon"], "", 2),
    (["new", "--mood-before", "5", "--intention", "x", "--remind", "99999999999d"], "", 2),
    (["new", "--intention", "x"], "", 2),
    (["reflect", "ID", "--mood-after", "ten"], "", 2),
    (["reflect", "ID", "--mood-after", "12"], "", 2),
    (["reflect", "NONE8", "--mood-after", "5"], "", 6),
    (["reflect", "AMB", "--mood-after", "5"], "", 6),
    (["reflect", "not-hex!", "--mood-after", "5"], "", 6),
    (["reflect", "", "--mood-after", "5"], "", 6),
    (["show", "NONE"], "", 6),
    (["show", "AMB"], "", 6),
    (["show", String(repeating: "a", count: 100_000)], "", 6),
    (["show"], "", 2),
    (["edit", "ID"], "", 2),
    (["edit", "ID", "--mood-before", "0"], "", 2),
    (["edit", "ID", "--date", "tomorrow next week"], "", 2),
    (["edit", "ID", "--intention", ""], "", 2),
    (["edit", "NONE", "--dose", "1 g"], "", 6),
    (["delete", "NONE", "--yes"], "", 6),
    (["delete", "ID"], "", 2),
    (["undo"], "", 6),
    (["remind", "ID", "--in", "-5m"], "", 2),
    (["remind", "ID", "--at", "yesterday at noon"], "", 2),
    (["remind", "NONE", "--in", "1h"], "", 6),
    (["drafts", "discard", "NONE"], "", 6),
    (["export", "--format", "pdf"], "", 2),
    (["export", "--since", "the beginning"], "", 2),
    (["export", "--status", "finished"], "", 2),
    (["export", "--output", "EXISTING"], "", 7),
    (["import", "MISSING"], "", 2),
    (["import", "GARBAGE"], "", 2),
    (["import", "NEWER"], "", 10),
    (["backup", "EXISTING"], "", 7),
    (["unlock", "--for", "forever"], "", 2),
    (["unlock", "--for", "0s"], "", 2),
    (["init"], "", 7),
    (["init", "--kdf", "weak"], "", 2),
    (["passwd", "--kdf", "interactive"], "", 9),
    (["passwd", "--kdf", "interactive", "--new-passphrase-file", "SHORT"], "", 2),
    (["list", "--passphrase-file", "MISSING"], "", 9),
    (["list", "--passphrase-fd", "-1"], "", 2),
    (["list", "--passphrase-fd", "999999999999"], "", 2),
    (["list", "--passphrase-file", "WRONG"], "", 4),
    (["list", "--vault", "MISSING"], "", 3),
    (["list", "--vault", ""], "", 2),
    (["list", "--vault", "DIRECTORY"], "", 8),
    (["list", "--vault", "GARBAGE"], "", 5),
  ]

  @Test func everyCommand() throws {
    let f = ReliabilityFixture(extra: ["JOURNAL_UNDO_WINDOW": "0s"]).initialise()
    // Two sessions sharing a first hex digit make an ambiguous prefix.
    var all: [String] = []
    var ids: [String] = []
    while ids.isEmpty {
      guard let id = f.new(intention: "to stay the same") else { break }
      if let twin = all.first(where: { $0.first == id.first }) { ids = [twin, id] }
      all.append(id)
    }
    try #require(ids.count == 2)
    let before = try Data(contentsOf: URL(fileURLWithPath: f.vaultPath))
    let existing = f.root.write("existing", "already here")
    let garbage = f.root.write("garbage.json", "{ not json at all")
    let newer = f.root.write(
      "newer.json", #"{"format": "journal-export", "version": 99, "sessions": []}"#)
    let short = f.root.write("short", "short\n")
    let wrong = f.root.write("wrong", "not the passphrase at all\n")
    let directory = f.root.file("a-directory")
    mkdir(directory, 0o700)
    // A prefix no session has: random ids start with "ffff" one time in 65,536.
    let none =
      ["ffff", "0000", "aaaa", "5555"].first { prefix in !all.contains { $0.hasPrefix(prefix) } }
      ?? "ffff"
    let names = [
      "NONE": none, "NONE8": String(repeating: none, count: 2),
      "ID": ids[0], "AMB": String(ids[0].prefix(1)), "EXISTING": existing, "GARBAGE": garbage,
      "NEWER": newer, "SHORT": short, "WRONG": wrong, "MISSING": f.root.file("missing"),
      "DIRECTORY": directory,
    ]
    var clean = 0
    for (arguments, stdin, code) in Self.cases {
      let concrete = arguments.map { names[$0] ?? $0 }
      let result = f.cli.run(concrete, stdin: stdin)
      let ok = isCleanFailure(result, [code]) && result.stdout.isEmpty
      #expect(ok, "\(arguments.joined(separator: " ").prefix(120)) → expected \(code)\n\(result)")
      if ok { clean += 1 }
    }
    // Invalid UTF-8 as an argument (through the shell: Swift strings cannot hold it).
    var invalid = 0
    for command in ["show", "reflect", "remind", "delete"] {
      let process = Spawned(
        arguments: [
          "/bin/sh", "-c", "exec \"$0\" \(command) \"$(printf '\\377\\376')\" --yes", CLI.binary,
        ],
        environment: f.cli.environment, terminal: false)
      process.closeInput()
      let result = process.wait()
      let ok = isCleanFailure(result, [2, 6])
      #expect(ok, "\(command) with invalid UTF-8: \(result)")
      if ok { invalid += 1 }
    }
    let invalidStdin = f.run("new", "--mood-before", "5", "--intention", "-", stdin: "")
    #expect(isCleanFailure(invalidStdin, [2]))
    // Nothing was changed by any of them.
    #expect(
      try Data(contentsOf: URL(fileURLWithPath: f.vaultPath)) == before
        || f.run("verify").status == 0)
    #expect(Set(f.ids()) == Set(all))
    // A vault of a newer format.
    try f.tamper("UPDATE vault SET format_version = 99")
    let newerVault = f.run("list")
    #expect(isCleanFailure(newerVault, [10]), "\(newerVault)")
    #expect(
      newerVault.stderr.contains("99") && newerVault.stderr.contains("\(Vault.formatVersion)"))
    let total = Self.cases.count + 4 + 1
    let cleanTotal = clean + invalid + (isCleanFailure(newerVault, [10]) ? 1 : 0)
    Torture.report("bad input", ["cases": total, "clean one-line errors": cleanTotal])
  }
}
