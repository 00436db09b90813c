import Glibc

/// Calls that swift-system does not wrap (flock, waitpid, send), retried when a signal
/// interrupts them: the one hand-written EINTR loop, as swift-system's own for read and
/// write. Not for a call a signal must end, or a wait with a deadline.
public enum SystemCall {
  /// `call` again while it fails with EINTR; its result (-1 with errno set on a failure).
  @discardableResult
  public static func retrying<Result: FixedWidthInteger>(_ call: () -> Result) -> Result {
    while true {
      let result = call()
      if result == -1 && errno == EINTR { continue }
      return result
    }
  }
}
