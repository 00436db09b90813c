import Foundation
import JournalTestSupport
import Testing

/// At 40 columns every paragraph of prose is wrapped at spaces (the banner, hints, the
/// form's lines and closing lines, the draft notice), never broken mid-word by the terminal.
@Suite(.serialized) struct NarrowTerminalTests {
  static let narrow = ["TERM": "xterm-256color", "COLUMNS": "40"]

  /// The lines a terminal shows: escape sequences dropped, split at every line ending and
  /// carriage return (a redrawn line is measured as drawn).
  static func shownLines(_ screen: String) -> [Substring] {
    screen.replacing(/\u{1B}\[[0-9;?]*[A-Za-z]/, with: "")
      .split(whereSeparator: { $0 == "\n" || $0 == "\r" || $0 == "\r\n" })
  }

  /// The guided form at 40 columns, from the first question to its closing lines.
  @Test func guidedFormFits() {
    let f = CLIFixture().initialise()
    let process = f.cli.interactive(["new"], extra: Self.narrow)
    #expect(process.expect("When was it? [now] "))
    process.write("2026-11-20 19:00\r\r\r")
    #expect(process.expect("Intention"))
    process.write("to arrive\r.\r")
    #expect(process.expect("Mood before"))
    process.write("6\r")
    #expect(process.expect("No thanks [3] "))
    process.write("\r")
    #expect(process.expect("[y/N] "))
    process.write("\r")
    #expect(process.wait().status == 0)
    let screen = process.screenText
    #expect(screen.contains("Add them any time with"), "\(screen)")
    for line in Self.shownLines(screen) {
      #expect(line.count <= 40, "\(line.debugDescription)")
    }
  }

  /// The banner and its hint on standard error, at 40 columns: every word is there, on
  /// lines that fit.
  @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script")))
  func bannerFits() {
    let f = CLIFixture().initialise()
    let id = f.new()
    #expect(f.run("remind", id, "--in", "0s").status == 0)
    let result = f.cli.runProgram(
      ["/usr/bin/script", "-qec", "\(CLI.binary) list", "/dev/null"], extra: Self.narrow)
    let lines = Self.shownLines(result.stdout)
    #expect(lines.allSatisfy { $0.count <= 40 }, "\(result)")
    let words = lines.joined(separator: " ").split(separator: " ").joined(separator: " ")
    #expect(
      words.contains(
        #"journal: 1 session is waiting for your reflections — "journal reflect \#(id)""#),
      "\(result)")
    // Each command on one line, whole inside its quotes, so that it can be copied
    for command in [
      #""journal reflect \#(id)""#, #""journal remind \#(id) --tomorrow""#,
      #""journal close \#(id)""#,
    ] {
      #expect(lines.contains { $0.contains(command) }, "\(command) split: \(lines)")
    }
  }

  /// The draft notice after Ctrl-C, and the delete confirmation's closing line, at 40 columns.
  @Test func noticesFit() {
    let f = CLIFixture().initialise()
    let form = f.cli.interactive(["new"], extra: Self.narrow)
    #expect(form.expect("When was it? [now] "))
    form.write("2026-11-20 19:00\r\r\r")
    #expect(form.expect("Intention"))
    form.write("to arrive\r.\r")
    #expect(form.expect("Mood before"))
    form.write("\u{03}")
    #expect(form.wait().status != 0)
    #expect(form.screenText.contains("will offer it again"), "\(form.screenText)")
    for line in Self.shownLines(form.screenText) {
      #expect(line.count <= 40, "\(line.debugDescription)")
    }

    let id = f.new()
    let delete = f.cli.interactive(["delete", id], extra: Self.narrow)
    #expect(delete.expect("[y/N] "))
    delete.write("y\r")
    #expect(delete.expect("undo ("))
    delete.write("\r")
    #expect(delete.wait().status == 0)
    #expect(delete.screenText.contains("until the window closes."))
    for line in Self.shownLines(delete.screenText) {
      #expect(line.count <= 40, "\(line.debugDescription)")
    }
  }

  /// `journal help new` at 40 columns: each option on its line, its description below it
  /// across the width (not squeezed into 14 columns), every line fitting.
  @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script")))
  func helpFits() {
    let f = CLIFixture()
    let result = f.cli.runProgram(
      ["/usr/bin/script", "-qec", "\(CLI.binary) help new", "/dev/null"], extra: Self.narrow)
    let lines = Self.shownLines(result.stdout)
    #expect(lines.allSatisfy { $0.count <= 40 }, "\(result)")
    #expect(lines.contains("  --dose <dose>"), "\(result)")
    #expect(lines.contains(#"      Free text, such as "2.5 g dried"."#), "\(result)")
  }

  /// A session's long word at 40 columns is shown whole on a line, never cut by the
  /// terminal: it takes less of the indent.
  @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script")))
  func longWordFits() {
    let f = CLIFixture().initialise()
    let word = "supercalifragilisticexpialidocious-3838"
    let id = f.new("--reflection", word + " and more")
    let result = f.cli.runProgram(
      ["/usr/bin/script", "-qec", "\(CLI.binary) show \(id)", "/dev/null"],
      extra: Self.narrow.merging(["PAGER": "cat"]) { $1 })
    let lines = Self.shownLines(result.stdout)
    #expect(lines.allSatisfy { $0.count <= 40 }, "\(result)")
    #expect(lines.contains { $0.hasSuffix(word) }, "\(result)")
    // A wrapped line of prose goes on indented below its start
    if let created = lines.firstIndex(where: { $0.hasPrefix("Created ") }),
      created + 1 < lines.count
    {
      #expect(lines[created + 1].hasPrefix("  "), "\(result)")
    } else {
      Issue.record("no Created line: \(result)")
    }
  }
}
