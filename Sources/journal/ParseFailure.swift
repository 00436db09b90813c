import ArgumentParser
import Foundation
import JournalApp
import JournalCore
import JournalDiagnostics
import JournalTerminal

/// Turns ArgumentParser's refusals into journal's own words.
///
/// ArgumentParser quotes what was typed ("Unexpected arguments 'rest', 'by', 'the', 'sea'"),
/// and a refused command line ends up in cron mail and the journald log. So no message here
/// repeats a value the person typed: only journal's own option names and placeholders are
/// kept, and unquoted words after an option are explained as a quoting problem. The one
/// exception is a word where a command's name goes (`journal nwe`), repeated only when it is
/// a slip of a command's name (the nearest command is suggested beside it) and has a
/// command's shape (lowercase letters, digits and hyphens); any other is not repeated.
enum ParseFailure {
  /// Reports `error` from parsing `arguments` and returns the exit code: help and version
  /// requests print to stdout and succeed; everything else is a usage error.
  static func report(_ error: any Error, arguments: [String]) -> Int32 {
    let code = Journal.exitCode(for: error)
    let message = Journal.fullMessage(for: error)
    if code == .success {
      if !message.isEmpty { try? Runtime.output(narrowed(error, message) + "\n") }
      return JournalExit.success.rawValue
    }
    if let code = reportUnknownCommand(arguments) { return code }
    let (text, hint) = words(for: message, arguments: arguments)
    Report.error(text, hint: hint)
    return JournalExit.usage.rawValue
  }

  /// Help on a terminal narrower than ArgumentParser's layout needs (its descriptions start
  /// at column 26: at 40 columns they were squeezed into 14) is laid out again: each option
  /// or command on a line of its own, its description below it, indented six, across the
  /// width. Wide terminals and pipes keep ArgumentParser's own layout.
  static func narrowed(_ error: any Error, _ message: String) -> String {
    guard let width = Presentation.width(of: 1, environment: ProcessInfo.processInfo.environment),
      width < 80
    else { return message }
    // The same help, unwrapped: every description whole on its line.
    let whole = Journal.fullMessage(for: error, columns: 100_000)
    var out: [String] = []
    let label = 26
    for line in whole.split(separator: "\n", omittingEmptySubsequences: false) {
      let text = String(line)
      let leading = text.prefix { $0 == " " }.count
      if leading == label {
        // A description under a label too long to share its line.
        out += Wrap.lines(
          "      " + text.dropFirst(leading), width: width, indent: "      ")
      } else if leading == 2, text.count > label, Array(text)[label - 1] == " " {
        // "  --dose <dose>           Free text…": the label, then its description below.
        let characters = Array(text)
        out.append(String(characters[..<(label - 1)]).trimmingCharacters(in: .whitespaces))
        out[out.count - 1] = "  " + out[out.count - 1]
        let description = String(characters[label...])
        out += Wrap.lines("      " + description, width: width, indent: "      ")
      } else {
        out += Wrap.lines(text, width: width, indent: String(repeating: " ", count: leading))
      }
    }
    return out.joined(separator: "\n")
  }

  /// The one-line message and hint for ArgumentParser's `message`, with no typed value in it.
  static func words(for message: String, arguments: [String]) -> (String, String) {
    let help = #"run "journal help" to see the commands and their flags"#
    let first = message.split(separator: "\n").first.map(String.init) ?? ""
    let line = first.hasPrefix("Error: ") ? String(first.dropFirst(7)) : first
    let quoted = line.split(separator: "'", omittingEmptySubsequences: false).enumerated()
      .filter { $0.offset % 2 == 1 }.map { String($0.element) }
    if line.hasPrefix("Unexpected argument") || line.contains("unexpected arguments") {
      let option = quoted.first.flatMap { optionBefore($0, in: arguments) }
      guard let option else {
        return (
          "this command takes fewer words",
          #"put a value with spaces in quotes, or "#
            + #"run "journal help" to see the commands and their flags"#
        )
      }
      return (
        "the value of \(option) has spaces and needs quotes",
        #"write \#(option) "…", with the whole value inside the quotes"#
      )
    }
    if line.hasPrefix("The value '"), let option = quoted.dropFirst().first.map(optionName) {
      var choices = line.range(of: ". Please provide one of ").map { range in
        "choose one of " + line[range.upperBound...].dropLast(line.hasSuffix(".") ? 1 : 0)
      }
      // Six choices or more come as a list on the lines below: "the following:", "  - …".
      if line.hasSuffix("the following:") {
        let items = message.split(separator: "\n").dropFirst()
          .map { $0.trimmingCharacters(in: .whitespaces) }.filter { $0.hasPrefix("- ") }
          .map { "'\($0.dropFirst(2))'" }
        if let last = items.last {
          let rest = items.dropLast().joined(separator: ", ")
          choices = "choose one of " + (rest.isEmpty ? last : rest + " or " + last)
        }
      }
      return ("the value given for \(option) cannot be used", choices ?? help)
    }
    // "--dose -5 kg": a value that starts with "-" reads as an option, so the option seems to
    // have none. It is given joined with "=" (which ArgumentParser takes as the value).
    if line.hasPrefix("Missing value for '"), let option = quoted.first.map(optionName),
      let place = arguments.firstIndex(of: option), place + 1 < arguments.count,
      arguments[place + 1].hasPrefix("-")
    {
      return (
        #"the value after \#(option) starts with "-" and reads as an option"#,
        #"write it joined with "=": \#(option)=… (for example \#(option)=-5)"#
      )
    }
    // `---completion` is the completion script's own request ("---completion COMMAND --
    // …"); typed by hand, it leaves ArgumentParser in a state it calls its internal error.
    if arguments.first == "---completion" {
      return (
        "---completion is the shell completion script's own request, not a command",
        "install the script: journal --generate-completion-script bash (or zsh, fish)"
      )
    }
    // "Can't generate completion scripts for 'x'": the apostrophe of "Can't" is no quote.
    if line.hasPrefix("Can't generate completion scripts for ") {
      return (
        "there is no completion script for that shell",
        "choose bash, zsh or fish: journal --generate-completion-script bash"
      )
    }
    if line.hasPrefix("The option '"), let option = quoted.first.map(optionName) {
      return ("\(option) takes no value", help)
    }
    if line.hasPrefix("Unknown option '"), let typed = quoted.first {
      // Even a mistyped option is typed text; its place on the line is enough to find it.
      let place = arguments.firstIndex { optionName($0) == optionName(typed) }
      let suggestion = quoted.dropFirst().first.map { #"did you mean "\#(optionName($0))"?"# }
      return (
        "an option is not known" + (place.map { " (word \($0 + 1) after journal)" } ?? ""),
        suggestion ?? help
      )
    }
    // Everything else (unknown options, missing values): keep only what is journal's own.
    var kept = line
    for segment in quoted where !isOwnName(segment) {
      kept = kept.replacingOccurrences(of: "'\(segment)'", with: "a word typed")
    }
    // A malformed option ("---x", "-é") is shown after a colon, unquoted: never repeated.
    if quoted.isEmpty && kept.contains(": ") { kept = "an option could not be read" }
    kept = kept.hasSuffix(".") ? String(kept.dropLast()) : kept
    return (kept.prefix(1).lowercased() + kept.dropFirst(), help)
  }

  /// Reports a command that does not exist (`journal nwe`, `journal help nwe`, `journal
  /// reminders rnu`) with the nearest one, and returns the exit code; nil when every word in a
  /// command's place names one. `journal help <command>` checks this before ArgumentParser,
  /// which would print the top-level help for an unknown name and succeed.
  static func reportUnknownCommand(_ arguments: [String]) -> Int32? {
    guard let (text, hint) = unknownCommand(in: arguments) else { return nil }
    Report.error(text, hint: hint)
    return JournalExit.usage.rawValue
  }

  /// The words for the first word in a command's place that names no command, if any.
  static func unknownCommand(in arguments: [String]) -> (String, String)? {
    let words = arguments.first == "help" ? Array(arguments.dropFirst()) : arguments
    var command: any ParsableCommand.Type = Journal.self
    var path: [String] = []
    for word in words {
      let subcommands = command.configuration.subcommands
      // An option, or a command that takes arguments rather than commands: not ours to judge.
      guard !word.hasPrefix("-"), !subcommands.isEmpty else { return nil }
      if let next = subcommands.first(where: {
        $0._commandName == word || $0.configuration.aliases.contains(word)
      }) {
        command = next
        path.append(word)
        continue
      }
      let names = subcommands.filter { $0.configuration.shouldDisplay }.map { $0._commandName }
      let prefix = path.map { $0 + " " }.joined()
      let near = Suggestion.nearest(to: word, among: names)
      let commandShape = Set("abcdefghijklmnopqrstuvwxyz0123456789-")
      let shown = near != nil && word.count <= 24 && word.allSatisfy { commandShape.contains($0) }
      var text = shown ? #"no command "\#(prefix + word)""# : "there is no such command"
      if let near { text += #"; did you mean "\#(prefix + near)"?"# }
      let help = (["journal", "help"] + path).joined(separator: " ")
      return (text, #"run "\#(help)" to see the commands"#)
    }
    return nil
  }

  /// The option nearest before `value` on the command line ("--intention"), if any.
  private static func optionBefore(_ value: String, in arguments: [String]) -> String? {
    guard let index = arguments.lastIndex(of: value) else { return nil }
    return arguments[..<index].last { $0.hasPrefix("-") && isOwnName($0) }
      .map { optionName($0) }
  }

  /// "--date <date>" → "--date".
  private static func optionName(_ text: String) -> String {
    String(text.split(separator: " ").first ?? Substring(text))
  }

  /// A flag or placeholder of journal's own shape: "--mood-before <n>", "-h", "<ids> ...".
  private static func isOwnName(_ text: String) -> Bool {
    let allowed = Set("abcdefghijklmnopqrstuvwxyz0123456789-<> .")
    guard text.hasPrefix("-") || text.hasPrefix("<"), text.count <= 40 else { return false }
    return text.allSatisfy { allowed.contains($0) }
  }
}
