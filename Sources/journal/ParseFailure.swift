import ArgumentParser
import JournalApp

/// Turns ArgumentParser's refusals into journal's own words.
///
/// ArgumentParser quotes what was typed ("Unexpected arguments 'rest', 'by', 'the', 'sea'"),
/// and a refused command line ends up in cron mail and the journald log. So no message here
/// repeats a value the person typed: only journal's own option names and placeholders are
/// kept, and unquoted words after an option are explained as a quoting problem.
enum ParseFailure {
  /// Reports `error` from parsing `arguments` and returns the exit code: help and version
  /// requests print to stdout and succeed; everything else is a usage error.
  static func report(_ error: any Error, arguments: [String]) -> Int32 {
    let code = Journal.exitCode(for: error)
    let message = Journal.fullMessage(for: error)
    if code == .success {
      if !message.isEmpty { try? Runtime.output(message + "\n") }
      return JournalApp.ExitCode.success.rawValue
    }
    let (text, hint) = words(for: message, arguments: arguments)
    Report.error(text, hint: hint)
    return JournalApp.ExitCode.usage.rawValue
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
      let choices = line.range(of: ". Please provide one of ").map { range in
        "choose one of " + line[range.upperBound...].dropLast(line.hasSuffix(".") ? 1 : 0)
      }
      return ("the value given for \(option) cannot be used", choices ?? help)
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
