import Foundation
import JournalTestSupport
import Testing

/// The core loop as a person runs it, one real process per command, checking exact stdout,
/// stderr and exit code.
@Suite(.serialized) struct CoreLoopTests {
  /// Before init, every command says how to begin.
  @Test(arguments: [
    ["list"], ["new", "--intention", "x", "--mood-before", "5"], ["show", "ab"],
    ["reflect", "ab", "--mood-after", "5"], ["edit", "ab", "--dose", "1 g"], ["passwd"],
  ])
  func beforeInit(_ arguments: [String]) {
    let f = CLIFixture()
    let result = f.cli.run(arguments)
    #expect(result.status == 3)
    #expect(result.stdout == "")
    #expect(
      result.stderr == """
        journal: error: no journal at "\(f.vaultPath)"
        journal: hint: run "journal init" to create one, or point --vault at yours

        """)
  }

  /// init creates a private vault; a second init refuses and changes nothing.
  @Test func initialise() throws {
    let f = CLIFixture()
    let first = f.run("init", "--kdf", "interactive")
    #expect(first.status == 0)
    #expect(first.stdout == "")
    #expect(
      first.stderr == """
        journal: created your journal at "\(f.vaultPath)"
        journal: keep your passphrase safe: without it, nothing here can be read

        """)
    let before = try Data(contentsOf: URL(fileURLWithPath: f.vaultPath))
    let second = f.run("init", "--kdf", "interactive")
    #expect(second.status == 7)
    #expect(
      second.stderr == """
        journal: error: a journal already exists at "\(f.vaultPath)"
        journal: hint: nothing was changed; use --vault to create another elsewhere

        """)
    #expect(try Data(contentsOf: URL(fileURLWithPath: f.vaultPath)) == before)
  }

  /// Without a terminal or a passphrase source, init says where a passphrase can come from;
  /// a short one is refused.
  @Test func initPassphraseProblems() {
    let f = CLIFixture()
    let none = f.run("init", extra: ["JOURNAL_PASSPHRASE_FILE": ""])
    #expect(none.status == 9)
    #expect(
      none.stderr == """
        journal: error: a passphrase is needed and there is no terminal to ask for it
        journal: hint: set JOURNAL_PASSPHRASE_FILE or JOURNAL_PASSPHRASE_COMMAND, or use --passphrase-file

        """)
    let short = f.home.write("short", "tiny\n")
    let tooShort = f.run("init", "--passphrase-file", short)
    #expect(tooShort.status == 2)
    #expect(
      tooShort.stderr.hasPrefix(
        "journal: error: the passphrase chosen is shorter than 8 characters\n")
    )
    #expect(!FileManager.default.fileExists(atPath: f.vaultPath))
  }

  /// new with flags prints the short id; list shows it newest first with its badge.
  @Test func newAndList() {
    let f = CLIFixture().initialise()
    let older = f.new("--treatment", "mdma", "--dose", "120 mg", "--date", "2026-11-19 10:00")
    let newer = f.new("--mood-before", "7")
    #expect(older.count == 8 && newer.count == 8)
    let list = f.run("list")
    #expect(list.status == 0)
    #expect(list.stderr == "")
    #expect(
      list.stdout == """
        \(newer)  Fri 2026-11-20 18:00  mood  7       Psilocybin  needs reflection
        \(older)  Thu 2026-11-19 10:00  mood  5       MDMA        needs reflection

        """)
  }

  /// Missing required fields without a terminal: each missing flag named, nothing saved.
  @Test func newMissingFields() {
    let f = CLIFixture().initialise()
    let result = f.run("new", "--dose", "2 g")
    #expect(result.status == 2)
    #expect(result.stdout == "")
    #expect(
      result.stderr == """
        journal: error: missing --intention, --mood-before
        journal: hint: without a terminal, every required field needs its flag

        """)
    #expect(f.sessions().isEmpty)
  }

  /// Each bad value has its own message and exit code 2, and nothing is saved.
  @Test(
    arguments: [
      (
        ["--mood-before", "0"],
        "journal: error: mood before 0 is outside 1 to 10\njournal: hint: 1 is the lowest, 10 the highest\n"
      ),
      (
        ["--mood-before", "11"],
        "journal: error: mood before 11 is outside 1 to 10\njournal: hint: 1 is the lowest, 10 the highest\n"
      ),
      (
        ["--mood-before", "calm"],
        "journal: error: mood before is a whole number from 1 to 10\n"
      ),
      (
        ["--date", "2099-01-01"],
        "journal: error: the date is more than 60 days ahead\njournal: hint: a session can be planned at most 60 days from now\n"
      ),
      (
        ["--date", "next week"],
        "journal: error: the date could not be read\njournal: hint: use \"now\", \"yesterday 20:00\", \"18:30\" or \"2026-11-21 18:30\"\n"
      ),
      (
        ["--intention", "  "],
        "journal: error: the intention is empty\njournal: hint: a few words are enough\n"
      ),
      (
        ["--treatment", "mushrooms"],
        "journal: error: unknown treatment\njournal: hint: choose one of psilocybin, mdma, ketamine, lsd, ayahuasca, mescaline, dmt, ibogaine, cannabis, or \"other:<name>\"\n"
      ),
    ] as [([String], String)])
  func badValues(_ flags: [String], stderr: String) {
    let f = CLIFixture().initialise()
    var arguments = ["new", "--intention", "to rest", "--mood-before", "5"]
    arguments += flags
    let result = f.cli.run(arguments)
    #expect(result.status == 2)
    #expect(result.stdout == "")
    #expect(result.stderr == stderr)
    #expect(f.sessions().isEmpty)
  }

  /// reflect by prefix saves the later fields; the reflection completes the session.
  @Test func reflectCompletes() {
    let f = CLIFixture().initialise()
    let id = f.new()
    let partial = f.run(
      "reflect", String(id.prefix(3)), "--mood-after", "8", "--environment", "the garden")
    #expect(partial.status == 0)
    #expect(partial.stdout == "")
    #expect(f.sessions().first?["status"] as? String == "needs_reflection")
    let done = f.run("reflect", id, "--reflection", "soft and clear", "--music", "rain")
    #expect(done.status == 0)
    #expect(done.stderr == "journal: session \(id) is complete\n")
    let shown = f.show(id)
    #expect(shown["status"] as? String == "complete")
    #expect(shown["mood_after"] as? Int == 8)
    #expect(shown["environment"] as? String == "the garden")
    #expect(shown["music"] as? String == "rain")
    #expect(f.run("list", "--needs-reflection").stdout == "")
    let again = f.run("reflect", id, "--mood-after", "3")
    #expect(again.status == 7)
    #expect(
      again.stderr == """
        journal: error: session "\(id)" is already complete
        journal: hint: run "journal show \(id)" to read it, or "journal edit \(id)" to change it

        """)
  }

  /// show prints every field grouped Before / Setting / Reflection.
  @Test func showText() {
    let f = CLIFixture().initialise()
    let id = f.new("--treatment", "other:San Pedro", "--dose", "a small cup")
    f.run("reflect", id, "--mood-after", "9", "--reflection", "first line\nsecond line")
    let result = f.run("show", id, extra: ["TERM": "xterm-256color"])
    #expect(result.status == 0)
    let expected = """
      Session \(id)  complete
      Fri 2026-11-20 18:00 · San Pedro · a small cup

      Before
        Mood before   5 😐 neutral
        Intention
          to listen inward

      Setting
        Environment   —
        Music         —

      Reflection
        Mood after    9 😁 very good
        Reflection
          first line
          second line

      """
    #expect(result.stdout.hasPrefix(expected))
    #expect(result.stdout.contains("Created "))
  }

  /// list --json and show --json follow the documented schema.
  @Test func jsonSchema() throws {
    let f = CLIFixture().initialise()
    let id = f.new("--treatment", "ketamine")
    let list =
      try JSONSerialization.jsonObject(with: Data(f.run("list", "--json").stdout.utf8))
      as? [String: Any]
    #expect(list?["schema_version"] as? Int == 1)
    #expect((list?["damaged"] as? [Any])?.isEmpty == true)
    let item = f.sessions().first ?? [:]
    #expect(
      Set(item.keys) == [
        "id", "short_id", "date", "treatment", "treatment_name", "mood_before",
        "mood_after", "status", "created", "updated",
      ])
    #expect(item["short_id"] as? String == id)
    #expect(item["date"] as? String == "2026-11-20T18:00:00.000Z")
    #expect(item["treatment"] as? String == "ketamine")
    let full = f.show(id)
    #expect(
      Set(full.keys)
        == Set(item.keys).union(["dose", "intention", "environment", "music", "reflection"]))
    #expect(full["intention"] as? String == "to listen inward")
    #expect(full["dose"] is NSNull)
  }

  /// Unknown and ambiguous prefixes are their own errors (17 sessions: two must share a
  /// first digit).
  @Test func prefixes() throws {
    let f = CLIFixture().initialise()
    for _ in 0..<17 { _ = f.new() }
    let unknown = f.run("show", "zz")
    #expect(unknown.status == 6)
    #expect(
      unknown.stderr == """
        journal: error: no session has an id starting with "zz"
        journal: hint: run "journal list" to see the ids

        """)
    let firsts = f.sessions().compactMap { ($0["short_id"] as? String)?.prefix(1) }
    let shared = try #require(
      Dictionary(grouping: firsts, by: { $0 }).first { $0.value.count > 1 }?.key)
    let ambiguous = f.run("show", String(shared))
    #expect(ambiguous.status == 6)
    #expect(
      ambiguous.stderr.hasPrefix("journal: error: the id \"\(shared)\" matches several sessions: "))
    #expect(ambiguous.stderr.hasSuffix("journal: hint: type a few more characters of the id\n"))
  }

  /// edit changes only what it is given; "" clears an optional field; no flags is an error.
  @Test func edit() {
    let f = CLIFixture().initialise()
    let id = f.new("--dose", "3 g")
    let result = f.run("edit", id, "--dose", "2 g", "--music", "birdsong")
    #expect(result.status == 0)
    #expect(result.stderr == "journal: saved session \(id) (needs reflection)\n")
    #expect(f.show(id)["dose"] as? String == "2 g")
    #expect(f.show(id)["music"] as? String == "birdsong")
    f.run("edit", id, "--dose", "")
    #expect(f.show(id)["dose"] is NSNull)
    let nothing = f.run("edit", id)
    #expect(nothing.status == 2)
    #expect(
      nothing.stderr == """
        journal: error: nothing to change
        journal: hint: give a field flag, such as --dose "2 g", or run in a terminal

        """)
    let bad = f.run("edit", id, "--mood-before", "12")
    #expect(bad.status == 2)
    #expect(f.show(id)["mood_before"] as? Int == 5)
    // The editor asked for with no terminal: refused before the tags given with it are saved
    for arguments in [["--editor"], ["--tag", "sea", "--editor"]] {
      let noEditor = f.cli.run(["edit", id] + arguments, stdin: "", extra: [:])
      #expect(noEditor.status == 2, "\(arguments)")
      #expect(
        noEditor.stderr.hasPrefix(
          "journal: error: the editor needs a terminal; nothing was changed\n"), "\(noEditor)")
    }
    #expect((f.show(id)["tags"] as? [String] ?? []).isEmpty)
    // So for `new` and `reflect`: the editor is what is missing, not the flags it would have
    // stood in for.
    let before = f.sessions().count
    for arguments in [["new", "--editor"], ["reflect", id, "--editor"]] {
      let noEditor = f.cli.run(arguments, stdin: "", extra: [:])
      #expect(noEditor.status == 2, "\(arguments)")
      #expect(
        noEditor.stderr.hasPrefix(
          "journal: error: the editor needs a terminal; nothing was changed\n"), "\(noEditor)")
    }
    #expect(f.sessions().count == before)
    #expect(f.run("reflect", id).stderr.hasPrefix("journal: error: missing --"))
  }

  /// passwd: afterwards the old passphrase fails with its own code and the new one works.
  @Test func passwd() {
    let f = CLIFixture().initialise()
    let id = f.new()
    let newFile = f.home.write("new", "a different calm passphrase\n")
    let changed = f.run("passwd", "--new-passphrase-file", newFile)
    #expect(changed.status == 0)
    #expect(
      changed.stderr
        == "journal: passphrase changed; the old one no longer opens this journal\n"
        + "journal: copies made before (backups, a copied journal) still open with the old "
        + "passphrase, and with them the same key reads everything written from now on\n"
        + #"journal: if the old passphrase may have leaked, "journal passwd --new-key" changes "#
        + "the key itself\n")
    let old = f.run("list")
    #expect(old.status == 4)
    #expect(
      old.stderr == """
        journal: error: the passphrase does not open this vault
        journal: hint: check the passphrase and try again; if it is right, the vault's header was damaged or changed (restore it from a backup); nothing was changed

        """)
    let withNew = f.run("show", id, "--json", extra: ["JOURNAL_PASSPHRASE_FILE": newFile])
    #expect(withNew.status == 0)
    let noNew = f.run("passwd", extra: ["JOURNAL_PASSPHRASE_FILE": newFile])
    #expect(noNew.status == 9)
  }

  /// A 50 KB reflection from standard input is kept exactly.
  @Test func longTextFromStdin() {
    let f = CLIFixture().initialise()
    let id = f.new()
    let paragraph = String(repeating: "The room was quiet and the light moved slowly. ", count: 20)
    let text = Array(repeating: paragraph, count: 54).joined(separator: "\n\n")
    #expect(text.utf8.count > 50_000)
    let result = f.run("reflect", id, "--reflection", "-", stdin: text + "\n")
    #expect(result.status == 0)
    #expect(
      f.show(id)["reflection"] as? String == text.trimmingCharacters(in: .whitespacesAndNewlines))
  }

  /// The passphrase can come from a command, and --vault puts the journal anywhere private.
  @Test func passphraseCommandAndVaultFlag() {
    let f = CLIFixture(extra: ["JOURNAL_PASSPHRASE_FILE": ""])
    let vault = f.home.file("elsewhere/mine.db")
    let command = ["JOURNAL_PASSPHRASE_COMMAND": "cat '\(f.passphraseFile)'"]
    #expect(f.run("init", "--kdf", "interactive", "--vault", vault, extra: command).status == 0)
    #expect(FileManager.default.fileExists(atPath: vault))
    let saved = f.run(
      "new", "--vault", vault, "--intention", "x", "--mood-before", "4", extra: command)
    #expect(saved.status == 0)
    #expect(f.run("list", extra: ["JOURNAL_VAULT": vault].merging(command) { $1 }).stdout.count > 0)
  }

  /// A flag journal does not know is a usage error in journal's own words, which say where
  /// it is rather than repeat it.
  @Test func unknownFlag() {
    let f = CLIFixture()
    let result = f.run("list", "--colour")
    #expect(result.status == 2)
    #expect(
      result.stderr.hasPrefix("journal: error: an option is not known (word 2 after journal)\n"))
    #expect(
      result.stderr.hasSuffix(
        "journal: hint: run \"journal help\" to see the commands and their flags\n"))
  }
}
