import Foundation
import JournalTestSupport
import Testing

/// The man page, Docs/journal.1: rendered by groff without a warning, and naming everything
/// the binary has, read from the binary itself rather than from a list kept by hand.
struct ManPageTests {
  static let root = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
  static let page = root.appendingPathComponent("Docs/journal.1").path

  /// groff, which Scripts/setup installs (groff-base).
  static let groff: String? = ["/usr/bin/groff", "/bin/groff"].first {
    FileManager.default.isExecutableFile(atPath: $0)
  }

  /// The page as `man` shows it, as plain text: no bold or underline, no hyphenation, every
  /// run of white space one space, and groff's minus sign (for `\-`) an ASCII hyphen.
  static func rendered() throws -> String {
    let groff = try #require(groff, "groff is missing: Scripts/setup installs groff-base")
    let home = TemporaryDirectory()
    let result = CLI(home: home.path).runProgram(
      [groff, "-man", "-Tutf8", "-rHY=0", "-P-cbou", page])
    #expect(result.status == 0, "\(result)")
    return result.stdout
      .replacingOccurrences(of: "\u{2212}", with: "-").replacingOccurrences(
        of: "\u{2010}", with: "-"
      )
      .split(whereSeparator: \.isWhitespace).joined(separator: " ")
  }

  /// One command as `journal --experimental-dump-help` describes it.
  struct Command {
    let path: [String]
    let options: [String]
  }

  /// Every command a person can type, with its long options, from ArgumentParser's own
  /// description of the binary (hidden ones, such as the agent's, left out).
  static func commands() throws -> [Command] {
    let home = TemporaryDirectory()
    let result = CLI(home: home.path).run(["--experimental-dump-help"])
    #expect(result.status == 0, "\(result)")
    let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8))
    let root = try #require((object as? [String: Any])?["command"] as? [String: Any])
    var found: [Command] = []
    func walk(_ command: [String: Any], _ path: [String]) {
      for sub in command["subcommands"] as? [[String: Any]] ?? [] {
        guard sub["shouldDisplay"] as? Bool ?? true, let name = sub["commandName"] as? String
        else { continue }
        let arguments = sub["arguments"] as? [[String: Any]] ?? []
        let options = arguments.filter { $0["shouldDisplay"] as? Bool ?? true }
          .flatMap { $0["names"] as? [[String: Any]] ?? [] }
          .filter { $0["kind"] as? String == "long" }.compactMap { $0["name"] as? String }
        found.append(Command(path: path + [name], options: options))
        walk(sub, path + [name])
      }
    }
    walk(root, [])
    return found
  }

  /// groff renders the page with every warning on (-ww) and says nothing.
  @Test func rendersWithoutWarnings() throws {
    let groff = try #require(Self.groff, "groff is missing: Scripts/setup installs groff-base")
    let home = TemporaryDirectory()
    let result = CLI(home: home.path).runProgram([groff, "-ww", "-man", "-Tutf8", Self.page])
    #expect(result.status == 0)
    #expect(result.stderr == "")
    #expect(result.stdout.count > 20_000)
  }

  /// Every command of the binary is in the page as "journal <command>", with every option it
  /// takes.
  @Test func namesEveryCommandAndOption() throws {
    let text = try Self.rendered()
    let commands = try Self.commands()
    #expect(commands.count > 20)
    #expect(commands.contains { $0.path == ["reminders", "run"] })
    for command in commands {
      let name = (["journal"] + command.path).joined(separator: " ")
      let named = text.contains(name)
      #expect(named, "the man page does not name \"\(name)\"")
      for option in command.options {
        let documented = text.contains("--" + option)
        #expect(documented, "\(name): --\(option) is not in the man page")
      }
    }
  }

  /// The sections a reader looks for are there, in the usual order.
  @Test func hasTheUsualSections() throws {
    let source = try String(contentsOfFile: Self.page, encoding: .utf8)
    let sections = source.split(separator: "\n").filter { $0.hasPrefix(".SH ") }
      .map { $0.dropFirst(4).replacingOccurrences(of: "\"", with: "") }
    #expect(
      sections == [
        "NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "COMMANDS", "THE KEYBOARD", "DATE SYNTAX",
        "TREATMENTS", "SETTINGS", "ENVIRONMENT", "FILES", "JSON OUTPUT", "EXIT STATUS",
        "EXAMPLES", "SEE ALSO",
      ])
  }

  /// `--help` and the messages point to the man page, never to a file in the source tree.
  @Test func helpPointsToTheManPage() throws {
    let home = TemporaryDirectory()
    let cli = CLI(home: home.path)
    let help = cli.run(["--help"])
    #expect(help.status == 0)
    #expect(help.stdout.contains(#""man journal""#), "\(help)")
    for command in try Self.commands() {
      let result = cli.run(command.path + ["--help"])
      #expect(!result.stdout.contains("Docs/"), "journal \(command.path) --help: \(result)")
      #expect(!result.stdout.contains(".md"), "journal \(command.path) --help: \(result)")
    }
  }

  /// What the help and the page say is what journal does: the help does not say that what
  /// you write never leaves the machine (sync and share exist), and every --status the page
  /// lists names all three statuses a filter takes.
  @Test func helpAndPageSayWhatJournalDoes() throws {
    let home = TemporaryDirectory()
    let help = CLI(home: home.path).run(["--help"])
    #expect(!help.stdout.contains("never leaves"), "\(help)")
    #expect(help.stdout.contains("journal sync"), "\(help)")
    let page = try String(
      contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Docs/journal.1"), encoding: .utf8)
    let entries = page.components(separatedBy: ".BI \\-\\-status \" status\"").dropFirst()
    #expect(!entries.isEmpty)
    for entry in entries {
      let text = entry.components(separatedBy: ".TP").first ?? ""
      for status in ["needs\\-reflection", "complete", "closed"] {
        #expect(text.contains(status), "--status without \(status): \(text)")
      }
    }
  }
}
