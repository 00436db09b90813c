/// Failures of talking to the sync server. None carries record content: the server only ever
/// holds ciphertext, and PostgreSQL's own messages name hosts, users and databases.
public enum SyncError: Error, Equatable, Sendable {
  /// libpq, PostgreSQL's client library, could not be loaded (Debian's libpq5 is missing).
  case clientLibraryMissing(name: String)
  /// The server could not be reached, or refused the connection: libpq's first line.
  case connection(message: String)
  /// A statement failed on the server: its SQLSTATE and libpq's first line.
  case statement(sqlState: String, message: String)
  /// The server's address was not accepted (before anything connected).
  case badAddress(reason: AddressProblem)

  /// Why an address was not accepted.
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
