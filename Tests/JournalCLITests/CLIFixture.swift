import Foundation
import GRDB
import JournalTestSupport

/// A person's machine for one test: a private HOME, a passphrase file, and the real binary.
/// Vaults are made with --kdf interactive, the lowest a user can choose.
final class CLIFixture {
  let home = TemporaryDirectory()
  /// Its own runtime directory (the agent's socket, the editor's buffer, the last whole
  /// check), removed with the fixture; a test may name another with `extra`.
  let runtime = TestRuntimeDirectory()
  let cli: CLI
  let passphraseFile: String
  static let passphrase = "a calm and private passphrase"

  init(extra: [String: String] = [:]) {
    passphraseFile = home.write("passphrase", Self.passphrase + "\n")
    var environment = [
      "JOURNAL_PASSPHRASE_FILE": passphraseFile, "XDG_RUNTIME_DIR": runtime.path,
    ]
    environment.merge(extra) { $1 }
    cli = CLI(home: home.path, extra: environment)
  }

  var vaultPath: String { home.path + "/.local/share/journal/vault.db" }

  @discardableResult
  func run(_ arguments: String..., stdin: String = "", extra: [String: String] = [:]) -> CLI.Result
  {
    cli.run(arguments, stdin: stdin, extra: extra)
  }

  /// `journal init --kdf interactive`, expected to succeed.
  @discardableResult
  func initialise() -> CLIFixture {
    let result = run("init", "--kdf", "interactive")
    precondition(result.status == 0, "init failed: \(result)")
    return self
  }

  /// `journal new` with flags; returns the printed id.
  func new(_ extra: String...) -> String {
    let result = cli.run(
      [
        "new", "--intention", "to listen inward", "--mood-before", "5", "--date",
        "2026-11-20 18:00",
      ]
        + extra)
    precondition(result.status == 0, "new failed: \(result)")
    return result.stdout.trimmingCharacters(in: .newlines)
  }

  /// The sessions as `list --json` reports them.
  func sessions() -> [[String: Any]] {
    let result = run("list", "--json")
    let object = try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
    return object?["sessions"] as? [[String: Any]] ?? []
  }

  /// `show --json`'s session object.
  func show(_ id: String) -> [String: Any] {
    let result = run("show", id, "--json")
    let object = try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
    return object?["session"] as? [String: Any] ?? [:]
  }

  /// Edits the vault file directly, as an attacker or a failing disk would, then lets go of it.
  func tamper(_ sql: String, _ arguments: StatementArguments = []) throws {
    let queue = try DatabaseQueue(path: vaultPath)
    try queue.write { try $0.execute(sql: sql, arguments: arguments) }
    try queue.close()
  }
}

extension CLIFixture {
  /// Forgets that the line about sessions waiting was shown today, as a new day would.
  func forgetReminderNote() {
    let seen = home.path + "/.local/state/journal/seen"
    for name in (try? FileManager.default.contentsOfDirectory(atPath: seen)) ?? []
    where name.hasSuffix("-reminder-note") {
      try? FileManager.default.removeItem(atPath: seen + "/" + name)
    }
  }

  /// The short id of the only session, as `list --json` reports it.
  func sessionPrefix() -> String {
    sessions().first?["short_id"] as? String ?? "none"
  }
}
