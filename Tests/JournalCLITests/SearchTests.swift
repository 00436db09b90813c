import Foundation
import GRDB
import Glibc
import JournalTestSupport
import Testing

/// Finding and revising what was written (issue 23): search end to end, words from standard
/// input, no match, a damaged session skipped and named; show through a pager only at a
/// terminal; edit's long texts in the editor, one word changed and the rest byte-exact.
@Suite struct SearchTests {
  static let reflection =
    "We sat at the Café by the\nsea. My father's voice, then rain.\nStill here."

  @Test func searchEndToEnd() throws {
    let f = CLIFixture().initialise()
    let early = f.new("--date", "2026-11-01 10:00", "--intention", "to meet my father")
    f.run("reflect", early, "--reflection", Self.reflection)
    let late = f.new("--intention", "cafe au lait", "--treatment", "other:San Pedro")

    let both = f.run("search", "CAFE")
    #expect(both.status == 0, "\(both)")
    let lines = both.stdout.split(separator: "\n")
    #expect(lines.count == 4, "\(both.stdout)")
    #expect(lines[0].hasPrefix(late) && lines[2].hasPrefix(early), "newest first")
    #expect(lines[1] == "    intention: cafe au lait")
    #expect(lines[3] == "    reflection: We sat at the Café by the")

    let phrase = f.run("search", "by the sea", "--in", "reflection")
    #expect(
      phrase.stdout.hasSuffix(
        "    reflection: We sat at the Café by the sea. My father's voice, then rain.\n"))
    #expect(f.run("search", "father", "rain").stdout.hasPrefix(early))
    #expect(
      f.run("search", "father", "--in", "reflection", "--in", "environment").stdout.hasPrefix(early)
    )
    #expect(f.run("search", "pedro", "--in", "treatment").stdout.hasPrefix(late))
    #expect(f.run("search", "cafe", "--since", "2026-11-15").stdout.hasPrefix(late))
    #expect(f.run("search", "cafe", "-n", "1").stdout.split(separator: "\n").count == 2)

    let piped = f.run("search", "-", stdin: "\"my father's voice\"\n")
    #expect(piped.status == 0)
    #expect(piped.stdout.hasPrefix(early))
    // Standard input is read up to a bound (`yes | journal search -` ends), and never as
    // anything but UTF-8.
    let endless = f.run("search", "-", stdin: String(repeating: "y\n", count: 40_000))
    #expect(endless.status == 2)
    #expect(
      endless.stderr.hasPrefix("journal: error: the words to search for are more than 64 KB\n"))

    let json = f.run("search", "rain", "--json")
    let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
    let match = try #require((object?["matches"] as? [[String: Any]])?.first)
    let hit = try #require((match["hits"] as? [[String: Any]])?.first)
    #expect(hit["field"] as? String == "reflection")
    #expect(hit["offset"] as? Int == 55 && hit["length"] as? Int == 4)

    let none = f.run("search", "SECRETWORD")
    #expect(none.status == 0)
    #expect(none.stdout == "")
    #expect(none.stderr == "journal: no session mentions these words\n")

    let empty = f.run("search")
    #expect(empty.status == 2)
    #expect(empty.stderr.hasPrefix("journal: error: no words to search for"))

    // Six choices or more: ArgumentParser lists them on lines of their own.
    let field = f.run("search", "--in", "nowhere", "x")
    #expect(field.status == 2)
    #expect(
      field.stderr == """
        journal: error: the value given for --in cannot be used
        journal: hint: choose one of 'intention', 'reflection', 'notes', 'environment', 'music', 'dose' or 'treatment'

        """)
  }

  /// A damaged session is skipped and named (exit 5); the others are still searched, and no
  /// word searched for appears in any message.
  @Test func damagedSkippedAndNamed() throws {
    let f = CLIFixture().initialise()
    let good = f.new("--intention", "the garden at dusk")
    let bad = f.new("--intention", "the garden at dawn")
    try f.tamper(
      "UPDATE session SET body = zeroblob(300) WHERE id LIKE ?", [bad + "%"])
    let result = f.run("search", "garden")
    #expect(result.status == 5, "\(result)")
    #expect(result.stdout.hasPrefix(good))
    #expect(result.stderr.contains(bad))
    #expect(!result.stderr.contains("garden"))
  }

  /// `show` goes through $PAGER (with LESSHISTFILE=-) at a terminal when taller than it, and
  /// never when piped.
  @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script")))
  func pagerOnlyAtATerminal() throws {
    let f = CLIFixture().initialise()
    let id = f.new()
    f.run("reflect", id, "--reflection", (1...40).map { "line \($0)" }.joined(separator: "\n"))
    let log = f.home.file("pager.log")
    let pager = f.home.write(
      "fake-pager",
      """
      #!/bin/sh
      printf 'LESSHISTFILE=%s\\n' "$LESSHISTFILE" > '\(log)'
      wc -l >> '\(log)'

      """, mode: 0o700)
    let piped = f.run("show", id, extra: ["PAGER": pager])
    #expect(piped.status == 0)
    #expect(piped.stdout.contains("line 40"))
    #expect(!FileManager.default.fileExists(atPath: log), "no pager for a pipe")

    // script(1) gives journal a terminal as its standard output.
    let result = f.cli.runProgram(
      ["/usr/bin/script", "-qec", "\(CLI.binary) show \(id)", "/dev/null"],
      extra: ["PAGER": pager, "LINES": "10", "TERM": "xterm"])
    #expect(result.status == 0, "\(result)")
    let seen = try String(contentsOfFile: log, encoding: .utf8)
    #expect(seen.hasPrefix("LESSHISTFILE=-\n"), "\(seen)")
    #expect(
      (Int(seen.split(separator: "\n").last?.trimmingCharacters(in: .whitespaces) ?? "") ?? 0) > 40)
  }

  /// `PAGER=less` shows colour, not raw escape codes: with LESS unset, journal sets it to R;
  /// a less told otherwise (LESS without R) is sent the text without colour.
  @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script")))
  func pagerLessShowsColourOrGetsNone() throws {
    let f = CLIFixture().initialise()
    let id = f.new()
    f.run("reflect", id, "--reflection", (1...40).map { "line \($0)" }.joined(separator: "\n"))
    // A stand-in "less" first on PATH: records LESS and whether it was sent escape codes
    let bin = f.home.file("bin")
    try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
    let log = f.home.file("less.log")
    _ = f.home.write(
      "bin/less",
      """
      #!/bin/sh
      printf 'LESS=%s\\n' "${LESS-unset}" > '\(log)'
      if grep -q "$(printf '\\033')" ; then echo escapes >> '\(log)'; else echo plain >> '\(log)'; fi

      """, mode: 0o700)
    let terminal = [
      "PAGER": "less", "LINES": "10", "TERM": "xterm", "NO_COLOR": "",
      "PATH": bin + ":/usr/bin:/bin",
    ]
    let show = ["/usr/bin/script", "-qec", "\(CLI.binary) show \(id)", "/dev/null"]
    // LESS unset: set to R, and colour is sent
    #expect(f.cli.runProgram(show, extra: terminal).status == 0)
    #expect(try String(contentsOfFile: log, encoding: .utf8) == "LESS=R\nescapes\n")
    // LESS set without R: no colour is sent
    #expect(f.cli.runProgram(show, extra: terminal.merging(["LESS": "-X"]) { $1 }).status == 0)
    #expect(try String(contentsOfFile: log, encoding: .utf8) == "LESS=-X\nplain\n")
  }

  /// Interactive `edit` shows a long text's current value before asking, and Enter (an
  /// empty answer) keeps it.
  @Test func interactiveEditShowsTheCurrentText() throws {
    let f = CLIFixture().initialise()
    let id = f.new("--intention", "to meet my father\nand listen")
    let process = f.cli.interactive(["edit", id], extra: ["TERM": "xterm"])
    #expect(process.expect("When was it?"))
    process.write("\r")
    #expect(process.expect("Treatment ["))
    process.write("\r")
    #expect(process.expect("Dose (optional)"))
    process.write("\r")
    #expect(process.expect("Now:"))
    #expect(process.expect("    to meet my father"))
    #expect(process.expect("    and listen"))
    #expect(process.expect("Intention"))
    process.write("\u{04}")
    #expect(process.expect("Mood before"))
    process.signal(SIGINT)
    _ = process.wait()
    #expect(f.show(id)["intention"] as? String == "to meet my father\nand listen")
  }

  /// `edit --editor`: the long texts open with their current text; changing one word of the
  /// reflection saves only the reflection, the rest of it byte for byte.
  @Test func editorRoundTrip() throws {
    let f = CLIFixture().initialise()
    let id = f.new("--intention", "to meet my father")
    f.run("reflect", id, "--reflection", Self.reflection, "--environment", "home")
    let before = f.show(id)
    let editor = f.home.write(
      "fake-editor",
      """
      #!/bin/sh
      for last in "$@"; do :; done
      sed -i 's/rain/snow/' "$last"

      """, mode: 0o700)
    let process = f.cli.interactive(["edit", id, "--editor"], extra: ["EDITOR": editor])
    let result = process.wait()
    #expect(result.status == 0, "\(result) \(process.screenText)")
    #expect(process.screenText.contains("Saved: the reflection."))
    let after = f.show(id)
    #expect(
      after["reflection"] as? String
        == Self.reflection.replacingOccurrences(of: "rain", with: "snow"))
    #expect(after["intention"] as? String == before["intention"] as? String)
    #expect(after["environment"] as? String == "home")
  }
}
