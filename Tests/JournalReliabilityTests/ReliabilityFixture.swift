import Foundation
import GRDB
import Glibc
import JournalTestSupport

/// A person's machine for one reliability run: a private HOME, TMPDIR, runtime directory and
/// drafts directory (all scanned by the leak tests), passphrase files in a directory of their own (outside what is scanned), and
/// the real binary. Vaults are made with --kdf interactive.
final class ReliabilityFixture: @unchecked Sendable {
  let root = TemporaryDirectory()
  private let secretsDirectory = TemporaryDirectory()
  /// A tmpfs one, as journal takes only such a runtime directory: one under `root` (a disk)
  /// was passed over for /dev/shm/journal-<uid>, shared, left behind, and never scanned.
  private let runtimeDirectory = TestRuntimeDirectory()
  let home: String
  let tmp: String
  let runtime: String
  let secrets: String
  var passphrase: String
  private(set) var cli: CLI
  static let passphrase = "a calm and private passphrase"
  static let otherPassphrase = "another calm passphrase, changed"

  init(extra: [String: String] = [:]) {
    home = root.file("home")
    tmp = root.file("tmp")
    runtime = runtimeDirectory.path
    secrets = secretsDirectory.path
    for directory in [home, tmp] { mkdir(directory, 0o700) }
    passphrase = Self.passphrase
    for (name, text) in [("pass", Self.passphrase), ("other", Self.otherPassphrase)] {
      secretsDirectory.write(name, text + "\n")
    }
    var environment = [
      "JOURNAL_PASSPHRASE_FILE": secrets + "/pass", "TMPDIR": tmp, "XDG_RUNTIME_DIR": runtime,
    ]
    environment.merge(extra) { $1 }
    cli = CLI(home: home, extra: environment)
  }

  var vaultPath: String { home + "/.local/share/journal/vault.db" }
  var draftsPath: String { home + "/.local/state/journal/drafts" }

  /// Makes the other passphrase the one given to every later run (after a `passwd`).
  func usePassphrase(_ text: String) {
    passphrase = text
    let file = text == Self.passphrase ? "pass" : "other"
    cli = CLI(
      home: home,
      extra: cli.environment.merging(["JOURNAL_PASSPHRASE_FILE": secrets + "/" + file]) { $1 })
  }

  @discardableResult
  func run(_ arguments: String..., stdin: String = "", extra: [String: String] = [:]) -> CLI.Result
  {
    cli.run(arguments, stdin: stdin, extra: extra)
  }

  @discardableResult
  func initialise() -> ReliabilityFixture {
    let result = run("init", "--kdf", "interactive")
    precondition(result.status == 0, "init failed: \(result)")
    return self
  }

  /// `journal new` with flags; returns the printed id, or nil if it failed.
  func new(intention: String, _ extra: String...) -> String? {
    let result = cli.run(
      ["new", "--intention", intention, "--mood-before", "5", "--date", "2026-11-20 18:00"]
        + extra)
    guard result.status == 0 else { return nil }
    return result.stdout.trimmingCharacters(in: .newlines)
  }

  /// `show --json`'s session object, or nil when it does not show.
  func show(_ id: String) -> [String: Any]? {
    let result = run("show", id, "--json")
    guard result.status == 0 else { return nil }
    let object = try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
    return object?["session"] as? [String: Any]
  }

  /// The short ids (as `new` prints them) of the sessions `list --json` shows.
  func ids() -> [String] {
    let result = run("list", "--json")
    let object = try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
    let sessions = object?["sessions"] as? [[String: Any]] ?? []
    return sessions.compactMap { $0["short_id"] as? String }
  }

  /// Edits the vault file directly, as an attacker or a failing disk would. CHECK
  /// constraints are ignored: an attacker editing bytes is not held to them.
  func tamper(_ sql: String, _ arguments: StatementArguments = []) throws {
    let queue = try DatabaseQueue(path: vaultPath)
    try queue.writeWithoutTransaction { db in
      try db.execute(sql: "PRAGMA ignore_check_constraints = ON")
      try db.execute(sql: sql, arguments: arguments)
    }
    try queue.close()
  }

  /// One column of one row, as stored.
  func blob(_ table: String, _ column: String, id: String) throws -> Data {
    let queue = try DatabaseQueue(path: vaultPath)
    defer { try? queue.close() }
    return try queue.read { db in
      try Data.fetchOne(
        db, sql: "SELECT \(column) FROM \(table) WHERE id LIKE ?", arguments: [id + "%"])
    } ?? Data()
  }
}

/// What a failed run must look like: a documented non-zero exit, a `journal: error:` line,
/// at most a hint after it, and no crash.
func isCleanFailure(_ result: CLI.Result, _ codes: Set<Int32>) -> Bool {
  let lines = result.stderr.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
  let errors = lines.filter { $0.hasPrefix("journal: error: ") }
  // Stopping and "nothing to undo" are ordinary events, said without "error:".
  let ordinary = errors.isEmpty && [6, 130].contains(result.status) && !lines.isEmpty
  return codes.contains(result.status) && (errors.count == 1 || ordinary)
    && lines.allSatisfy { $0.hasPrefix("journal: ") }
    && !result.stderr.contains("Fatal error") && lines.count <= 4
}
