import Foundation
import Glibc
import JournalSystem

/// Long output at a terminal goes through a pager (`journal show`): $PAGER, else `less -R`,
/// fed through a pipe (nothing touches the disk), with LESSHISTFILE=- so that less keeps no
/// history of what it showed or was searched in it. Never when standard output is not a
/// terminal, nor for text that fits the screen.
public enum Pager {
  /// Shows `text`: through the pager when standard output is a terminal and the text is
  /// taller than it, else written as it is.
  public static func show(_ text: String, environment: [String: String]) throws {
    guard isatty(STDOUT_FILENO) != 0, text.count(where: { $0 == "\n" }) >= rows(environment),
      let pid = start(environment)
    else { return try Runtime.output(text) }
    var bytes = Array(text.utf8)
    defer { for index in bytes.indices { bytes[index] = 0 } }
    // A pager quit early closes the pipe: that ends the showing, not the command.
    let previous = signal(SIGPIPE, SIG_IGN)
    defer { signal(SIGPIPE, previous) }
    var written = 0
    while written < bytes.count {
      let count = bytes.withUnsafeBytes { raw in
        write(
          pid.input, UnsafeRawBufferPointer(rebasing: raw[written...]).baseAddress,
          raw.count - written)
      }
      if count < 0, errno == EINTR { continue }
      guard count > 0 else { break }
      written += count
    }
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

  /// Starts the pager reading a pipe; its pid and the pipe's writing end.
  static func start(_ environment: [String: String]) -> (pid: pid_t, input: Int32)? {
    let command = environment["PAGER"].flatMap { $0.isEmpty ? nil : $0 } ?? "less -R"
    guard let made = Subprocess.pipe() else { return nil }
    let pipe = [made.read, made.write]
    setenv("LESSHISTFILE", "-", 1)
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
