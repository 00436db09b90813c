import Foundation
import JournalApp
import JournalCrypto
import JournalTerminal

/// A terminal that answers from a script and keeps a transcript. Asked for more answers
/// than scripted, it ends the form as Ctrl-D would (`TerminalError.stopped`) and records that
/// it ran out, so a test can assert on it.
public final class ScriptedTerminal: Terminal {
  public enum Answer {
    case line(String)
    case secret(String)
    case text(String)
    /// Ctrl-C or Ctrl-D at this prompt.
    case interrupt
  }

  private var answers: [Answer]
  public private(set) var transcript = ""
  public private(set) var ranOut = false
  public let presentation: Presentation

  public init(_ answers: [Answer], presentation: Presentation = .plainText) {
    self.answers = answers
    self.presentation = presentation
  }

  public func write(_ text: String) { transcript += text }

  /// Counted, so that a test can see a destructive question dropped what was typed ahead.
  public private(set) var discards = 0
  public func discardTypedAhead() { discards += 1 }

  public func readLine(prompt: String) throws -> String {
    transcript += prompt
    switch try next() {
    case .line(let text):
      transcript += text + "\n"
      return text
    case let other: throw Mismatch(expected: "line", got: "\(other)")
    }
  }

  public func readSecret(prompt: String) throws -> SecureBytes {
    transcript += prompt + "\n"
    switch try next() {
    case .secret(let text): return try SecureBytes(copying: Array(text.utf8))
    case let other: throw Mismatch(expected: "secret", got: "\(other)")
    }
  }

  public func readText(prompt: String, initial: String, keep: (String) -> Void) throws -> String {
    transcript += prompt + initial
    switch try next() {
    case .text(let text):
      transcript += text + "\n.\n"
      return initial + text
    case let other: throw Mismatch(expected: "text", got: "\(other)")
    }
  }

  /// Answers not yet used.
  public var remaining: Int { answers.count }

  private func next() throws -> Answer {
    guard !answers.isEmpty else {
      ranOut = true
      throw TerminalError.stopped
    }
    let answer = answers.removeFirst()
    if case .interrupt = answer { throw TerminalError.stopped }
    return answer
  }

  /// The form asked for a different kind of input than the script gives.
  public struct Mismatch: Error, CustomStringConvertible {
    public let expected: String
    public let got: String
    public var description: String { "the form asked for a \(expected); the script has \(got)" }
  }
}
