/// Failures of talking to the sync server. None carries record content: the server only ever
/// holds ciphertext, and PostgreSQL's own messages name hosts, users and databases. What the
/// server (or libpq about it) said is `ServerText`, shown only quoted.
public enum SyncError: Error, Equatable, Sendable {
  /// libpq, PostgreSQL's client library, could not be loaded (Debian's libpq5 is missing).
  case clientLibraryMissing(name: String)
  /// The connection could not be made, and why.
  case connection(ConnectionProblem)
  /// A statement failed on the server: its SQLSTATE and what the server said.
  case statement(sqlState: String, said: ServerText)
  /// The connection was cut in the middle (the network, or the server ending it).
  case cut(said: ServerText)
  /// A wait reached its bound (SyncBounds), after this many milliseconds.
  case waited(SyncWait, milliseconds: Int)
  /// The server's address was not accepted (before anything connected).
  case badAddress(reason: AddressProblem)

  /// Why a connection was not made. Roles and databases are as this device asked for them.
  public enum ConnectionProblem: Equatable, Sendable {
    /// Nothing answered as a PostgreSQL server would: what libpq said.
    case unreachable(said: ServerText)
    /// The server asks for a password, and none was found for it (`~/.pgpass`, `PGPASSFILE`,
    /// a service file).
    case noPassword(role: String)
    /// The server refused the password found for the role (SQLSTATE 28P01).
    case passwordRefused(role: String)
    /// The server does not let the role in (28000: no such role, or its pg_hba.conf).
    case roleRefused(role: String, said: ServerText)
    /// The server has no database of that name (3D000).
    case noDatabase(name: String)
    /// Another refusal while connecting: its SQLSTATE and what the server said.
    case refused(sqlState: String, said: ServerText)
  }

  /// What a sync waited for until its bound.
  public enum SyncWait: Equatable, Sendable {
    /// The server to take the connection (TCP, TLS, authentication).
    case connecting
    /// Any answer from a server that had taken the connection.
    case answer
    /// Another session holding the journal on the server (`lock_timeout`).
    case lock
    /// The server to finish a statement (`statement_timeout`).
    case statement
    /// Nothing: this device was quiet inside a transaction for the bound, and the server
    /// ended its session (`idle_in_transaction_session_timeout`); a suspended laptop, say.
    case quietHere
  }

  /// The server's address was not accepted: why.
  public enum AddressProblem: Equatable, Sendable {
    /// It is neither a postgres:// URL nor keyword=value pairs.
    case unreadable
    /// It holds a password.
    case password
    /// The server is not on this computer and the address asks for less than a checked
    /// certificate (sslmode other than verify-full).
    case weakTLS(mode: String)
  }
}
