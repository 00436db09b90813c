import JournalCrypto

/// The person at the keyboard: where prompts go and answers come from. The real one is
/// `TTY`; tests script one. Only interactive code uses it.
public protocol Terminal: AnyObject {
  /// Writes text as is (prompts, progress, the "Later" group heading).
  func write(_ text: String)
  /// Asks for one line; returns it without its newline. Throws `AppError.cancelled` on
  /// Ctrl-D (end of input) or Ctrl-C.
  func readLine(prompt: String) throws -> String
  /// Asks for a secret without echoing it; the answer goes straight into guarded memory.
  func readSecret(prompt: String) throws -> SecureBytes
  /// Asks for text of any length over several lines, ended by Ctrl-D or a line holding
  /// only ".". Returns the text without the ending.
  func readText(prompt: String) throws -> String
  /// Whether colour and symbols may be used.
  var supportsColour: Bool { get }
}

extension Terminal {
  public func writeLine(_ text: String = "") { write(text + "\n") }
}
