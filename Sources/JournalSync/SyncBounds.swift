/// How long sync waits for anything, in milliseconds: no wait of a sync is without a bound
/// (issue 33). The defaults are for people; a debug build lets a test make them short.
///
/// Three are the server's own, set by the client on its session, so that they hold whatever
/// the server's settings are: `lock_timeout` (another device's push holding the journal's
/// row), `statement_timeout` (one statement), and `idle_in_transaction_session_timeout` (this
/// device gone quiet inside a transaction: a lid closed mid-sync; the server then ends the
/// session and lets go of what it held). The others journal keeps itself, on the socket:
/// connecting, and any answer at all (a server, or something between, that accepted the
/// connection and then went silent: no setting on the server can bound that). TCP keepalives
/// go in the connection parameters, so that a peer that vanished is noticed by the kernel.
public struct SyncBounds: Sendable, Equatable {
  /// Connecting: TCP, TLS and authentication together (libpq's `connect_timeout`, which the
  /// asynchronous calls leave to the caller).
  public var connect: Int
  /// Another session holding a lock this one needs (`lock_timeout`).
  public var lock: Int
  /// One statement on the server (`statement_timeout`).
  public var statement: Int
  /// This session quiet inside a transaction (`idle_in_transaction_session_timeout`). A pull
  /// merges a batch into the vault between two statements of its transaction: seconds at most.
  public var idle: Int
  /// Any answer from the server once a statement is sent, kept by journal itself: longer
  /// than `statement`, so that a server that answers at all says why it stopped.
  public var answer: Int

  public init(connect: Int, lock: Int, statement: Int, idle: Int, answer: Int) {
    self.connect = connect
    self.lock = lock
    self.statement = statement
    self.idle = idle
    self.answer = answer
  }

  /// 10 s to connect (libpq's own examples use 10), 15 s for another device's push (a push
  /// of 1,000 sessions takes about a second), 30 s for a statement or a quiet transaction,
  /// 45 s for any answer.
  public static let standard = SyncBounds(
    connect: 10_000, lock: 15_000, statement: 30_000, idle: 30_000, answer: 45_000)
}
