import Foundation
import JournalTestSupport
import Testing

/// Plain mode read aloud (issue 32, "Plain mode for the ear"): a newcomer's session at 40
/// columns, `list --plain` and `show --plain` spoken by espeak-ng (`-x` prints the phonemes
/// it would say), with no symbol or number where a word was meant. Scripts/test installs
/// espeak-ng (Debian `espeak-ng`).
@Suite(.serialized) struct PlainSpeechTests {
  static let espeak = "/usr/bin/espeak-ng"
  static let plain = ["TERM": "xterm-256color", "COLUMNS": "40", "JOURNAL_PLAIN": "1"]

  /// What espeak-ng would say for `text`, as its phonemes on one line.
  static func phonemes(_ text: String) -> String {
    let process = Spawned(
      arguments: [espeak, "-x", "-q"], environment: ["PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"],
      terminal: false)
    process.write(text)
    process.closeInput()
    return process.wait().stdout.replacingOccurrences(of: "\n", with: " ")
  }

  /// Phonemes of what must never be said: a symbol read out, or an id read as a number.
  static let symbols = [
    ("d'aS", "dash"), ("sl'aS", "slash"), ("'aroU", "arrow"), ("k'oUl@n", "colon"),
    ("h'VndrI2d", "hundred: an id or a date read as a number"), ("d'0t", "dot"),
  ]

  @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: espeak)))
  func listAndShowReadWell() {
    // Given a newcomer's first session, reflected on
    let f = CLIFixture(extra: Self.plain).initialise()
    let id = f.new("--mood-after", "8", "--reflection", "the light on the wall")
    // When list and show are read aloud
    let list = f.run("list", "--plain")
    let show = f.run("show", id, "--plain")
    #expect(list.status == 0 && show.status == 0, "\(list)\(show)")
    for (command, text) in [("list", list.stdout), ("show", show.stdout)] {
      let said = Self.phonemes(text)
      // Then no symbol is said, and the id is spelled, not read as a number
      for (phoneme, name) in Self.symbols {
        #expect(!said.contains(phoneme), "\(command) says \(name): \(text)\n\(said)")
      }
      // "thousand" only in the years, once a date
      #expect(
        said.components(separatedBy: "T'aUz@nd").count - 1
          == text.components(separatedBy: "2026").count - 1, "\(command): \(said)")
      #expect(!text.contains("→") && !text.contains("2026-"), "\(command): \(text)")
    }
    // At 40 columns, on a terminal, every line fits
    if FileManager.default.isExecutableFile(atPath: "/usr/bin/script") {
      for command in ["list --plain", "show \(id) --plain"] {
        let shown = f.cli.runProgram(
          ["/usr/bin/script", "-qec", "\(CLI.binary) \(command)", "/dev/null"], extra: Self.plain)
        let lines = NarrowTerminalTests.shownLines(shown.stdout)
        #expect(lines.count > 2 && lines.allSatisfy { $0.count <= 40 }, "\(command): \(shown)")
      }
    }
    // And what is read says the mood as words would, and the date in words
    #expect(list.stdout.contains("mood 5 to 8"), "\(list)")
    #expect(show.stdout.contains("Friday 20 November 2026, 18:00"), "\(show)")
    #expect(show.stdout.contains("Session " + id.map(String.init).joined(separator: " ")))
    // And the id spelled out can be typed back as it was heard
    let spelled = String(id.prefix(4)).map(String.init).joined(separator: " ")
    #expect(f.run("show", spelled, "--json").status == 0)
  }

  /// The guided form in plain mode asked for, at 40 columns: every question and line it
  /// writes (what the person typed aside) is said without a symbol read out: no "y slash
  /// n", no unheard quoted dot, no date with dashes.
  @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: espeak)))
  func theGuidedFormReadsWell() {
    let f = CLIFixture().initialise()
    let process = f.cli.interactive(["new"], extra: Self.plain)
    #expect(process.expect("When was it? [now] "))
    process.write("\n")
    #expect(process.expect("Treatment [psilocybin] "))
    process.write("\n")
    #expect(process.expect("Dose (optional) "))
    process.write("\n")
    #expect(process.expect("Intention"))
    #expect(process.expect("stop)"))
    process.write("to arrive\n.\n")
    #expect(process.expect("Mood before, 1 (low) to 10 (high) "))
    process.write("6\n")
    #expect(process.expect("(Enter for no thanks) "))
    process.write("2")
    #expect(process.expect("(yes or no, Enter for no) "))
    process.write("\n")
    #expect(process.wait().status == 0)
    let screen = process.screenText.replacingOccurrences(of: "\r", with: "")
    let said = Self.phonemes(screen)
    for (phoneme, name) in Self.symbols {
      #expect(!said.contains(phoneme), "the form says \(name): \(screen)\n\(said)")
    }
    #expect(!screen.contains("[y/N]") && !screen.contains(#"only ".""#), "\(screen)")
    #expect(process.screenWords.contains("a line holding only a full stop"), "\(screen)")
  }
}
