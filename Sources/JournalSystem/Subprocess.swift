import CJournalSystem
import Foundation
import Glibc

/// Starting and waiting for the programs journal runs: the passphrase command, the editor,
/// the notifier, and the unlock agent. posix_spawn, never fork: a forked Swift process may
/// only call async-signal-safe functions before exec.
public enum Subprocess {
  /// One redirection of the child's descriptors.
  public enum Redirect {
    /// Duplicates our descriptor onto the child's.
    case duplicate(Int32, onto: Int32)
    /// Opens a path onto the child's descriptor.
    case open(String, flags: Int32, onto: Int32)
  }

  /// Starts `arguments` (the program searched in PATH when `search`), in a new session when
  /// `newSession`. Returns its pid, or nil when it could not start.
  public static func start(
    _ arguments: [String], redirects: [Redirect] = [], search: Bool = false,
    newSession: Bool = false
  ) -> pid_t? {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    for redirect in redirects {
      switch redirect {
      case .duplicate(let fd, let target):
        posix_spawn_file_actions_adddup2(&actions, fd, target)
      case .open(let path, let flags, let target):
        posix_spawn_file_actions_addopen(&actions, target, path, flags, 0)
      }
    }
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    if newSession { posix_spawnattr_setflags(&attributes, 0x80) }  // POSIX_SPAWN_SETSID
    var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    var pid: pid_t = 0
    let status =
      search
      ? posix_spawnp(&pid, arguments[0], &actions, &attributes, &argv, environ)
      : posix_spawn(&pid, arguments[0], &actions, &attributes, &argv, environ)
    return status == 0 ? pid : nil
  }

  /// A pipe whose ends are closed on exec (a child gets only what is redirected onto its
  /// descriptors): its reading and writing ends, or nil.
  public static func pipe() -> (read: Int32, write: Int32)? {
    var fds: [Int32] = [0, 0]
    guard journal_pipe(&fds) == 0 else { return nil }
    return (fds[0], fds[1])
  }

  /// Runs `arguments` (stdin from /dev/null, stderr discarded) and reads what it writes to
  /// standard output, at most `limit` bytes; its exit status (see `wait`, with `timeout`)
  /// and that output, or nil when it could not start.
  public static func capture(
    _ arguments: [String], limit: Int, timeout: TimeInterval? = nil
  ) -> (status: Int32, output: [UInt8])? {
    guard let pipe = pipe() else { return nil }
    let started = start(
      arguments,
      redirects: [
        .open("/dev/null", flags: O_RDONLY, onto: STDIN_FILENO),
        .duplicate(pipe.write, onto: STDOUT_FILENO),
        .open("/dev/null", flags: O_WRONLY, onto: STDERR_FILENO),
      ])
    close(pipe.write)
    // At most `limit` bytes: reading stops once that many came.
    var output = limit > 0 ? (try? Descriptor(pipe.read).readAll(limit: limit - 1)) ?? [] : []
    if output.count > limit { output.removeLast(output.count - limit) }
    close(pipe.read)
    guard let started else { return nil }
    return (wait(started, timeout: timeout), output)
  }

  /// Waits for `pid` to end and returns its exit status (128 + the signal that ended it).
  /// With a `timeout`, a child still running then is killed and 124 returned.
  public static func wait(_ pid: pid_t, timeout: TimeInterval? = nil) -> Int32 {
    var status: Int32 = 0
    if let timeout {
      let deadline = Deadline(in: timeout)
      while true {
        let done = waitpid(pid, &status, WNOHANG)
        if done == pid { break }
        // Polled against a deadline (WNOHANG), so not SystemCall.retrying: after a signal
        // (EINTR) the deadline is checked, then it looks again.
        if done < 0 && errno != EINTR { return 127 }
        if deadline.hasPassed {
          kill(pid, SIGKILL)
          SystemCall.retrying { waitpid(pid, &status, 0) }
          return 124
        }
        usleep(10_000)
      }
    } else {
      SystemCall.retrying { waitpid(pid, &status, 0) }
    }
    // WIFEXITED / WEXITSTATUS, spelled out: Swift does not import the macros.
    return status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
  }
}
