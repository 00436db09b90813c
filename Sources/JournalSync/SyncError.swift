/// Failures of syncing: talking to the server, and what the engine finds in what it says. None carries record content: the server only ever
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
  /// A sync command on a vault that does not sync.
  case notSetUp
  /// `sync setup`: the server holds another journal for this role.
  case serverHasOther
  /// `sync join`: the server holds no journal for this role, or several.
  case serverEmpty(role: String)
  case serverSeveral(count: Int)
  /// The server's schema is newer than this journal reads.
  case serverNewer(found: Int, supported: Int)
  /// Another device wrote sync data in a later layout than this journal reads.
  case newerData(found: Int, supported: Int)
  /// The sync server's copy is not as this journal's devices left it; nothing was applied.
  case tampered(SyncTamper)
  /// A session's row opens with this journal's key (so one of its devices sealed it, and the
  /// server did not change it) but does not hold a session this journal can read: a device
  /// sealed it damaged. Nothing was applied.
  case damagedRow(id: String)
  /// Other devices kept writing while this one tried to; nothing was lost.
  case keptMoving
  /// The server holds no copy of this journal for the role this device connected as, though
  /// this device has read `read` changes of it: another role than before, or the server lost
  /// it.
  case journalNotOnServer(role: String, read: Int64)
  /// Another device changed the journal's data key (`passwd --new-key`) at change `seq`, a
  /// change this device's key authenticates: it follows only with the new passphrase.
  case keyChanged(seq: Int64)
  /// Another foreground sync of this vault on this computer holds its lock and has made no
  /// progress for this long: stopped (Ctrl-Z?) or stuck; it was left alone.
  case lockStuck(pid: Int32, seconds: Int)

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

/// What a sync found wrong with the server's copy (SECURITY.md, "Sync", what the server
/// cannot do unnoticed). Names ids and change numbers only.
public enum SyncTamper: Equatable, Sendable {
  /// The server shows fewer changes than this device has already read: rolled back.
  case rolledBack(seen: Int64, shown: Int64)
  /// The change this device last read is not the one the server shows there: another
  /// history was shown to another device (a fork), or the server rewrote it.
  case forked(seq: Int64)
  /// A change is missing, out of order, or does not authenticate.
  case brokenChain(seq: Int64)
  /// A session's row is not the one its change wrote (altered, replayed, or another vault's).
  case changedRow(id: String)
  /// A change's row is missing.
  case droppedChange(id: String)
  /// The key header is not the one the last change that set it wrote.
  case changedHeader
}
