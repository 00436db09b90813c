import Foundation
import Glibc

/// SIGTERM, SIGINT and SIGHUP ask a long-running process (the unlock agent, the reminder
/// daemon) to stop. The handler sets a flag and writes a byte to a pipe, so a `poll` that
/// watches `wakeFD` wakes at once, even for a signal that lands just before it starts.
public enum StopSignal {
  nonisolated(unsafe) private static var flag: sig_atomic_t = 0
  nonisolated(unsafe) private static var readFD: Int32 = -1
  nonisolated(unsafe) private static var writeFD: Int32 = -1

  public static var requested: Bool { flag != 0 }
  /// Readable once a stop is asked for.
  public static var wakeFD: Int32 { readFD }

  /// The wake pipe, made once per process however many times `install` runs (the agent
  /// tests serve many agents in one process).
  private static let wakePipe: [Int32]? = {
    var fds: [Int32] = [0, 0]
    guard pipe(&fds) == 0 else { return nil }
    for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
    _ = fcntl(fds[1], F_SETFL, O_NONBLOCK)
    return fds
  }()

  public static func install() {
    if let fds = wakePipe {
      readFD = fds[0]
      writeFD = fds[1]
    }
    // Read here, so that the handler is never the first to touch (and initialise) it.
    _ = requested
    for number in [SIGTERM, SIGINT, SIGHUP] {
      var action = sigaction()
      action.__sigaction_handler.sa_handler = { _ in StopSignal.set() }
      sigemptyset(&action.sa_mask)
      action.sa_flags = 0  // no SA_RESTART: poll returns EINTR at once
      sigaction(number, &action, nil)
    }
  }

  /// Sleeps up to `seconds`, waking as soon as a stop is asked for.
  public static func sleep(_ seconds: Double) {
    guard !requested else { return }
    var descriptor = pollfd(fd: readFD, events: Int16(POLLIN), revents: 0)
    _ = poll(&descriptor, 1, Int32(max(0, min(seconds, 3600)) * 1000))
  }

  // Async-signal-safe: a store and a write(2).
  private static func set() {
    flag = 1
    var byte: UInt8 = 1
    _ = Glibc.write(writeFD, &byte, 1)
  }
}
