/// Failures of talking to the sync server. None carries record content: the server only ever
/// holds ciphertext, and PostgreSQL's own messages name hosts, users and databases.
public enum SyncError: Error, Equatable, Sendable {
  /// libpq, PostgreSQL's client library, could not be loaded (Debian's libpq5 is missing).
  case clientLibraryMissing(name: String)
  /// The server could not be reached, or refused the connection: libpq's first line.
  case connection(message: String)
  /// A statement failed on the server: its SQLSTATE and libpq's first line.
  case statement(sqlState: String, message: String)
}
