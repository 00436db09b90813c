import JournalPostgres
import JournalSync
import Testing

/// A sync server's address is checked before anything connects (issue 19): no password in it,
/// and a server not on this computer reached only with its certificate checked.
struct ServerAddressTests {
  /// The address with PGCONNECT_TIMEOUT set, so that only what the TLS rule adds is seen
  /// (`connectTimeout` checks what is added without it).
  func address(_ text: String, environment: [String: String] = [:]) throws -> ServerAddress {
    try ServerAddress(text, environment: environment.merging(["PGCONNECT_TIMEOUT": "5"]) { $1 })
  }

  func problem(_ text: String, environment: [String: String] = [:]) -> SyncError? {
    do {
      _ = try ServerAddress(text, environment: environment)
      return nil
    } catch {
      return error
    }
  }

  /// A password in a URL's user info, in its query, or as a keyword is refused, even for a
  /// server on this computer: it belongs in `~/.pgpass`.
  @Test(arguments: [
    "postgres://me:pw@db.example.org/journal",
    "postgresql://me:pw@localhost/journal",
    "postgres://db.example.org/journal?password=pw",
    "host=db.example.org user=me password=pw dbname=journal",
    "host=localhost password='p w'",
  ])
  func passwordIsRefused(text: String) {
    #expect(problem(text) == .badAddress(reason: .password))
  }

  /// A remote server gets `sslmode=verify-full`: after the URL's query if it has one, else as
  /// its query; after the keywords with a space.
  @Test(arguments: [
    ("postgres://db.example.org/journal", "postgres://db.example.org/journal?sslmode=verify-full"),
    (
      "postgresql://me@db.example.org:5432/journal?connect_timeout=10",
      "postgresql://me@db.example.org:5432/journal?connect_timeout=10&sslmode=verify-full"
    ),
    (
      "host=db.example.org dbname=journal", "host=db.example.org dbname=journal sslmode=verify-full"
    ),
    (
      "hostaddr=203.0.113.7 dbname=journal",
      "hostaddr=203.0.113.7 dbname=journal sslmode=verify-full"
    ),
    (
      "postgres://localhost,db.example.org/journal",
      "postgres://localhost,db.example.org/journal?sslmode=verify-full"
    ),
  ])
  func remoteGetsVerifyFull(text: String, conninfo: String) throws {
    // When
    let checked = try address(text)
    // Then
    #expect(checked.conninfo == conninfo)
    #expect(checked.given == text)
  }

  /// `sslmode=verify-full` given for a remote server is kept as it is, not added twice.
  @Test(arguments: [
    "postgres://db.example.org/journal?sslmode=verify-full",
    "host=db.example.org sslmode=verify-full dbname=journal",
    "host=db.example.org sslmode='verify-full'",
  ])
  func verifyFullGivenIsKept(text: String) throws {
    #expect(try address(text).conninfo == text)
  }

  /// Anything less than a checked certificate for a remote server is refused, naming the mode.
  @Test(arguments: ["require", "prefer", "disable", "allow", "verify-ca"])
  func weakModeForRemoteIsRefused(mode: String) {
    #expect(
      problem("postgres://db.example.org/journal?sslmode=\(mode)")
        == .badAddress(reason: .weakTLS(mode: mode)))
    #expect(
      problem("host=db.example.org sslmode=\(mode)") == .badAddress(reason: .weakTLS(mode: mode)))
  }

  /// Loopback, a Unix-socket directory (plain or percent-encoded in a URL), or no host at all
  /// (libpq's default socket) needs nothing: what libpq is handed is what was given.
  @Test(arguments: [
    "postgres://localhost/journal",
    "postgres://me@localhost:5432/journal",
    "postgres://127.0.0.1/journal",
    "postgres://[::1]:5432/journal",
    "host=localhost dbname=journal",
    "host=127.0.0.1",
    "host=::1",
    "host=/run/postgresql dbname=journal",
    "postgres://%2Frun%2Fpostgresql/journal",
    "postgres:///journal",
    "dbname=journal",
    "host=localhost sslmode=disable",
  ])
  func loopbackNeedsNothing(text: String) throws {
    // When
    let checked = try address(text)
    // Then
    #expect(checked.conninfo == text)
    #expect(checked.given == text)
  }

  /// A service names its host (and perhaps a hostaddr) in a file journal does not read: it is
  /// treated as remote unless the address itself names a local host and a local hostaddr.
  @Test func serviceIsRemoteUnlessItNamesLocalhost() throws {
    #expect(try address("service=journal").conninfo == "service=journal sslmode=verify-full")
    #expect(
      try address("service=journal host=localhost hostaddr=::1").conninfo
        == "service=journal host=localhost hostaddr=::1")
    #expect(
      try address("dbname=journal", environment: ["PGSERVICE": "journal"]).conninfo
        == "dbname=journal sslmode=verify-full")
  }

  /// `PGHOST` decides when the address names no host, and is ignored when it names one.
  @Test func pgHostIsUsedWhenNoHostIsNamed() throws {
    // Given
    let remote = ["PGHOST": "db.example.org"]
    let socket = ["PGHOST": "/run/postgresql"]
    // Then
    #expect(
      try address("dbname=journal", environment: remote).conninfo
        == "dbname=journal sslmode=verify-full")
    #expect(
      try address("postgres:///journal", environment: remote).conninfo
        == "postgres:///journal?sslmode=verify-full")
    #expect(try address("dbname=journal", environment: socket).conninfo == "dbname=journal")
    #expect(
      try address("host=localhost dbname=journal", environment: remote).conninfo
        == "host=localhost dbname=journal")
    #expect(
      problem("dbname=journal sslmode=require", environment: remote)
        == .badAddress(reason: .weakTLS(mode: "require")))
  }

  /// Nothing, a line break, and text that is neither a URL nor keywords are unreadable.
  @Test(arguments: [
    "", "   ", "host=localhost\ndbname=journal", "host=db.example.org\n", "justgarbage",
    "host=localhost dbname", "host='unclosed", "postgres://db.example.org/journal?sslmode",
  ])
  func unreadable(text: String) {
    #expect(problem(text) == .badAddress(reason: .unreadable))
  }

  /// `given` is the text as given, trimmed of the spaces around it; `sslmode` goes after it.
  @Test func givenIsTrimmed() throws {
    // When
    let remote = try address("  postgres://db.example.org/journal \t")
    let local = try address(" host=localhost ")
    // Then
    #expect(remote.given == "postgres://db.example.org/journal")
    #expect(remote.conninfo == "postgres://db.example.org/journal?sslmode=verify-full")
    #expect(local.given == "host=localhost")
    #expect(local.conninfo == "host=localhost")
  }

  // MARK: - Found wanting (see the report with these tests)

  /// A host name that only begins with "127." is a name like any other, looked up in DNS:
  /// not loopback, so it needs a checked certificate.
  @Test func hostNameStartingWith127IsRemote() throws {
    #expect(
      try address("host=127.example.org").conninfo == "host=127.example.org sslmode=verify-full")
    #expect(
      try address("postgres://127.0.0.1.nip.io/journal").conninfo
        == "postgres://127.0.0.1.nip.io/journal?sslmode=verify-full")
  }

  /// Where `hostaddr` is given (in the address or as `PGHOSTADDR`), libpq connects to it and
  /// uses `host` only as the name to check: a remote `hostaddr` needs a checked certificate
  /// whatever `host` says.
  @Test func remoteHostAddrNeedsVerifyFull() throws {
    #expect(
      try address("host=localhost hostaddr=203.0.113.7").conninfo
        == "host=localhost hostaddr=203.0.113.7 sslmode=verify-full")
    #expect(
      try address("postgres://localhost/journal?hostaddr=203.0.113.7").conninfo
        == "postgres://localhost/journal?hostaddr=203.0.113.7&sslmode=verify-full")
    #expect(
      try address("dbname=journal", environment: ["PGHOSTADDR": "203.0.113.7"]).conninfo
        == "dbname=journal sslmode=verify-full")
  }

  /// Without a timeout of the person's, one of 10 s is added: a server that never answers
  /// does not hold a sync (or a background one) for ever.
  @Test func connectTimeout() throws {
    #expect(
      try ServerAddress("host=localhost dbname=j", environment: [:]).conninfo
        == "host=localhost dbname=j connect_timeout=10")
    #expect(
      try ServerAddress("postgres://localhost/j", environment: [:]).conninfo
        == "postgres://localhost/j?connect_timeout=10")
    #expect(
      try ServerAddress("host=localhost connect_timeout=3", environment: [:]).conninfo
        == "host=localhost connect_timeout=3")
  }

  /// libpq decodes a URL's query keywords and lets its host override the one before the
  /// path: neither slips a password or a remote host past the checks; an sslpassword is a
  /// secret too.
  @Test func encodedAndOverridingKeywords() throws {
    #expect(problem("postgres://localhost/j?pass%77ord=pw") == .badAddress(reason: .password))
    #expect(problem("host=localhost sslpassword=pw") == .badAddress(reason: .password))
    #expect(
      try address("postgres://localhost/j?host=db.example.org").conninfo
        == "postgres://localhost/j?host=db.example.org&sslmode=verify-full")
    #expect(
      try address("postgres://localhost/j?h%6Fst=db.example.org").conninfo
        == "postgres://localhost/j?h%6Fst=db.example.org&sslmode=verify-full")
    // A service's file may name any hostaddr: local only when both are given and local.
    #expect(
      try address("service=j host=localhost").conninfo
        == "service=j host=localhost sslmode=verify-full")
    #expect(
      try address("service=j host=localhost hostaddr=127.0.0.1").conninfo
        == "service=j host=localhost hostaddr=127.0.0.1")
  }

  /// A backslash escapes the next character as libpq reads it: an escaped space keeps
  /// `sslmode=verify-full` inside another value, where it checks nothing; a backslash at the
  /// end would swallow what journal adds.
  @Test func backslashesAsLibpqReadsThem() throws {
    #expect(
      try address(#"host=db.example.org dbname=journal\ sslmode=verify-full"#).conninfo
        == #"host=db.example.org dbname=journal\ sslmode=verify-full sslmode=verify-full"#)
    #expect(problem(#"host=db.example.org dbname=journal\"#) == .badAddress(reason: .unreadable))
  }
}
