import Foundation
import Glibc
import JournalCore
import JournalCrypto
import JournalDiagnostics
import JournalStore
import JournalSystem

/// This computer's record of the last state it saw of a vault: the ledger's generation and
/// tag, authenticated under the vault's ledger key (SECURITY.md, "This computer's record").
///
/// A vault replaced whole by an older copy of itself (a backup put back, a synced folder
/// rolled back) adds up to its own older ledger, so it cannot be noticed from inside the
/// file. This record, kept outside it, can: a vault whose generation is below the one
/// recorded here, or equal with another tag, is not the one this computer last saw.
///
/// One record per vault file: a backup copy opened with --vault is older than the vault it
/// was copied from, and that is no rollback. The file is
/// `$XDG_STATE_HOME/journal/seen/<vault id hex>-<place>` (else `~/.local/state/journal/seen/…`),
/// where place is the first 16 hex digits of the unkeyed BLAKE2b-256 of the vault file's
/// real path; 0600 in 0700 directories: 97 bytes, "JRNLSEEN" ‖ 0x01 ‖ vault id (16) ‖
/// generation (8, little-endian) ‖ tag (32) ‖ BLAKE2b-256 keyed with the ledger key over the
/// 65 bytes before it; then, when known, the entries the tag covers (three counts, 4 bytes
/// little-endian each, then the session, trash and tombstone entries, and for a vault that
/// syncs the length of its sync entries, 4 bytes, and them), which the tag itself
/// authenticates: they let journal name the sessions that differ.
struct VaultWitness {
  static let magic = Array("JRNLSEEN".utf8) + [1]
  static let size = 9 + 16 + 8 + 32 + 32

  let path: String
  let vaultID: [UInt8]
  let key: SecureBytes

  /// The record of the vault file at `vault`; nil where there is no home to keep it in.
  init?(vault: String, environment: [String: String], keys: VaultKeys) {
    guard let path = Self.path(vault: vault, vaultID: keys.vaultID, environment: environment)
    else { return nil }
    self.path = path
    self.vaultID = keys.vaultID
    self.key = keys.ledgerKey
  }

  /// Where the record of the vault file at `vault` is kept.
  static func path(vault: String, vaultID: [UInt8], environment: [String: String]) -> String? {
    guard let directory = Self.directory(environment: environment) else { return nil }
    return directory + "/" + Hex.lowercase(vaultID) + "-" + place(vault: vault)
  }

  /// Which file `vault` is, as a name part: 16 hex digits of the hash of its real path. Two
  /// copies of one vault (a backup, a second file joined to the same server) share its id
  /// and key, and each has records of its own.
  static func place(vault: String) -> String {
    let real = realpath(vault, nil).map { pointer in
      defer { free(pointer) }
      return String(cString: pointer)
    }
    return String(Hex.lowercase(KeyedHash.unkeyed(Array((real ?? vault).utf8))).prefix(16))
  }

  /// The BLAKE2b-256 of the sync server's address as this computer last saw it in the vault
  /// (from the sync entries of its record), nil when it has none. Not authenticated: it only
  /// chooses the words after the keyed check has refused the vault.
  static func recordedServer(vault: String, vaultID: [UInt8], environment: [String: String])
    -> [UInt8]?
  {
    guard let path = path(vault: vault, vaultID: vaultID, environment: environment),
      let data = FileManager.default.contents(atPath: path), data.count >= size + 12
    else { return nil }
    let bytes = Array(data)
    let counts = (0..<3).map { Int(number(UInt32.self, in: bytes, at: size + 4 * $0) ?? 0) }
    let offset = size + 12 + counts[0] * 26 + counts[1] * 50 + counts[2] * 17
    guard offset >= size + 12, offset + 4 <= bytes.count else { return nil }
    let sync = bytes[(offset + 4)...]
    // 0x04 ‖ device (16) ‖ seq (8) ‖ head (32) ‖ header hash (32) ‖ server's hash (32) ‖ …
    guard sync.count >= 121, sync.first == 4 else { return nil }
    return Array(sync.dropFirst(89).prefix(32))
  }

  static func directory(environment: [String: String]) -> String? {
    if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") {
      return state + "/journal/seen"
    }
    guard let home = environment["HOME"], home.hasPrefix("/") else { return nil }
    return home + "/.local/state/journal/seen"
  }

  /// Whether the record holds the entries its tag covers (it is longer than the stamp alone).
  private var hasEntries: Bool {
    var info = stat()
    return lstat(path, &info) == 0 && Int(info.st_size) > Self.size
  }

  /// Compares the vault's stamp with the record, and moves the record forward to it.
  func check(_ stamp: LedgerStamp) throws {
    if let seen = try read() {
      try Self.compare(seen: seen, found: stamp)
      // A record made after a write of a few sessions has no entries (its cost must not grow
      // with the journal): the first whole check at the same generation adds them.
      if seen.generation == stamp.generation, stamp.rows == nil || hasEntries { return }
    }
    // Moving the record forward is best effort: a record left behind is moved by the next
    // command, and is never taken for a rollback (it is older, not newer).
    try? record(stamp)
  }

  /// The sessions by which the vault's rows now differ from those this record saw, when the
  /// record saw the generation the vault still claims (rows changed behind its ledger's back);
  /// nil when that cannot be told.
  func differences(in vault: Vault) -> Tampering? {
    guard let seen = try? read(rows: true), let seenRows = seen.rows,
      let stored = try? vault.ledgerStamp(), stored.generation == seen.generation,
      let now = try? vault.ledgerRows()
    else { return nil }
    let (missing, added, changed) = now.differences(from: seenRows)
    guard !(missing.isEmpty && added.isEmpty && changed.isEmpty) else {
      // No session differs: a setting the ledger covers may (format 11).
      return now.settings != nil && seenRows.settings != nil && now.settings != seenRows.settings
        ? .settings : nil
    }
    return .sessions(
      missing: missing.map(\.short), added: added.map(\.short), changed: changed.map(\.short))
  }

  /// Refuses a vault found at `found` where `seen` was seen before: older, or as old with
  /// another history.
  static func compare(seen: LedgerStamp, found: LedgerStamp) throws {
    if seen.generation > found.generation {
      throw AppError.olderThanSeen(seen: seen.generation, found: found.generation)
    }
    if seen.generation == found.generation, !KeyedHash.same(seen.tag, found.tag) {
      throw AppError.otherThanSeen(generation: seen.generation)
    }
  }

  /// The stamp recorded, nil when this computer has none for the vault; with `rows`, the
  /// entries too (read and authenticated only when asked: every command reads the stamp).
  func read(rows wanted: Bool = false) throws -> LedgerStamp? {
    guard try FileSafety.privateFile(path) else { return nil }
    let handle = FileHandle(forReadingAtPath: path)
    defer { try? handle?.close() }
    guard let handle,
      let data = try? (wanted ? handle.readToEnd() : handle.read(upToCount: Self.size))
    else { throw AppError.witnessDamaged(path: path) }
    let bytes = Array(data)
    guard bytes.count >= Self.size, Array(bytes[0..<9]) == Self.magic,
      Array(bytes[9..<25]) == vaultID,
      KeyedHash.same(try mac(Array(bytes[0..<65])), Array(bytes[65..<97]))
    else { throw AppError.witnessDamaged(path: path) }
    let generation = Self.number(UInt64.self, in: bytes, at: 25) ?? 0
    let stamp = LedgerStamp(generation: generation, tag: Array(bytes[33..<65]))
    guard wanted, bytes.count > Self.size else { return stamp }
    // The entries: authenticated by the tag itself.
    guard bytes.count >= Self.size + 12 else { throw AppError.witnessDamaged(path: path) }
    let counts = (0..<3).map {
      Int(Self.number(UInt32.self, in: bytes, at: Self.size + 4 * $0) ?? 0)
    }
    let sizes = [counts[0] * 26, counts[1] * 50, counts[2] * 17]
    var offset = Self.size + 12
    var parts: [[UInt8]] = []
    for size in sizes {
      guard size >= 0, offset + size <= bytes.count else {
        throw AppError.witnessDamaged(path: path)
      }
      parts.append(Array(bytes[offset..<offset + size]))
      offset += size
    }
    // What sync agreed (a vault that syncs): its length (4 bytes) and its bytes.
    var sync: [UInt8] = []
    if offset < bytes.count {
      guard offset + 4 <= bytes.count else { throw AppError.witnessDamaged(path: path) }
      let size = Int(Self.number(UInt32.self, in: bytes, at: offset) ?? 0)
      offset += 4
      guard offset + size <= bytes.count else { throw AppError.witnessDamaged(path: path) }
      sync = Array(bytes[offset..<offset + size])
      offset += size
    }
    guard offset == bytes.count,
      let rows = LedgerRows(
        sessions: parts[0], trash: parts[1], tombstones: parts[2], sync: sync),
      rows.authenticate(stamp, vaultID: vaultID, key: key)
    else { throw AppError.witnessDamaged(path: path) }
    return LedgerStamp(generation: generation, tag: stamp.tag, rows: rows)
  }

  /// The little-endian number of `T`'s size at `offset` of `bytes`; nil past their end.
  static func number<T: FixedWidthInteger>(_: T.Type, in bytes: [UInt8], at offset: Int) -> T? {
    bytes.withUnsafeBytes { raw in
      var reader = ByteReader(raw, from: offset)
      return offset >= 0 && offset <= bytes.count ? try? reader.littleEndian(T.self) : nil
    }
  }

  /// Records `stamp` unless the record is already at a later generation (another journal
  /// wrote after this one and recorded first).
  func advance(to stamp: LedgerStamp) throws {
    if let seen = try? read(), seen.generation >= stamp.generation { return }
    try record(stamp)
  }

  /// Writes `stamp` as the record, atomically (a new file renamed over the old one).
  func record(_ stamp: LedgerStamp) throws {
    let directory = FileSafety.parentDirectory(of: path)
    try FileSafety.privateDirectory(directory, create: true)
    var bytes = Self.magic + vaultID
    bytes.append(littleEndian: stamp.generation)
    bytes += stamp.tag
    bytes += try mac(bytes)
    if let rows = stamp.rows {
      for part in [rows.sessions.count / 26, rows.trash.count / 50, rows.tombstones.count / 17] {
        bytes.append(littleEndian: UInt32(part))
      }
      bytes += rows.sessions + rows.trash + rows.tombstones
      if !rows.sync.isEmpty {
        bytes.append(littleEndian: UInt32(rows.sync.count))
        bytes += rows.sync
      }
    }
    try Self.replace(path, with: bytes)
  }

  /// Writes `bytes` as the file at `path` (0600), atomically: a new file renamed over the
  /// old one. Not synced to disk: the records kept this way (this one, the sealing pin) are
  /// only older after a power cut, and an older one is never taken for an attack.
  static func replace(_ path: String, with bytes: [UInt8]) throws {
    // Its own name per process: journals writing at once must not remove each other's.
    let temporary = path + ".\(getpid()).tmp"
    unlink(temporary)
    try FileSafety.createExclusively(temporary)
    let fd = open(temporary, O_WRONLY | O_NOFOLLOW | O_CLOEXEC)
    guard fd >= 0 else { throw SystemError.io(path: temporary, errno: errno) }
    if let failure = FileSafety.writeAll(fd, bytes, removingOnFailure: temporary) {
      throw SystemError.io(path: temporary, errno: failure)
    }
    guard rename(temporary, path) == 0 else {
      let failure = errno
      unlink(temporary)
      throw SystemError.io(path: path, errno: failure)
    }
  }

  private func mac(_ bytes: [UInt8]) throws -> [UInt8] {
    let hash = try KeyedHash(key: key)
    hash.update(bytes)
    return hash.finish()
  }
}

/// Every witness this computer has of a vault's last state: its record on disk and, while the
/// vault is unlocked, its agent, which holds the latest state in memory and so also notices a
/// vault put back together with the record on disk.
struct Witnesses {
  let record: VaultWitness?
  /// Tells the agent a stamp and returns the latest it knows; nil without an agent.
  let agent: ((LedgerStamp) -> LedgerStamp?)?

  /// Refuses a vault older than, or another than, what a witness saw; moves them forward.
  func check(_ stamp: LedgerStamp) throws {
    try record?.check(stamp)
    if let seen = agent?(stamp) { try VaultWitness.compare(seen: seen, found: stamp) }
  }

  /// The latest generation a witness saw.
  func latest() -> UInt64 {
    let recorded = (try? record?.read())?.generation ?? 0
    let remembered = agent?(LedgerStamp(generation: 0, tag: [UInt8](repeating: 0, count: 32)))
    return max(recorded, remembered?.generation ?? 0)
  }

  /// After a write: the new stamp, to every witness (best effort: a record left behind is
  /// moved forward by the next command's check).
  func advance(to stamp: LedgerStamp) {
    try? record?.advance(to: stamp)
    _ = agent?(stamp)
  }

  /// After `verify --accept`: the stamp the vault now has, recorded as it is.
  func trust(_ stamp: LedgerStamp) throws {
    try record?.record(stamp)
    _ = agent?(stamp)
  }
}
