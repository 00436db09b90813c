import Foundation
import GRDB
import Glibc
import JournalCore
import JournalCrypto
import JournalStore
import JournalTestSupport
import Testing

/// Tampering with a real vault: every stored byte that matters changed, columns swapped,
/// limits moved, the file flipped and truncated. Every case must be detected (or, for the
/// file's own unused bytes, be harmless); none may crash or show a wrong plaintext, and the
/// untouched sessions must still open.
@Suite(.serialized) struct TamperTests {
  static let passphrase = "a passphrase for tests"

  /// A vault of three sessions made with the test KDF limits, and its three originals.
  struct Vault3 {
    let directory = TemporaryDirectory()
    let path: String
    let keys: VaultKeys
    let sessions: [Session]

    init() throws {
      path = directory.file("journal/vault.db")
      let random = SeededRandom(seed: Torture.seed)
      let (keys, header) = try VaultKeys.create(
        passphrase: try SecureBytes(copying: Array(TamperTests.passphrase.utf8)),
        limits: TestKDF.limits, random: random)
      self.keys = keys
      let vault = try Vault.create(at: path, header: header)
      let store = try vault.sessions(keys: keys, random: random)
      var made: [Session] = []
      for seed: UInt8 in 1...3 {
        let draft = SessionDraft(
          id: SessionID(randomBytes: [UInt8](repeating: seed, count: 16)),
          date: TestClock.reference, treatment: .other("Name \(seed)"), dose: "dose \(seed)",
          intention: "intention \(seed)", moodBefore: Mood(Int(seed)))
        var session = try Session.saving(draft, now: TestClock.reference)
        try session.apply(.reflection("reflection \(seed)"), now: TestClock.reference + 1)
        try store.upsert(session)
        made.append(session)
      }
      sessions = made
    }

    /// Runs `sql` on the file, CHECK constraints off, as an attacker editing bytes would.
    func edit(_ sql: String, _ arguments: StatementArguments = []) throws {
      let queue = try DatabaseQueue(path: path)
      try queue.writeWithoutTransaction { db in
        try db.execute(sql: "PRAGMA ignore_check_constraints = ON")
        try db.execute(sql: sql, arguments: arguments)
      }
      try queue.close()
    }

    func blob(_ column: String, table: String = "session", id: String? = nil) throws -> Data {
      let queue = try DatabaseQueue(path: path)
      defer { try? queue.close() }
      let filter = id.map { "WHERE id = '\($0)'" } ?? ""
      return try queue.read { db in
        try Data.fetchOne(db, sql: "SELECT \(column) FROM \(table) \(filter)")
      } ?? Data()
    }

    /// What each session reads as now: the session, or the error it gave.
    func readAll(derive: Bool = false) throws -> [Result<Session, any Error>] {
      let vault = try Vault.open(at: path)
      let keys =
        derive
        ? try VaultKeys.open(
          header: vault.header,
          passphrase: try SecureBytes(copying: Array(TamperTests.passphrase.utf8)),
          policy: TestKDF.policy) : self.keys
      let store = try vault.sessions(keys: keys, random: SeededRandom(seed: 1))
      return sessions.map { original in Result { try store.session(original.id) } }
    }
  }

  /// Each byte (or a sample of them) of every sealed column, flipped: the session it
  /// belongs to is reported damaged, by id; the other two read back exactly.
  @Test func everyCiphertextByte() throws {
    let v = try Vault3()
    var generator = TortureRandom(1)
    let sample = Torture.count("TAMPER_BYTES", light: 24)
    var tried = 0
    var detected = 0
    for (index, session) in v.sessions.enumerated() {
      for column in ["summary", "body"] {
        let original = try v.blob(column, id: session.id.hex)
        for position in generator.positions(original.count, count: sample) {
          var changed = original
          changed[position] ^= UInt8.random(in: 1...255, using: &generator)
          try v.edit(
            "UPDATE session SET \(column) = ? WHERE id = ?", [changed, session.id.hex])
          let results = try v.readAll()
          tried += 1
          for (other, result) in results.enumerated() {
            switch result {
            case .success(let read):
              #expect(other != index, "\(column)[\(position)] flipped and still read")
              #expect(read == v.sessions[other], "wrong plaintext for session \(other)")
            case .failure(let error):
              #expect(other == index, "untouched session \(other) failed: \(error)")
              #expect(error as? StoreError == .damagedRecord(id: session.id.short))
              if other == index { detected += 1 }
            }
          }
          try v.edit("UPDATE session SET \(column) = ? WHERE id = ?", [original, session.id.hex])
        }
      }
    }
    #expect(tried == detected)
    Torture.report("tamper ciphertext bytes", ["tried": tried, "detected": detected])
  }

  /// Each byte of the vault id, salt and wrapped key, flipped: the key does not open (the
  /// salt and wrapped key look like a wrong passphrase; the vault id is a mismatch).
  @Test func everyHeaderByte() throws {
    let v = try Vault3()
    var generator = TortureRandom(2)
    let sample = Torture.count("TAMPER_HEADER_BYTES", light: 8)
    var tried = 0
    var detected = 0
    let passphrase = try SecureBytes(copying: Array(Self.passphrase.utf8))
    for column in ["vault_id", "kdf_salt", "wrapped_key"] {
      let original = try v.blob(column, table: "vault")
      for position in generator.positions(original.count, count: sample) {
        var changed = original
        changed[position] ^= UInt8.random(in: 1...255, using: &generator)
        try v.edit("UPDATE vault SET \(column) = ?", [changed])
        tried += 1
        do {
          let vault = try Vault.open(at: v.path)
          _ = try VaultKeys.open(
            header: vault.header, passphrase: passphrase, policy: TestKDF.policy)
          Issue.record("\(column)[\(position)] flipped and the key still opened")
        } catch let error as CryptoError {
          #expect(error == (column == "vault_id" ? .vaultMismatch : .wrongPassphrase))
          detected += 1
        }
        try v.edit("UPDATE vault SET \(column) = ?", [original])
      }
      // A field of the wrong length or type is not a vault header at all.
      for wrong in [Data(original.dropLast()), original + Data([0]), Data()]
        as [any DatabaseValueConvertible]
        + [42, "text"]
      {
        try v.edit("UPDATE vault SET \(column) = ?", [wrong])
        tried += 1
        #expect(throws: StoreError.notAVault(path: v.path)) { try Vault.open(at: v.path) }
        detected += 1
      }
      try v.edit("UPDATE vault SET \(column) = ?", [original])
    }
    #expect(try v.readAll().allSatisfy { (try? $0.get()) != nil }, "restored header opens")
    #expect(tried == detected)
    Torture.report("tamper header bytes", ["tried": tried, "detected": detected])
  }

  /// Stored KDF limits lowered below INTERACTIVE or raised above SENSITIVE are refused
  /// before any derivation; moved within the range they give a wrong key.
  @Test func kdfLimits() throws {
    let v = try Vault3()
    let passphrase = try SecureBytes(copying: Array(Self.passphrase.utf8))
    let outside: [(Int64, Int64)] = [
      (1, 67_108_864), (0, 67_108_864), (5, 67_108_864), (2, 67_108_863), (2, 1_073_741_825),
      (2, 4_294_967_296), (Int64.max, 67_108_864), (2, Int64.max), (-1, 67_108_864),
      (2, -67_108_864), (1, 8192),
    ]
    var detected = 0
    for (ops, mem) in outside {
      try v.edit("UPDATE vault SET kdf_opslimit = ?, kdf_memlimit = ?", [ops, mem])
      do {
        let vault = try Vault.open(at: v.path)
        _ = try VaultKeys.open(header: vault.header, passphrase: passphrase, policy: .standard)
        Issue.record("limits \(ops), \(mem) accepted")
      } catch let error as CryptoError {
        #expect(
          error == .kdfLimitsOutOfRange(opsLimit: UInt64(ops), memLimit: UInt64(mem)),
          "\(ops) \(mem)")
        detected += 1
      } catch let error as StoreError {
        // Zero or negative limits are not a well-formed header at all.
        #expect(error == .notAVault(path: v.path) && (ops <= 0 || mem <= 0), "\(ops) \(mem)")
        detected += 1
      }
    }
    // Within the test policy's range but not the stored ones: the key is simply wrong.
    for (ops, mem) in [(2, 8192), (1, 16384)] as [(Int64, Int64)] {
      try v.edit("UPDATE vault SET kdf_opslimit = ?, kdf_memlimit = ?", [ops, mem])
      let vault = try Vault.open(at: v.path)
      #expect(throws: CryptoError.wrongPassphrase) {
        try VaultKeys.open(header: vault.header, passphrase: passphrase, policy: TestKDF.policy)
      }
      detected += 1
    }
    #expect(detected == outside.count + 2)
    Torture.report("tamper kdf limits", ["tried": outside.count + 2, "detected": detected])
  }

  /// Ciphertexts swapped between two sessions, and between a session's two columns: exactly
  /// the sessions touched are damaged. A status edited in the clear or an id changed no longer
  /// adds up to the ledger: the vault is refused as tampered with before any session is read
  /// (an empty set of damaged sessions below stands for that).
  @Test func swaps() throws {
    let v = try Vault3()
    let (a, b) = (v.sessions[0].id.hex, v.sessions[1].id.hex)
    let (summaryA, summaryB) = (try v.blob("summary", id: a), try v.blob("summary", id: b))
    let (bodyA, bodyB) = (try v.blob("body", id: a), try v.blob("body", id: b))
    let swap =
      "UPDATE session SET %@ = CASE id WHEN '\(a)' THEN ? ELSE ? END WHERE id IN ('\(a)', '\(b)')"
    let cases: [(String, StatementArguments, Set<Int>)] = [
      (swap.replacingOccurrences(of: "%@", with: "summary"), [summaryB, summaryA], [0, 1]),
      (swap.replacingOccurrences(of: "%@", with: "body"), [bodyB, bodyA], [0, 1]),
      ("UPDATE session SET summary = body, body = summary WHERE id = '\(a)'", [], [0]),
    ]
    let refused: [(String, StatementArguments)] = [
      ("UPDATE session SET status = 'needs_reflection' WHERE id = '\(b)'", []),
      ("UPDATE session SET id = '\(String(repeating: "e", count: 32))' WHERE id = '\(a)'", []),
    ]
    var detected = 0
    for (sql, arguments, damaged) in cases {
      let copy = v.directory.file("copy.db")
      unlink(copy)
      try FileManager.default.copyItem(atPath: v.path, toPath: copy)
      try v.edit(sql, arguments)
      let results = try v.readAll()
      for (index, result) in results.enumerated() {
        switch result {
        case .success(let read):
          #expect(!damaged.contains(index), "\(sql): session \(index) still read")
          #expect(read == v.sessions[index])
        case .failure:
          #expect(damaged.contains(index), "\(sql): session \(index) failed")
        }
      }
      if results.enumerated().allSatisfy({
        damaged.contains($0.offset) == ((try? $0.element.get()) == nil)
      }) {
        detected += 1
      }
      unlink(v.path + "-wal")
      unlink(v.path + "-shm")
      unlink(v.path)
      try FileManager.default.copyItem(atPath: copy, toPath: v.path)
    }
    for (sql, arguments) in refused {
      let copy = v.directory.file("copy.db")
      unlink(copy)
      try FileManager.default.copyItem(atPath: v.path, toPath: copy)
      try v.edit(sql, arguments)
      #expect(throws: StoreError.tampered(.rows), "\(sql)") { try v.readAll() }
      if (try? v.readAll()) == nil { detected += 1 }
      unlink(v.path + "-wal")
      unlink(v.path + "-shm")
      unlink(v.path)
      try FileManager.default.copyItem(atPath: copy, toPath: v.path)
    }
    #expect(detected == cases.count + refused.count)
    Torture.report("tamper swaps", ["tried": cases.count + refused.count, "detected": detected])
  }

  /// Bytes of the vault file itself, flipped at random, and the file truncated at many
  /// offsets: opening and reading either fails with one of journal's own errors, or gives
  /// back exactly what was stored (a flip in bytes SQLite does not use). Never a crash, never
  /// a wrong plaintext.
  @Test func wholeFile() throws {
    let v = try Vault3()
    // One file, no WAL: what a copy of the vault at rest looks like.
    let queue = try DatabaseQueue(path: v.path)
    try queue.writeWithoutTransaction { try $0.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
    try queue.close()
    let pristine = try Data(contentsOf: URL(fileURLWithPath: v.path))
    var generator = TortureRandom(3)
    let flips = Torture.count("TAMPER_FILE_FLIPS", light: 60)
    let cuts = Torture.count("TAMPER_TRUNCATIONS", light: 20)
    var tried = 0
    var detected = 0
    var harmless = 0
    func attempt(_ bytes: Data, _ what: String) throws {
      unlink(v.path + "-wal")
      unlink(v.path + "-shm")
      try bytes.write(to: URL(fileURLWithPath: v.path))
      chmod(v.path, 0o600)
      tried += 1
      do {
        let results = try v.readAll(derive: true)
        var anyFailed = false
        for (index, result) in results.enumerated() {
          switch result {
          case .success(let read): #expect(read == v.sessions[index], "\(what): wrong plaintext")
          case .failure(let error):
            #expect(error is StoreError || error is CryptoError, "\(what): \(error)")
            anyFailed = true
          }
        }
        let problem = try Vault.open(at: v.path).structureProblem()
        if anyFailed || problem != nil {
          detected += 1
        } else {
          harmless += 1
        }
      } catch let error as StoreError {
        #expect(
          [.notAVault(path: v.path), .damagedFile(path: v.path), .vaultMissing(path: v.path)]
            .contains(error)
            || {
              switch error {
              // A flip in the schema's own text: a table or index it names is gone.
              case .database, .tampered, .damagedStructure: return true
              default: return false
              }
            }(),
          "\(what): \(error)")
        detected += 1
      } catch is CryptoError {
        detected += 1
      } catch {
        Issue.record("\(what): \(error)")
      }
    }
    for position in generator.positions(pristine.count, count: flips) {
      var bytes = pristine
      bytes[position] ^= UInt8.random(in: 1...255, using: &generator)
      try attempt(bytes, "byte \(position)")
    }
    for offset in generator.positions(pristine.count, count: cuts) {
      try attempt(pristine.prefix(offset), "truncated at \(offset)")
    }
    #expect(tried == detected + harmless)
    Torture.report(
      "tamper whole file (flips and truncations)",
      ["tried": tried, "detected": detected, "harmless (unused bytes)": harmless])
  }

  /// The same, seen by a person: the real binary names the damaged session (or the damaged
  /// header), exits with a documented code, and still shows the untouched sessions.
  @Test func seenFromTheCommandLine() throws {
    let f = ReliabilityFixture().initialise()
    let ids = (0..<3).compactMap { f.new(intention: "intention \($0)") }
    try #require(ids.count == 3)
    let (a, b, c) = (ids[0], ids[1], ids[2])
    let short = String(a.prefix(8))
    let copy = f.root.file("pristine.db")
    _ = f.run("verify")
    try FileManager.default.copyItem(atPath: f.vaultPath, toPath: copy)
    let flipped = "CAST(substr(summary, 1, 30) || x'ff' || substr(summary, 32) AS BLOB)"
    let cases: [(String, String, Int32, Bool)] = [
      ("summary byte", "UPDATE session SET summary = \(flipped) WHERE id LIKE '\(a)%'", 5, true),
      (
        "body byte",
        // Another byte than the one there: a ciphertext byte is 0x00 one time in 256.
        "UPDATE session SET body = CAST(substr(body, 1, 50) || CASE WHEN substr(body, 51, 1) = x'00' THEN x'01' ELSE x'00' END || substr(body, 52) AS BLOB) WHERE id LIKE '\(a)%'",
        5, true
      ),
      (
        "summaries swapped",
        "UPDATE session SET summary = (SELECT summary FROM session WHERE id LIKE '\(b)%') WHERE id LIKE '\(a)%'",
        5, true
      ),
      (
        "fields swapped", "UPDATE session SET summary = body, body = summary WHERE id LIKE '\(a)%'",
        5, true
      ),
      (
        "wrapped key byte",
        "UPDATE vault SET wrapped_key = CAST(substr(wrapped_key, 1, 40) || x'01' || substr(wrapped_key, 42) AS BLOB)",
        4, false
      ),
      (
        "salt byte", "UPDATE vault SET kdf_salt = CAST(x'00' || substr(kdf_salt, 2) AS BLOB)", 4,
        false
      ),
      (
        "vault id byte", "UPDATE vault SET vault_id = CAST(x'00' || substr(vault_id, 2) AS BLOB)",
        5, false
      ),
      ("limits raised", "UPDATE vault SET kdf_memlimit = 2147483648", 5, false),
      ("limits lowered", "UPDATE vault SET kdf_opslimit = 1", 5, false),
      ("wrapped key short", "UPDATE vault SET wrapped_key = substr(wrapped_key, 2)", 5, false),
    ]
    var detected = 0
    for (name, sql, code, namesSession) in cases {
      try f.tamper(sql)
      let verify = f.run("verify")
      let show = f.run("show", a)
      let untouched = f.run("show", c)
      var ok = isCleanFailure(verify, [code]) && isCleanFailure(show, [code])
      if namesSession {
        ok =
          ok && verify.stderr.contains(short) && untouched.status == 0
          && untouched.stdout.contains("intention 2") && show.stdout.isEmpty
      } else {
        ok = ok && isCleanFailure(untouched, [code])
      }
      #expect(ok, "\(name)\n\(verify)\n\(show)\n\(untouched)")
      if ok { detected += 1 }
      for suffix in ["-wal", "-shm", ""] { unlink(f.vaultPath + suffix) }
      try FileManager.default.copyItem(atPath: copy, toPath: f.vaultPath)
    }
    // The file cut short at a few offsets: refused as damaged, never a crash.
    let size = (try FileManager.default.attributesOfItem(atPath: copy)[.size] as? Int) ?? 0
    var generator = TortureRandom(4)
    let cuts = generator.positions(size, count: Torture.count("TAMPER_CLI_TRUNCATIONS", light: 4))
    var unusedCut = 0
    for offset in cuts {
      let bytes = try Data(contentsOf: URL(fileURLWithPath: copy)).prefix(offset)
      for suffix in ["-wal", "-shm", ""] { unlink(f.vaultPath + suffix) }
      try bytes.write(to: URL(fileURLWithPath: f.vaultPath))
      chmod(f.vaultPath, 0o600)
      let verify = f.run("verify")
      // A cut into the file's trailing free pages loses nothing: verify rightly says so.
      let harmless = verify.status == 0 && f.ids().count == 3
      let ok = harmless || isCleanFailure(verify, [3, 4, 5, 12])
      #expect(ok, "truncated at \(offset)\n\(verify)")
      if ok { detected += harmless ? 0 : 1 }
      if harmless { unusedCut += 1 }
    }
    #expect(detected + unusedCut == cases.count + cuts.count)
    Torture.report(
      "tamper via the binary",
      ["tried": cases.count + cuts.count, "detected": detected, "harmless": unusedCut])
  }
}
