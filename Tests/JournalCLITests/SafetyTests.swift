import Foundation
import GRDB
import Glibc
import JournalTestSupport
import Testing

/// What the binary leaves behind and how it holds up, seen from outside the process.
@Suite(.serialized) struct SafetyTests {
  /// After a scenario of every command, no word typed into a session is anywhere under
  /// HOME (vault, WAL, SHM, anything else) or in any error message.
  @Test func nothingReadableOnDisk() {
    // Given words that appear nowhere else
    let f = CLIFixture().initialise()
    let words = ["WILLOWBARK", "QUARTZRIVER", "OTTERLIGHT", "MOSSGLASS", "EMBERFERN", "Tilia-brew"]
    let id = f.new("--treatment", "other:Tilia-brew", "--dose", "WILLOWBARK dose")
    f.run("reflect", id, "--environment", "QUARTZRIVER room", "--music", "OTTERLIGHT")
    f.run("edit", id, "--intention", "MOSSGLASS intention")
    let reflected = f.run("reflect", id, "--reflection", "-", stdin: "EMBERFERN reflection")
    let failures = [
      f.run("new", "--intention", "OTTERLIGHT", "--mood-before", "12"),
      f.run("new", "--intention", "OTTERLIGHT", "--mood-before", "5", "--treatment", "WILLOWBARK"),
      f.run("edit", id, "--date", "QUARTZRIVER"),
    ]
    // Then
    #expect(reflected.status == 0)
    for result in failures + [reflected] {
      #expect(
        result.status != 0 || result.stderr.isEmpty
          || !words.contains { result.stderr.contains($0) })
      for word in words { #expect(!result.stderr.contains(word), "\(word) in stderr") }
    }
    let files = f.home.allFiles()
    #expect(files.contains { $0.path.hasSuffix("vault.db") })
    for file in files {
      for word in words {
        #expect(file.bytes.range(of: Data(word.utf8)) == nil, "\(word) in \(file.path)")
      }
    }
  }

  /// The vault directory is 0700 and every file in it 0600.
  @Test func privateFiles() {
    let f = CLIFixture().initialise()
    _ = f.new()
    var info = stat()
    let directory = (f.vaultPath as NSString).deletingLastPathComponent
    lstat(directory, &info)
    #expect(info.st_mode & 0o777 == 0o700)
    for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] {
      lstat(directory + "/" + name, &info)
      #expect(info.st_mode & 0o777 == 0o600, "\(name)")
    }
  }

  /// A tampered session is reported by id with exit code 5; the others are still listed.
  @Test func damagedSessionIsIsolated() throws {
    let f = CLIFixture().initialise()
    let good = f.new()
    let bad = f.new("--date", "2026-11-19 10:00")
    try f.tamper("UPDATE session SET body = zeroblob(length(body)) WHERE id LIKE ?", [bad + "%"])
    let list = f.run("list")
    #expect(list.status == 0, "a damaged body does not stop the list, which reads summaries")
    #expect(list.stdout.contains(good) && list.stdout.contains(bad))
    let show = f.run("show", bad)
    #expect(show.status == 5)
    #expect(
      show.stderr == """
        journal: error: session "\(bad)" is damaged and cannot be read
        journal: hint: the other sessions are unaffected

        """)
    #expect(f.run("show", good).status == 0)
    try f.tamper(
      "UPDATE session SET summary = zeroblob(length(summary)) WHERE id LIKE ?", [bad + "%"])
    let damagedList = f.run("list")
    #expect(damagedList.status == 5)
    #expect(damagedList.stdout.contains(good))
    #expect(!damagedList.stdout.contains(bad))
    #expect(
      damagedList.stderr.contains(
        "journal: error: session \"\(bad)\" is damaged and cannot be read"))
  }

  /// Stored Argon2id limits outside INTERACTIVE…SENSITIVE are refused before deriving.
  @Test(arguments: [(1, 67_108_864), (2, 4_294_967_296), (9, 268_435_456)] as [(Int64, Int64)])
  func tamperedLimits(ops: Int64, mem: Int64) throws {
    let f = CLIFixture().initialise()
    let queue = try DatabaseQueue(path: f.vaultPath)
    try queue.write { db in
      try db.execute(
        sql: "UPDATE vault SET kdf_opslimit = ?, kdf_memlimit = ?", arguments: [ops, mem])
    }
    try queue.close()
    let result = f.run("list")
    #expect(result.status == 5)
    #expect(
      result.stderr.hasPrefix(
        "journal: error: the vault asks for key-derivation limits outside the accepted range"))
  }

  /// While journal waits for a passphrase its core-dump limit is zero.
  @Test func coreDumpsOff() throws {
    let f = CLIFixture().initialise()
    let process = f.cli.interactive(["list"], extra: ["JOURNAL_PASSPHRASE_FILE": ""])
    #expect(process.expect("Passphrase: "))
    let limits = (try? String(contentsOfFile: "/proc/\(process.pid)/limits", encoding: .utf8)) ?? ""
    let line = limits.split(separator: "\n").first { $0.hasPrefix("Max core file size") } ?? ""
    #expect(
      line.split(separator: " ", omittingEmptySubsequences: true).dropFirst(4).prefix(2) == [
        "0", "0",
      ])
    process.write("\u{03}")
    _ = process.wait()
  }

  /// A vault directory open to others is refused with the chmod that fixes it.
  @Test func unsafeDirectory() {
    let f = CLIFixture().initialise()
    let directory = (f.vaultPath as NSString).deletingLastPathComponent
    chmod(directory, 0o755)
    let result = f.run("list")
    #expect(result.status == 8)
    #expect(
      result.stderr == """
        journal: error: "\(directory)" is open to other users (mode 0755)
        journal: hint: run "chmod 0700 \(directory)" and try again

        """)
  }
}
