import Foundation
import Glibc
import JournalCore
import JournalSystem
import JournalTerminal

/// Writes messages to stderr in the `journal: error:` / `journal: hint:` form, and turns a
/// failure of a command into its exit code.
public enum Report {
  public static func error(_ message: String, hint: String? = nil) {
    line("journal: error: " + message)
    if let hint { line("journal: hint: " + hint) }
  }

  public static func note(_ message: String) { line("journal: " + message) }

  public static func hint(_ message: String) { line("journal: hint: " + message) }

  /// One message line; on a terminal it is wrapped to the terminal's width (a script reading
  /// a pipe or file gets it on one line).
  public static func line(_ text: String) {
    StandardStreams.errorLine(width.map { Wrap.prose(text, width: $0) } ?? text)
  }

  /// The width of the terminal standard error is, if it is one.
  private static let width: Int? =
    isatty(STDERR_FILENO) == 1
    ? Presentation.width(of: STDERR_FILENO, environment: ProcessInfo.processInfo.environment)
    : nil

  /// Reports a failure of a running command and returns its exit code. Every error of
  /// journal's own has words (Diagnosable); any other is a bug and says so.
  public static func failure(_ error: any Error) -> Int32 {
    let diagnosis = Diagnosis(error)
    if Diagnosis.isOrdinary(error) {
      // Stopping a form or finding nothing to undo is not a fault: no "error:" for it.
      note(diagnosis.message)
      if let hint = diagnosis.hint { self.hint(hint) }
    } else {
      self.error(diagnosis.message, hint: diagnosis.hint)
    }
    return diagnosis.exitCode.rawValue
  }
}
