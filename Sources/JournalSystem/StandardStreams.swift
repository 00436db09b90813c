import Glibc
import SystemPackage

/// The one way journal writes to standard output and standard error.
///
/// Foundation's `FileHandle.write` traps on Linux when the write fails (`> /dev/full`, a
/// closed pipe), ending the process without a word; every write here retries on EINTR and
/// reports a failure instead. (A reader that closes the pipe early, as `| head` does, still
/// ends journal by SIGPIPE, quietly, as it ends cat.)
public enum StandardStreams {
  /// Writes `text` to standard output, all of it, or throws.
  public static func output(_ text: String) throws(SystemError) {
    try output(Array(text.utf8))
  }

  /// Writes `bytes` to standard output, all of them, or throws.
  public static func output(_ bytes: [UInt8]) throws(SystemError) {
    do {
      _ = try bytes.withUnsafeBytes { try FileDescriptor.standardOutput.writeAll($0) }
    } catch {
      throw .standardOutput(errno: (error as? Errno)?.rawValue ?? EIO)
    }
  }

  /// Writes one line to standard error. A message that cannot be written has nowhere else to
  /// go, so a failure is ignored (the exit code still tells).
  public static func errorLine(_ text: String) {
    let line = Array((text + "\n").utf8)
    _ = try? line.withUnsafeBytes { try FileDescriptor.standardError.writeAll($0) }
  }
}
