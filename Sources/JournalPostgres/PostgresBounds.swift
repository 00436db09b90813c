import JournalSync

/// How PostgreSQL is told the bounds of a sync's waits (SyncBounds): in its connection
/// parameters, and as settings of the session.
extension SyncBounds {
  /// TCP keepalives, in the connection parameters (a value the address gives wins): the
  /// first probe after 30 s of silence, then every 10 s; 3 unanswered, and the kernel closes
  /// the connection. Data sent and not acknowledged for 60 s does the same
  /// (`tcp_user_timeout`).
  static let keepalives: [(String, String)] = [
    ("keepalives", "1"), ("keepalives_idle", "30"), ("keepalives_interval", "10"),
    ("keepalives_count", "3"), ("tcp_user_timeout", "60000"),
  ]

  /// The session settings, sent before the first statement (with it, when it is a script).
  var sessionSQL: String {
    "SET lock_timeout = \(lock); SET statement_timeout = \(statement); "
      + "SET idle_in_transaction_session_timeout = \(idle); "
  }
}
