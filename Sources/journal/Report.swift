import ArgumentParser
import Foundation
import JournalApp

/// Writes messages to stderr in the `journal: error:` / `journal: hint:` form, and turns any
/// failure into its exit code.
enum Report {
  static func error(_ message: String, hint: String? = nil) {
    line("journal: error: " + message)
    if let hint { line("journal: hint: " + hint) }
  }

  static func note(_ message: String) { line("journal: " + message) }

  static func line(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
  }

  /// Reports `error` and returns the exit code. Help and version requests print to stdout
  /// and succeed; ArgumentParser's own parse errors are usage errors.
  static func failure(_ error: any Error) -> Int32 {
    if let done = error as? ExitCodeOnly { return done.code.rawValue }
    if Diagnosis.knows(error) {
      let diagnosis = Diagnosis(error)
      if Diagnosis.isOrdinary(error) {
        // Stopping a form or finding nothing to undo is not a fault: no "error:" for it.
        note(diagnosis.message)
        if let hint = diagnosis.hint { line("journal: hint: " + hint) }
      } else {
        self.error(diagnosis.message, hint: diagnosis.hint)
      }
      return diagnosis.exitCode.rawValue
    }
    let code = Journal.exitCode(for: error)
    let message = Journal.fullMessage(for: error)
    if code == .success {
      if !message.isEmpty { print(message) }
      return JournalApp.ExitCode.success.rawValue
    }
    let firstLine =
      message.split(separator: "\n").first.map(String.init) ?? "the command line cannot be read"
    let text = firstLine.hasPrefix("Error: ") ? String(firstLine.dropFirst(7)) : firstLine
    self.error(
      text.prefix(1).lowercased() + text.dropFirst(),
      hint: #"run "journal help" to see the commands and their flags"#)
    return JournalApp.ExitCode.usage.rawValue
  }
}
