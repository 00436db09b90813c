import Foundation
import GRDB
import JournalPostgres
import JournalSync
import JournalTestSupport
import Testing

/// A sync server for one test: a database and a role of their own on the private cluster
/// Scripts/test starts (so tests running at once never meet), and a pgpass file with the
/// role's password, as a person would keep it.
final class TestServer {
  static let admin = ProcessInfo.processInfo.environment["JOURNAL_TEST_POSTGRES"]
  static let available = admin != nil

  let home = TemporaryDirectory()
  let role: String
  let database: String
  let url: String
  let pgpass: String
  let host: String
  let port: UInt16
  private let password: String
  /// The admin's connection string for this test's database.
  let adminConninfo: String
  /// The admin, connected to this test's database: the hostile server's hand.
  let tables: PostgresConnection

  init(_ name: String) throws {
    let base = try #require(Self.admin)
    let pairs = Dictionary(
      base.split(separator: " ").map { pair -> (String, String) in
        let kv = pair.split(separator: "=", maxSplits: 1)
        return (String(kv[0]), kv.count > 1 ? String(kv[1]) : "")
      }, uniquingKeysWith: { $1 })
    role = "journal_\(name)_role"
    database = "journal_\(name)"
    password = UUID().uuidString
    let admin = try PostgresConnection(base)
    try admin.execute("DROP DATABASE IF EXISTS \(database) WITH (FORCE)")
    try admin.execute("DROP ROLE IF EXISTS \(role)")
    try admin.execute("CREATE ROLE \(role) LOGIN PASSWORD '\(password)'")
    try admin.execute("CREATE DATABASE \(database) OWNER \(role)")
    host = pairs["host"] ?? "127.0.0.1"
    port = UInt16(pairs["port"] ?? "") ?? 5432
    pgpass = home.write("pgpass", "\(host):\(port):\(database):\(role):\(password)\n")
    url = "postgres://\(role)@\(host):\(port)/\(database)"
    adminConninfo = base.replacingOccurrences(of: "dbname=postgres", with: "dbname=\(database)")
    tables = try PostgresConnection(adminConninfo)
  }

  /// The address of this server through something listening on another port of 127.0.0.1
  /// (a proxy), without TLS, so that the proxy sees PostgreSQL's messages.
  func url(port other: UInt16) -> String {
    "postgres://\(role)@127.0.0.1:\(other)/\(database)?sslmode=disable&gssencmode=disable"
  }

  /// The person's role's own connection string for this test's database.
  var roleConninfo: String {
    "host=\(host) port=\(port) dbname=\(database) user=\(role) password=\(password)"
  }

  /// Another login role on this server: its name and password.
  func addRole(_ name: String) throws -> (name: String, password: String) {
    let admin = try PostgresConnection(adminConninfo)
    let other = "journal_\(name)_other"
    let secret = UUID().uuidString
    try admin.execute("DROP ROLE IF EXISTS \(other)")
    try admin.execute("CREATE ROLE \(other) LOGIN PASSWORD '\(secret)'")
    return (other, secret)
  }

  /// Another role on this server, with a connection of its own to this test's database.
  func otherRole(_ name: String) throws -> PostgresConnection {
    let (other, secret) = try addRole(name)
    return try PostgresConnection(
      "host=\(host) port=\(port) dbname=\(database) user=\(other) password=\(secret)")
  }

  /// A pgpass file with these lines for this server's database, one per role.
  func pgpass(_ name: String, roles: [(name: String, password: String)]) -> String {
    home.write(
      name, roles.map { "\(host):\(port):\(database):\($0.name):\($0.password)\n" }.joined())
  }

  /// The role's own line, as `pgpass(_:roles:)` takes it.
  var login: (name: String, password: String) { (role, password) }

  /// The server's schema version.
  func schemaVersion() throws -> Int64 { try count("SELECT version::bigint FROM journal_schema") }

  /// A pgpass file with the role's password for this server and for `port` too.
  func pgpass(alsoFor other: UInt16) -> String {
    home.write(
      "pgpass-\(other)",
      "\(host):\(port):\(database):\(role):\(password)\n"
        + "127.0.0.1:\(other):\(database):\(role):\(password)\n")
  }

  /// One number from the server's tables.
  func count(_ sql: String) throws -> Int64 {
    let value = try #require(try tables.execute(sql).values.first?.first ?? nil)
    return value.reduce(Int64(0)) { $0 << 8 | Int64($1) }
  }
}

/// One of a person's devices: its own HOME and vault, the journal's passphrase in a file, and
/// the server's password in the pgpass file.
final class Device {
  let home = TemporaryDirectory()
  let runtime = TestRuntimeDirectory()
  let cli: CLI
  let passphraseFile: String
  /// Held so that its pgpass file lives as long as the device.
  let server: TestServer?
  static let passphrase = "a calm and private passphrase"

  init(_ server: TestServer?, passphrase: String = Device.passphrase, pgpass: String? = nil) {
    self.server = server
    passphraseFile = home.write("passphrase", passphrase + "\n")
    // A runtime directory of its own: `journal lock` locks every agent in it, and devices of
    // tests running at once must not lock each other's.
    var extra = ["JOURNAL_PASSPHRASE_FILE": passphraseFile, "XDG_RUNTIME_DIR": runtime.path]
    if let pgpass = pgpass ?? server?.pgpass { extra["PGPASSFILE"] = pgpass }
    cli = CLI(home: home.path, extra: extra)
  }

  @discardableResult
  func run(_ arguments: String..., extra: [String: String] = [:]) -> CLI.Result {
    cli.run(arguments, extra: extra)
  }

  /// Starts `journal arguments…` and leaves it running.
  func start(_ arguments: String..., extra: [String: String] = [:]) -> Spawned {
    let process = Spawned(
      arguments: [CLI.binary] + arguments, environment: cli.environment.merging(extra) { $1 },
      terminal: false)
    process.closeInput()
    return process
  }

  /// Runs `journal arguments…`, ended after `timeout` seconds if it has not ended by then (a
  /// wait with no bound fails its test instead of hanging the run).
  func run(_ arguments: String..., timeout: TimeInterval, extra: [String: String] = [:])
    -> CLI.Result
  {
    let process = Spawned(
      arguments: [CLI.binary] + arguments, environment: cli.environment.merging(extra) { $1 },
      terminal: false)
    process.closeInput()
    return process.wait(timeout: timeout)
  }

  /// A result expected to succeed.
  @discardableResult
  func ok(_ arguments: String..., extra: [String: String] = [:]) -> CLI.Result {
    let result = cli.run(arguments, extra: extra)
    #expect(result.status == 0, "journal \(arguments.joined(separator: " ")): \(result)")
    return result
  }

  /// A new journal with `count` sessions; their ids.
  func initialise(sessions count: Int = 1) -> [String] {
    ok("init", "--kdf", "interactive")
    return (0..<count).map { index in
      ok(
        "new", "--intention", "intention \(index)", "--mood-before", "5", "--date",
        "2026-11-\(10 + index) 18:00", "--treatment", "psilocybin"
      ).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }
  }

  /// Everything the journal holds, as `export --format json` gives it (its time left out).
  func export() -> String {
    let result = cli.run(["export", "--format", "json"])
    #expect(result.status == 0, "\(result)")
    return result.stdout.split(separator: "\n").filter { !$0.contains("\"exported\"") }
      .joined(separator: "\n")
  }

  /// A session's whole id (32 hex digits), as the server stores it, from `show --json`.
  func fullID(_ short: String) -> String {
    let result = cli.run(["show", short, "--json"])
    let object = try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
    return (object?["session"] as? [String: Any])?["id"] as? String ?? short
  }

  /// Scripts/decrypt-vault.py run on this device's vault (with `options`): its exit status
  /// and what it printed.
  func independentRead(_ options: String...) throws -> (
    status: Int32, stdout: String, stderr: String
  ) {
    let read = try IndependentReader.read(
      vault: vaultPath, passphraseFile: passphraseFile, options: options)
    return (read.status, String(decoding: read.stdout, as: UTF8.self), read.stderr)
  }

  /// Edits a vault file directly, as an attacker or a failing disk would.
  static func tamper(_ path: String, _ sql: String) throws {
    let queue = try DatabaseQueue(path: path)
    try queue.write { try $0.execute(sql: sql) }
    try queue.close()
  }

  var vaultPath: String { home.path + "/.local/share/journal/vault.db" }
}
