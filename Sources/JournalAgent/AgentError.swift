/// Failures of the unlock agent's own work: its socket and its start.
public enum AgentError: Error, Equatable, Sendable {
  /// The socket could not be made, bound or listened on (errno says why).
  case socket(path: String, errno: Int32)
  /// The socket's path is longer than a Unix socket address holds.
  case socketPathTooLong(path: String)
  /// The agent process could not be started, or did not say it was ready.
  case notStarted
  /// Another agent of the same vault did not stop when asked, within a few seconds.
  case stillRunning
  /// `count` agents took a request and did not answer it (stopped, or hung; or, asked to
  /// lock, answered with an error): they may still hold their keys. `processes`: the ids
  /// of those the kernel named.
  case notAnswering(count: Int, processes: [Int32])
}

extension AgentError {
  /// One agent that took a request and did not answer, named when the kernel said.
  public static func notAnswering(process: Int32?) -> AgentError {
    .notAnswering(count: 1, processes: process.map { [$0] } ?? [])
  }
}
