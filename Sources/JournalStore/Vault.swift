import Foundation
import GRDB
import Glibc
import JournalCore
import JournalCrypto
import JournalStorage
import JournalSystem

/// How much of the ledger a store checks, and when (SECURITY.md, "The ledger").
public enum LedgerCheck: Sendable {
  /// The whole vault, at opening.
  case whole
  /// The whole vault, from the first `summaries`' own pass over the rows (`list` reads the
  /// vault once).
  case listing
  /// The tree's root at opening, then the leaves of the sessions each command reads or
  /// writes: a command about one session costs the same at any size. Anything that reads
  /// many rows checks the whole vault first.
  case point
}

/// The vault: one SQLite file holding the key header and the sealed sessions.
///
/// Ordering rules kept here:
/// - A vault file is created exclusively (O_EXCL | O_NOFOLLOW, 0600) before SQLite opens it,
///   then the schema is migrated and the header inserted. A crash in between leaves a file
///   with no header, which `open` reports as "not a vault", never as an empty journal.
/// - Every write is one IMMEDIATE transaction; SQLite's WAL makes it atomic and durable
///   (synchronous = FULL), so a crash leaves the state before or after it, never between.
/// - The key header changes (`passwd`) in a single UPDATE of one row.
public final class Vault {
  /// The vault format this code writes and reads.
  public static let formatVersion = 14

  public let path: String
  let database: DatabaseQueue
  public private(set) var header: KeyHeader
  /// Why this vault cannot be written, when it cannot: it was opened for reading only, and
  /// every change is refused up front with this reason.
  public let readOnly: ReadOnlyReason?

  private init(
    path: String, database: DatabaseQueue, header: KeyHeader, readOnly: ReadOnlyReason? = nil
  ) {
    self.path = path
    self.database = database
    self.header = header
    self.readOnly = readOnly
  }

  /// Creates a new vault at `path` holding `header` and, when given, the public key that
  /// additions written without the passphrase are sealed to. Refuses when anything is
  /// already there.
  public static func create(
    at path: String, header: KeyHeader, sealingKey: [UInt8]? = nil
  ) throws -> Vault {
    try FileSafety.privateDirectory(FileSafety.parentDirectory(of: path), create: true)
    if case .failure(let error) = Result(catching: { () throws(SystemError) in
      try FileSafety.createExclusively(path)
    }) {
      throw error == .exists(path: path) ? StoreError.vaultExists(path: path) : error
    }
    do {
      let database = try openDatabase(path)
      try migrator.migrate(database)
      try database.write { db in
        try db.execute(
          sql: """
            INSERT INTO vault (singleton, format_version, vault_id, kdf_algorithm,
              kdf_opslimit, kdf_memlimit, kdf_salt, wrapped_key)
            VALUES (1, ?, ?, 'argon2id13', ?, ?, ?, ?)
            """,
          arguments: [
            formatVersion, Data(header.vaultID), Int64(header.limits.opsLimit),
            Int64(header.limits.memLimit), Data(header.salt), Data(header.wrappedKey),
          ])
        // A new vault is asked about sealed capture by `init` itself: never offered again.
        try db.execute(
          sql: "UPDATE vault SET sealing_key = ?, sealing_offered = 1",
          arguments: [sealingKey.map { Data($0) }])
      }
      try checkCompanionFiles(path)
      return Vault(path: path, database: database, header: header)
    } catch {
      // Nothing of value is in a vault that failed to initialise: remove it so init can retry.
      unlink(path)
      unlink(path + "-wal")
      unlink(path + "-shm")
      throw map(error, path: path)
    }
  }

  /// Refuses, before any passphrase is asked, when anything is already at `path`.
  public static func refuseExisting(at path: String) throws {
    var info = stat()
    if lstat(path, &info) == 0 { throw StoreError.vaultExists(path: path) }
  }

  /// Opens the vault at `path` and reads its key header. No key is needed for this.
  public static func open(at path: String) throws -> Vault {
    var info = stat()
    if lstat(path, &info) != 0 && errno == ENOENT { throw StoreError.vaultMissing(path: path) }
    if case .failure(let error) = Result(catching: { () throws(SystemError) in
      try FileSafety.privateDirectory(FileSafety.parentDirectory(of: path), create: false)
    }) {
      guard case .missing = error else { throw error }
      throw StoreError.vaultMissing(path: path)
    }
    guard try FileSafety.privateFile(path) else { throw StoreError.vaultMissing(path: path) }
    try checkCompanionFiles(path)
    let readOnly = ReadOnlyReason.of(vault: path, directory: FileSafety.parentDirectory(of: path))
    // Until its header has been read, a damaged SQLite file is not known to be a vault.
    var isVault = false
    do {
      let database = try openDatabase(path, readOnly: readOnly)
      // One read transaction for the header, the migrations and the structure, unless a
      // migration must run between them.
      let (header, pending) = try database.read { db in
        let header = try readHeader(db, path: path)
        isVault = true
        let pending = try !migrator.hasCompletedMigrations(db)
        if !pending { try checkStructure(db, path: path) }
        return (header, pending)
      }
      if pending {
        if let readOnly { throw StoreError.readOnly(path: path, reason: readOnly) }
        do {
          try migrator.migrate(database)
        } catch let error as DatabaseError where error.resultCode == .SQLITE_ERROR {
          // A migration that cannot run again over what is there: its row was removed.
          throw StoreError.damagedStructure(path: path)
        }
        try database.read { db in try checkStructure(db, path: path) }
      }
      return Vault(path: path, database: database, header: header, readOnly: readOnly)
    } catch {
      let mapped = map(error, path: path)
      if !isVault, case StoreError.damagedFile = mapped { throw StoreError.notAVault(path: path) }
      throw mapped
    }
  }

  /// Replaces the key header in one statement (`passwd`): the old passphrase works until it
  /// commits, the new one from then on. The vault id must not change.
  public func replaceHeader(_ newHeader: KeyHeader) throws {
    precondition(newHeader.vaultID == header.vaultID, "a re-wrap keeps the vault id")
    if let readOnly { throw StoreError.readOnly(path: path, reason: readOnly) }
    do {
      try database.write { db in
        // Only over the header this process opened: a key changed meanwhile by another
        // journal (passwd, a key rotation) is not put back.
        try Self.swapHeader(newHeader, over: header, db)
      }
    } catch let error as StoreError {
      throw error
    } catch {
      throw Vault.map(error, path: path)
    }
    header = newHeader
  }

  /// Writes `newHeader` over `old`, only if `old` is still there: a key changed meanwhile by
  /// another journal (passwd, a key rotation) is not put back (keyChanged).
  static func swapHeader(_ newHeader: KeyHeader, over old: KeyHeader, _ db: Database) throws {
    try db.execute(
      sql: """
        UPDATE vault SET kdf_opslimit = ?, kdf_memlimit = ?, kdf_salt = ?, wrapped_key = ?
        WHERE singleton = 1 AND wrapped_key = ? AND rotation_key IS NULL
        """,
      arguments: [
        Int64(newHeader.limits.opsLimit), Int64(newHeader.limits.memLimit),
        Data(newHeader.salt), Data(newHeader.wrappedKey), Data(old.wrappedKey),
      ])
    guard db.changesCount == 1 else { throw StoreError.keyChanged }
  }

  /// Whether the key header this process opened is still the vault's, with no key change
  /// under way, as the file is now (`passwd` and a key rotation each write it anew).
  public func keyIsCurrent() throws -> Bool {
    try read { db in
      try Row.fetchOne(
        db,
        sql: """
          SELECT 1 FROM vault WHERE singleton = 1 AND wrapped_key = ? AND rotation_key IS NULL
          """,
        arguments: [Data(header.wrappedKey)]) != nil
    }
  }

  /// The recovery slot (SECURITY.md, "Recovery code"), nil when there is none. No key needed.
  public func recoverySlot() throws -> [UInt8]? {
    try read { db in
      let row = try Row.fetchOne(db, sql: "SELECT recovery_slot FROM vault")
      return try row?.decode(Data?.self, atIndex: 0).map { Array($0) }
    }
  }

  /// The header as a key rotation just wrote it (in its own transaction).
  func replaceHeaderInMemory(_ newHeader: KeyHeader) {
    precondition(newHeader.vaultID == header.vaultID, "a rotation keeps the vault id")
    header = newHeader
  }

  /// Reads the header again (after a key rotation finished).
  func reloadHeader() throws {
    header = try read { db in try Self.readHeader(db, path: path) }
  }

  /// Writes a consistent copy of the whole vault to a new file at `destination` (0600,
  /// refused if anything is there), with SQLite's online backup from one read transaction:
  /// safe while other processes write. The copy is sealed exactly as the vault is. SQLite
  /// copies pages as they are, damaged ones too: a copy whose quick check fails (damage of
  /// the vault's, or of the disk the copy went to) is kept (it may be all there is) and said
  /// (`StoreError.damagedCopy`), never passed off as sound.
  public func backup(to destination: String) throws {
    // SQLite would create the copy's -wal and -shm by name next to it, following whatever
    // is planted there; so the copy is made in a private directory beside the destination
    // and then moved into place, which fails if anything already has that name.
    let parent = FileSafety.parentDirectory(of: destination)
    var template = Array((parent + "/.journal-backup-XXXXXX").utf8CString)
    guard mkdtemp(&template) != nil else { throw StoreError.io(path: parent, errno: errno) }
    let staging = String(
      decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    let copy = staging + "/vault.db"
    defer {
      unlink(copy + "-wal")
      unlink(copy + "-shm")
      unlink(copy)
      rmdir(staging)
    }
    var info = stat()
    if lstat(destination, &info) == 0 { throw StoreError.vaultExists(path: destination) }
    let problem: String?
    do {
      try FileSafety.createExclusively(copy)
      let target = try Self.openDatabase(copy)
      try database.backup(to: target)
      try target.writeWithoutTransaction { db in
        try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
      }
      // Every page read once more (from the disk the copy went to, past the little the
      // cache holds): a tenth of the full check's time, which also compares each index
      // with its table.
      problem = try target.read { db in try Self.structureReport(db, quick: true) }
      try target.close()
    } catch {
      throw Vault.map(error, path: destination)
    }
    // Moved into place, never over anything there; a file system that cannot rename so
    // (EINVAL: some network ones) links it instead, which FAT, for one, cannot.
    var code = FileSafety.renameNew(copy, to: destination)
    if code == EINVAL || code == ENOSYS { code = link(copy, destination) == 0 ? 0 : errno }
    guard code == 0 else {
      if code == EEXIST { throw StoreError.vaultExists(path: destination) }
      throw StoreError.io(path: destination, errno: code)
    }
    if let problem { throw StoreError.damagedCopy(path: destination, report: problem) }
  }

  /// The ledger's stamp as stored (not checked: that needs the key), nil when there is none.
  public func ledgerStamp() throws -> LedgerStamp? {
    try read { db in try Ledger.stamp(db) }
  }

  /// The ledger's stamp with the entries its tag covers, read together (no key needed, nothing
  /// checked; the entries only for a vault small enough that a record keeps them): for this
  /// computer's record after a write it did not make through a store (a key change), so that
  /// a later deletion can still be named.
  public func ledgerStampWithRows() throws -> LedgerStamp? {
    try read { db in
      guard let stamp = try Ledger.stamp(db) else { return nil }
      let rows = try Ledger.View.read(db).rows
      let kept = rows.sessions.count / LedgerRows.sessionBytes <= Ledger.keepEntries
      return LedgerStamp(generation: stamp.generation, tag: stamp.tag, rows: kept ? rows : nil)
    }
  }

  /// The entries the ledger's tag covers, as the rows are now (no key needed, nothing
  /// checked): to tell which sessions differ from what a witness saw.
  public func ledgerRows() throws -> LedgerRows {
    try read { db in try Ledger.View.read(db).rows }
  }

  /// What trusting the vault as it is would change in it (see `RepairPlan`). No key needed.
  /// With `keys`, rows whose clear values were planted are tried against their sealed
  /// columns to tell which are put right and which dropped.
  public func repairPlan(keys: VaultKeys? = nil) throws -> RepairPlan {
    let cipher = try keys.map { try RecordCipher(keys: $0, random: SystemRandom()) }
    return try read { db in try Ledger.repairPlan(db, cipher: cipher) }
  }

  /// SQLite's own check of the file's structure; nil when it is sound, else its first report.
  public func structureProblem() throws -> String? {
    try read { db in try Self.structureReport(db, quick: false) }
  }

  /// SQLite's check of `db`'s structure (`quick`: pages and records, not each index against
  /// its table); nil when it is sound, else its first report, on one line.
  static func structureReport(_ db: Database, quick: Bool) throws -> String? {
    let pragma = quick ? "PRAGMA quick_check" : "PRAGMA integrity_check"
    var problem: String?
    do {
      let report = try String.fetchCursor(db, sql: pragma)
      while problem == nil, let line = try report.next() {
        if line != "ok" { problem = line }
      }
    } catch let error as DatabaseError where error.resultCode == .SQLITE_CORRUPT {
      // A page too damaged to report on ends the check with an error instead.
      problem = error.message ?? "database disk image is malformed"
    }
    // One line: a report can hold a line break ("*** in database main ***\nFragmentation…").
    // (The names in it, of a file made by hand, are shown quoted as data: Diagnosis.)
    return problem.map { $0.split(whereSeparator: \.isNewline).joined(separator: " ") }
  }

  /// The sessions, readable and writable with the vault's unlocked keys, once the ledger has
  /// checked that the vault is as journal last left it (and, the first time, protected it).
  /// `accept`, asked with what the ledger found, may trust the vault as it is instead.
  /// `check` says how much is checked when (`LedgerCheck`).
  public func sessions(
    keys: VaultKeys, random: some RandomSource, accept: ((StoreError) throws -> Bool)? = nil,
    check: LedgerCheck = .whole
  ) throws -> SessionStore {
    precondition(keys.vaultID == header.vaultID, "keys of another vault")
    let store = SessionStore(
      vault: self, cipher: try RecordCipher(keys: keys, random: random),
      ledger: Ledger(vaultID: keys.vaultID, key: keys.ledgerKey),
      fingerprintKey: keys.fingerprintKey, random: random)
    switch check {
    case .listing where accept == nil:
      store.checkWhenListing = true
    case .point where accept == nil:
      store.pointChecks = true
      try store.checkLedger()
    default:
      try store.checkLedger(accept: accept)
    }
    return store
  }

  // MARK: - Opening

  /// Opens the SQLite file. A vault that cannot be written is opened read-only; when SQLite
  /// could not make its shared-memory file beside it either (a read-only file system or
  /// directory) and no write-ahead log is there to read, it is opened as immutable, which
  /// needs neither.
  private static func openDatabase(_ path: String, readOnly: ReadOnlyReason? = nil) throws
    -> DatabaseQueue
  {
    var configuration = Configuration()
    configuration.busyMode = .timeout(10)
    configuration.readonly = readOnly != nil
    configuration.prepareDatabase { db in
      // Temporary tables and sort buffers stay in memory, never in a temp file.
      try db.execute(sql: "PRAGMA temp_store = MEMORY")
      guard !db.configuration.readonly else { return }
      // Freed pages are overwritten with zeros, so deleted ciphertext does not linger.
      try db.execute(sql: "PRAGMA secure_delete = ON")
      try db.execute(sql: "PRAGMA journal_mode = WAL")
      // FULL: a commit reported to the user survives a power loss.
      try db.execute(sql: "PRAGMA synchronous = FULL")
      // Before any statement is prepared: what a keyed write touches (LedgerTree.Tracking).
      LedgerTree.Tracking.register(db)
    }
    var info = stat()
    let walPresent = lstat(path + "-wal", &info) == 0
    if let readOnly, readOnly != .file, !walPresent {
      return try DatabaseQueue(path: immutableURI(path), configuration: configuration)
    }
    return try DatabaseQueue(path: path, configuration: configuration)
  }

  /// `file:` URI of `path` with `immutable=1` (Debian's SQLite accepts URIs as file names).
  static func immutableURI(_ path: String) -> String {
    var allowed = CharacterSet.alphanumerics
    allowed.insert(charactersIn: "/-._~")
    let escaped = path.addingPercentEncoding(withAllowedCharacters: allowed) ?? path
    return "file:\(escaped)?immutable=1"
  }

  /// What the vault's schema must hold at today's format: every table, index and trigger the
  /// migrations make. Checked at every opening (one read of `sqlite_master`, a few hundred
  /// microseconds): a table, index or trigger dropped, or a format number lowered (which would make an
  /// older journal take the vault for one it understands), is damage of the file's structure.
  static let requiredSchema: Set<String> = [
    "vault", "session", "trash", "tombstone", "reminder", "ledger", "addition", "sync",
    "sync_row", "trash_purge", "session_list", "session_ledger", "addition_id",
    "sync_row_revision", "ledger_leaf", "ledger_node", "sync_outbox", "sync_outbox_new",
    "sync_outbox_changed", "sync_outbox_reagreed", "sync_outbox_forgotten",
  ]

  private static func checkStructure(_ db: Database, path: String) throws {
    let names = try Set(
      String.fetchAll(
        db, sql: "SELECT name FROM sqlite_master WHERE type IN ('table', 'index', 'trigger')"))
    let version = try Int.fetchOne(db, sql: "SELECT format_version FROM vault")
    guard requiredSchema.isSubset(of: names), version == formatVersion else {
      throw StoreError.damagedStructure(path: path)
    }
  }

  private static func checkCompanionFiles(_ path: String) throws {
    try FileSafety.privateFile(path + "-wal")
    try FileSafety.privateFile(path + "-shm")
  }

  private static func readHeader(_ db: Database, path: String) throws -> KeyHeader {
    // One look at sqlite_master, not GRDB's `tableExists`, which fills its schema cache
    // first (1.9 M instructions, every opening).
    guard
      try Row.fetchOne(
        db,
        sql: "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'vault' COLLATE NOCASE"
      ) != nil
    else { throw StoreError.notAVault(path: path) }
    guard
      let row = try Row.fetchOne(
        db,
        sql: """
          SELECT format_version, vault_id, kdf_algorithm, kdf_opslimit, kdf_memlimit, kdf_salt,
            wrapped_key FROM vault WHERE singleton = 1
          """)
    else { throw StoreError.notAVault(path: path) }
    // Decoded with `try`: a value of the wrong type (an edited file) is "not a vault", never
    // a crash.
    guard let version = try? row.decode(Int.self, forColumn: "format_version"),
      let algorithm = try? row.decode(String.self, forColumn: "kdf_algorithm"),
      let ops = try? row.decode(Int64.self, forColumn: "kdf_opslimit"),
      let mem = try? row.decode(Int64.self, forColumn: "kdf_memlimit"),
      let vaultID = try? row.decode(Data.self, forColumn: "vault_id"),
      let salt = try? row.decode(Data.self, forColumn: "kdf_salt"),
      let wrapped = try? row.decode(Data.self, forColumn: "wrapped_key")
    else { throw StoreError.notAVault(path: path) }
    guard version <= formatVersion else {
      throw StoreError.newerFormat(found: version, supported: formatVersion)
    }
    guard algorithm == "argon2id13", ops > 0, mem > 0 else {
      throw StoreError.notAVault(path: path)
    }
    let header = KeyHeader(
      vaultID: Array(vaultID), limits: KDFLimits(opsLimit: UInt64(ops), memLimit: UInt64(mem)),
      salt: Array(salt), wrappedKey: Array(wrapped))
    guard header.isWellFormed else { throw StoreError.notAVault(path: path) }
    return header
  }

  /// Named migrations; never edited once shipped. A new format adds one and bumps
  /// `formatVersion`.
  static let migrator: DatabaseMigrator = {
    var migrator = DatabaseMigrator()
    migrator.registerMigration("v1: vault header and sessions") { db in
      try db.execute(
        sql: """
          CREATE TABLE vault (
            singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
            format_version INTEGER NOT NULL CHECK (format_version >= 1),
            vault_id BLOB NOT NULL CHECK (length(vault_id) = 16),
            kdf_algorithm TEXT NOT NULL CHECK (kdf_algorithm = 'argon2id13'),
            kdf_opslimit INTEGER NOT NULL CHECK (kdf_opslimit > 0),
            kdf_memlimit INTEGER NOT NULL CHECK (kdf_memlimit > 0),
            kdf_salt BLOB NOT NULL CHECK (length(kdf_salt) = 16),
            wrapped_key BLOB NOT NULL CHECK (length(wrapped_key) = 88)
          );
          CREATE TABLE session (
            id TEXT NOT NULL UNIQUE
              CHECK (length(id) = 32 AND id NOT GLOB '*[^0-9a-f]*'),
            status TEXT NOT NULL CHECK (status IN ('needs_reflection', 'complete')),
            summary BLOB NOT NULL CHECK (length(summary) >= 40),
            body BLOB NOT NULL CHECK (length(body) >= 40)
          );
          """)
    }
    migrator.registerMigration("v2: trash for undoable deletions, tombstones") { db in
      try db.execute(
        sql: """
          CREATE TABLE trash (
            id TEXT NOT NULL UNIQUE
              CHECK (length(id) = 32 AND id NOT GLOB '*[^0-9a-f]*'),
            batch INTEGER NOT NULL,
            deleted_at INTEGER NOT NULL,
            purge_after INTEGER NOT NULL CHECK (purge_after >= deleted_at),
            status TEXT NOT NULL CHECK (status IN ('needs_reflection', 'complete')),
            summary BLOB NOT NULL,
            body BLOB NOT NULL
          );
          CREATE INDEX trash_purge ON trash (purge_after);
          CREATE TABLE tombstone (
            id TEXT NOT NULL PRIMARY KEY
              CHECK (length(id) = 32 AND id NOT GLOB '*[^0-9a-f]*')
          );
          UPDATE vault SET format_version = 2;
          """)
    }
    migrator.registerMigration("v3: reminders") { db in
      try db.execute(
        sql: """
          CREATE TABLE reminder (
            id TEXT NOT NULL PRIMARY KEY
              CHECK (length(id) = 32 AND id NOT GLOB '*[^0-9a-f]*'),
            due INTEGER NOT NULL,
            repeat_seconds INTEGER NOT NULL CHECK (repeat_seconds > 0),
            last_fired INTEGER
          );
          ALTER TABLE trash ADD COLUMN reminder_due INTEGER;
          ALTER TABLE trash ADD COLUMN reminder_repeat INTEGER;
          ALTER TABLE trash ADD COLUMN reminder_last_fired INTEGER;
          UPDATE vault SET format_version = 3;
          """)
    }
    migrator.registerMigration("v4: list index") { db in
      // `list` reads id, status and summary of every session. In the table those sit beside
      // each body (~2 KB a row), so a scan read the whole file: 290 MB for 100,000 sessions.
      // This covering index holds just those three (copies of what the row holds, nothing
      // more), ~350 bytes a session, and SQLite scans it instead.
      try db.execute(
        sql: """
          CREATE INDEX session_list ON session (status, id, summary);
          UPDATE vault SET format_version = 4;
          """)
    }
    migrator.registerMigration("v5: revisions and the ledger") { db in
      // Tamper evidence (SECURITY.md, "The ledger"). Rows keep revision 0, sealed as before,
      // until the vault is first opened with its key: then they are sealed again at
      // revision 1 and the ledger's first tag is written (SessionStore.protect). The list
      // index carries the revision, which the summaries' keys need; the ledger's own index,
      // without the summaries, is what the check at every keyed open reads (~60 bytes a
      // session instead of ~350).
      try db.execute(
        sql: """
          ALTER TABLE session ADD COLUMN revision INTEGER NOT NULL DEFAULT 0
            CHECK (revision >= 0);
          ALTER TABLE trash ADD COLUMN revision INTEGER NOT NULL DEFAULT 0
            CHECK (revision >= 0);
          ALTER TABLE trash ADD COLUMN outcome TEXT CHECK (outcome IN ('undone', 'purged'));
          CREATE TABLE ledger (
            singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
            generation INTEGER NOT NULL CHECK (generation >= 1),
            tag BLOB NOT NULL CHECK (length(tag) = 32)
          );
          DROP INDEX session_list;
          CREATE INDEX session_list ON session (status, id, revision, summary);
          CREATE INDEX session_ledger ON session (status, id, revision);
          UPDATE vault SET format_version = 5;
          """)
    }
    migrator.registerMigration("v6: sessions closed without a reflection") { db in
      // No table changes: a summary may now say "closed" (SECURITY.md, "Plaintexts"), which
      // a reader of format 5 would take for damage. The version tells it the vault is newer
      // instead; the clear status column still holds only needs_reflection or complete.
      try db.execute(sql: "UPDATE vault SET format_version = 6")
    }
    migrator.registerMigration("v7: sealed additions") { db in
      // Writing without the passphrase (SECURITY.md, "Sealed additions"): the public key
      // additions are sealed to (NULL while sealed capture is off), whether the person has
      // been asked about it, and the additions waiting to be opened with the key.
      try db.execute(
        sql: """
          ALTER TABLE vault ADD COLUMN sealing_key BLOB
            CHECK (sealing_key IS NULL OR length(sealing_key) = 32);
          ALTER TABLE vault ADD COLUMN sealing_offered INTEGER NOT NULL DEFAULT 0
            CHECK (sealing_offered IN (0, 1));
          CREATE TABLE addition (
            seq INTEGER PRIMARY KEY,
            id TEXT NOT NULL CHECK (length(id) = 32 AND id NOT GLOB '*[^0-9a-f]*'),
            kind TEXT NOT NULL CHECK (kind IN ('new', 'later')),
            status TEXT CHECK (status IS NULL OR status IN ('needs_reflection', 'complete')),
            added_at INTEGER NOT NULL,
            box BLOB NOT NULL
          );
          CREATE INDEX addition_id ON addition (id);
          UPDATE vault SET format_version = 7;
          """)
    }
    migrator.registerMigration("v8: recovery slot") { db in
      // A second key slot (SECURITY.md, "Recovery code"): the data key wrapped under a
      // recovery code, laid out as wrapped_key; NULL when there is none.
      try db.execute(
        sql: """
          ALTER TABLE vault ADD COLUMN recovery_slot BLOB
            CHECK (recovery_slot IS NULL OR length(recovery_slot) = 88);
          UPDATE vault SET format_version = 8;
          """)
    }
    migrator.registerMigration("v9: key rotation") { db in
      // A key rotation under way (SECURITY.md, "Key rotation"): the new data key wrapped
      // under the same passphrase as wrapped_key, and the last session id re-sealed under it.
      // Both NULL when no rotation is under way.
      try db.execute(
        sql: """
          ALTER TABLE vault ADD COLUMN rotation_key BLOB
            CHECK (rotation_key IS NULL OR length(rotation_key) = 88);
          ALTER TABLE vault ADD COLUMN rotation_cursor TEXT
            CHECK ((rotation_cursor IS NULL) = (rotation_key IS NULL));
          UPDATE vault SET format_version = 9;
          """)
    }
    migrator.registerMigration("v10: sync") { db in
      // Sync through PostgreSQL (SECURITY.md, "Sync"): what this device knows of its server
      // (nothing secret: the address without a password, its own random id, how far it has
      // read the server's chain), and for each session what was last agreed with it (the
      // revision and, sealed, each field's stamp and fingerprint). A session's body may now
      // hold kept conflicts (tag 23).
      try db.execute(
        sql: """
          CREATE TABLE sync (
            singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
            server TEXT NOT NULL,
            server_tag BLOB CHECK (server_tag IS NULL OR length(server_tag) = 32),
            device BLOB NOT NULL CHECK (length(device) = 16),
            seq INTEGER NOT NULL CHECK (seq >= 0),
            head BLOB CHECK (head IS NULL OR length(head) = 32),
            header_hash BLOB CHECK (header_hash IS NULL OR length(header_hash) = 32),
            clock_time INTEGER NOT NULL CHECK (clock_time >= 0),
            clock_counter INTEGER NOT NULL CHECK (clock_counter >= 0),
            last_sync INTEGER,
            background INTEGER NOT NULL CHECK (background IN (0, 1))
          );
          CREATE TABLE sync_row (
            id TEXT NOT NULL PRIMARY KEY
              CHECK (length(id) = 32 AND id NOT GLOB '*[^0-9a-f]*'),
            revision INTEGER NOT NULL,
            generation INTEGER NOT NULL CHECK (generation >= 1),
            base BLOB NOT NULL
          );
          CREATE INDEX sync_row_revision ON sync_row (id, revision, generation);
          UPDATE vault SET format_version = 10;
          """)
    }
    migrator.registerMigration("v11: marks in the summary, settings in the ledger") { db in
      // Keyless writes can never hurt (SECURITY.md, "The ledger" and "Plaintexts"): the
      // ledger's tag also covers whether sealed capture is on and the recovery slot, and the
      // marks of what was written without the passphrase are kept in the summary, where
      // `list` reads them. Both need the key: a ledger of construction 1 is made again, and
      // marked sessions written again, at the first keyed opening that can write.
      try db.execute(
        sql: """
          ALTER TABLE ledger ADD COLUMN construction INTEGER NOT NULL DEFAULT 1
            CHECK (construction IN (1, 2));
          """)
      // The v10 migration was edited three times before it was frozen: a vault migrated by
      // an earlier edit lacks what a later one added, and today's code could not sync it.
      // What is missing is made here (a vault of the last edit gains nothing). Sync state of
      // the first two edits (no generation per agreed row) was sealed in a way no longer
      // read, and no ledger covered it: it is forgotten, and `journal sync setup` with the
      // same server joins again (taking the header the other devices hold).
      let rowColumns = try db.columns(in: "sync_row").map(\.name)
      if !rowColumns.contains("generation") {
        try db.execute(
          sql: """
            DELETE FROM sync;
            DROP TABLE sync_row;
            CREATE TABLE sync_row (
              id TEXT NOT NULL PRIMARY KEY
                CHECK (length(id) = 32 AND id NOT GLOB '*[^0-9a-f]*'),
              revision INTEGER NOT NULL,
              generation INTEGER NOT NULL CHECK (generation >= 1),
              base BLOB NOT NULL
            );
            CREATE INDEX sync_row_revision ON sync_row (id, revision, generation);
            """)
      }
      if try !db.columns(in: "sync").map(\.name).contains("server_tag") {
        try db.execute(
          sql: """
            ALTER TABLE sync ADD COLUMN server_tag BLOB
              CHECK (server_tag IS NULL OR length(server_tag) = 32);
            """)
      }
      try db.execute(sql: "UPDATE vault SET format_version = 11")
    }
    migrator.registerMigration("v12: the ledger's tree") { db in
      // A command about one session checks only its own part of the ledger (SECURITY.md,
      // "The ledger"): the digests of the tree's leaves and nodes, kept beside the tag, and
      // construction 3, whose tag covers their root. The ledger table is made again to admit
      // it (a CHECK cannot be altered); its row is kept as it is, and stamped in construction
      // 3, with the tree, at the first keyed opening that can write.
      try db.execute(
        sql: """
          CREATE TABLE ledger_v12 (
            singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
            generation INTEGER NOT NULL CHECK (generation >= 1),
            tag BLOB NOT NULL CHECK (length(tag) = 32),
            construction INTEGER NOT NULL DEFAULT 1 CHECK (construction IN (1, 2, 3))
          );
          INSERT OR IGNORE INTO ledger_v12 (singleton, generation, tag, construction)
            SELECT singleton, generation, tag, construction FROM ledger;
          DROP TABLE ledger;
          ALTER TABLE ledger_v12 RENAME TO ledger;
          CREATE TABLE ledger_leaf (
            leaf INTEGER PRIMARY KEY CHECK (leaf BETWEEN 0 AND 65535),
            digest BLOB NOT NULL CHECK (length(digest) = 32)
          );
          CREATE TABLE ledger_node (
            node INTEGER PRIMARY KEY CHECK (node BETWEEN 0 AND 255),
            digest BLOB NOT NULL CHECK (length(digest) = 32)
          );
          UPDATE vault SET format_version = 12;
          """)
    }
    migrator.registerMigration("v13: what sync has to send") { db in
      // A sync costs what it sends, not the size of the journal (SECURITY.md, "Vault
      // format"): the ids of sessions written, or whose agreement was changed or removed,
      // while the vault syncs are kept as it happens, by triggers; a sync reads these, not
      // every session. Ids only, as in the session table; what each holds is still decided by
      // the rows themselves (revision against the agreed one) and checked by the ledger. Not
      // INSERT OR IGNORE: a trigger's conflict clause gives way to the outer statement's,
      // and a session's upsert (ON CONFLICT DO UPDATE) would make it fail.
      try db.execute(
        sql: """
          CREATE TABLE sync_outbox (
            id TEXT NOT NULL PRIMARY KEY
              CHECK (length(id) = 32 AND id NOT GLOB '*[^0-9a-f]*')
          ) WITHOUT ROWID;
          INSERT INTO sync_outbox (id)
            SELECT s.id FROM session s LEFT JOIN sync_row r ON r.id = s.id
            WHERE EXISTS (SELECT 1 FROM sync) AND (r.id IS NULL OR r.revision != s.revision);
          CREATE TRIGGER sync_outbox_new AFTER INSERT ON session
            WHEN EXISTS (SELECT 1 FROM sync)
            BEGIN
              INSERT INTO sync_outbox (id) SELECT NEW.id
                WHERE NOT EXISTS (SELECT 1 FROM sync_outbox WHERE id = NEW.id);
            END;
          CREATE TRIGGER sync_outbox_changed AFTER UPDATE OF revision ON session
            WHEN EXISTS (SELECT 1 FROM sync)
            BEGIN
              INSERT INTO sync_outbox (id) SELECT NEW.id
                WHERE NOT EXISTS (SELECT 1 FROM sync_outbox WHERE id = NEW.id);
            END;
          CREATE TRIGGER sync_outbox_reagreed AFTER UPDATE OF revision ON sync_row
            WHEN EXISTS (SELECT 1 FROM sync)
            BEGIN
              INSERT INTO sync_outbox (id) SELECT NEW.id
                WHERE NOT EXISTS (SELECT 1 FROM sync_outbox WHERE id = NEW.id);
            END;
          CREATE TRIGGER sync_outbox_forgotten AFTER DELETE ON sync_row
            WHEN EXISTS (SELECT 1 FROM sync)
            BEGIN
              INSERT INTO sync_outbox (id) SELECT OLD.id
                WHERE NOT EXISTS (SELECT 1 FROM sync_outbox WHERE id = OLD.id);
            END;
          UPDATE vault SET format_version = 13;
          """)
    }
    migrator.registerMigration("v14: notes and tags") { db in
      // No table changes: a summary may now hold tags (tag 11) and a body integration notes
      // (tag 24; SECURITY.md, "Record layout"), which a reader of format 13 would take for
      // damage. The version tells it the vault is newer instead.
      try db.execute(sql: "UPDATE vault SET format_version = 14")
    }
    return migrator
  }()

  // MARK: - Errors

  static func map(_ error: any Error, path: String) -> any Error {
    // A value of the wrong type in a column: the file was edited, not a bug of ours.
    if error is RowDecodingError { return StoreError.notAVault(path: path) }
    guard let error = error as? DatabaseError else { return error }
    switch error.resultCode {
    case .SQLITE_BUSY, .SQLITE_LOCKED: return StoreError.busy
    case .SQLITE_NOTADB: return StoreError.notAVault(path: path)
    case .SQLITE_CORRUPT: return StoreError.damagedFile(path: path)
    case .SQLITE_FULL: return StoreError.diskFull(path: path)
    case .SQLITE_READONLY:
      let reason = ReadOnlyReason.of(vault: path, directory: FileSafety.parentDirectory(of: path))
      return StoreError.readOnly(path: path, reason: reason ?? .file)
    default:
      return StoreError.database(
        code: error.extendedResultCode.rawValue, message: error.message ?? "unknown")
    }
  }
}
