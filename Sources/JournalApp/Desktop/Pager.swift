import Foundation
import Glibc
import JournalSystem

/// Long output at a terminal goes through a pager (`journal show`): $PAGER, else `less -R`,
/// fed through a pipe (nothing touches the disk), with LESSHISTFILE=- so that less keeps no
/// history of what it showed or was searched in it. Never when standard output is not a
/// terminal, nor for text that fits the screen.
///
/// Colour reaches a pager only when it can show it: less needs -R, so where LESS is unset
/// it is set to R (as git does); a less told otherwise (LESS without R) gets the text
/// without colour rather than raw escape codes.
public enum Pager {
  /// Shows `text`: through the pager when standard output is a terminal and the text is
  /// taller than it, else written as it is.
  public static func show(_ text: String, environment: [String: String]) throws {
    guard isatty(STDOUT_FILENO) != 0, text.count(where: { $0 == "\n" }) >= rows(environment),
      let pid = start(environment)
    else { return try Runtime.output(text) }
    var bytes = Array((showsColour(environment) ? text : withoutColour(text)).utf8)
    defer { for index in bytes.indices { bytes[index] = 0 } }
    // A pager quit early closes the pipe: that ends the showing, not the command.
    let previous = signal(SIGPIPE, SIG_IGN)
    defer { signal(SIGPIPE, previous) }
    try? Descriptor(pid.input).writeAll(bytes)
    close(pid.input)
    _ = Subprocess.wait(pid.pid)
  }

  /// The terminal's height (LINES, else the window size), 24 when unknown.
  static func rows(_ environment: [String: String]) -> Int {
    if let lines = environment["LINES"].flatMap({ Int($0) }), lines > 0 { return lines }
    var size = winsize()
    guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_row > 0 else { return 24 }
    return Int(size.ws_row)
  }

  /// The pager's command line.
  static func command(_ environment: [String: String]) -> String {
    environment["PAGER"].flatMap { $0.isEmpty ? nil : $0 } ?? "less -R"
  }

  /// Whether the pager shows colour: any but less, and less with -R (or -r) on its command
  /// line or in LESS (R where LESS is unset: `start` sets it).
  static func showsColour(_ environment: [String: String]) -> Bool {
    let words = command(environment).split(separator: " ").map(String.init)
    guard let program = words.first, (program as NSString).lastPathComponent == "less" else {
      return true
    }
    let raw = ["-R", "-r", "--RAW-CONTROL-CHARS", "--raw-control-chars"]
    if words.dropFirst().contains(where: { raw.contains($0) }) { return true }
    guard let less = environment["LESS"] else { return true }
    // LESS holds single-letter options, with or without dashes, and long ones after "--".
    return less.split(separator: " ").contains { word in
      word.hasPrefix("--")
        ? raw.contains(String(word)) : word.contains("R") || word.contains("r")
    }
  }

  /// `text` with its colour sequences (ESC [ … m) taken out.
  static func withoutColour(_ text: String) -> String {
    var out = String.UnicodeScalarView()
    var inSequence = false
    for scalar in text.unicodeScalars {
      if inSequence {
        if scalar == "m" { inSequence = false }
        continue
      }
      if scalar == "\u{1B}" {
        inSequence = true
        continue
      }
      out.append(scalar)
    }
    return String(out)
  }

  /// Starts the pager reading a pipe; its pid and the pipe's writing end.
  static func start(_ environment: [String: String]) -> (pid: pid_t, input: Int32)? {
    let command = command(environment)
    guard let made = Subprocess.pipe() else { return nil }
    let pipe = [made.read, made.write]
    setenv("LESSHISTFILE", "-", 1)
    if environment["LESS"] == nil { setenv("LESS", "R", 1) }
    guard
      let pid = Subprocess.start(
        ["/bin/sh", "-c", command], redirects: [.duplicate(pipe[0], onto: STDIN_FILENO)])
    else {
      close(pipe[0])
      close(pipe[1])
      return nil
    }
    close(pipe[0])
    return (pid, pipe[1])
  }
}
