import Foundation
import GRDB
import JournalCore
import JournalCrypto
import JournalStorage

/// Changing the data key itself (SECURITY.md, "Key rotation"): every sealed value re-sealed
/// under a new one, in a streaming pass that a crash at any point leaves resumable.
///
/// Ordering rules kept here:
/// - `begin` is one transaction: the header becomes the old key under the new passphrase,
///   `rotation_key` the new key under the same, `rotation_cursor` empty, the recovery slot
///   removed (it wraps the old key), the trash sealed again under the new key (an undo, which
///   needs no key, may bring a row back behind the cursor at any moment), and the ledger
///   stamped anew under the new ledger key. From then on only the new passphrase opens the
///   vault; a process still holding the old key fails the ledger's check at its next session
///   write, and its header, recovery-slot and sealing-key writes find another key and refuse.
/// - Session rows are re-sealed in id order, a batch a transaction, each moving the cursor:
///   rows up to the cursor are under the new key, rows after it under the old. Their id,
///   status and revision do not change, so the ledger's tag holds throughout.
/// - `finish` is one transaction: additions still waiting (sealed to the old public key)
///   sealed again to the new one, the header swapped to the new key, the rotation columns
///   cleared, the sealing key replaced, the ledger stamped.
/// - A row may be under either key while a rotation is under way (behind the cursor, or
///   brought back by undo, or added by opening sealed additions): readers try the new key,
///   then the old.
/// - Whoever opens the vault with the passphrase while `rotation_key` is set resumes.
public final class KeyRotation {
  let vault: Vault
  public let old: VaultKeys
  public let new: VaultKeys
  private let oldCipher: RecordCipher
  private let newCipher: RecordCipher

  init(vault: Vault, old: VaultKeys, new: VaultKeys, random: some RandomSource) throws {
    self.vault = vault
    self.old = old
    self.new = new
    oldCipher = try RecordCipher(keys: old, random: random)
    newCipher = try RecordCipher(keys: new, random: random)
  }

  /// Begins a rotation from `old` to `new`: `header` holds the old key and `rotation` the new
  /// one, both under the new passphrase (`VaultKeys.wrap(passphrase:limits:alongside:)`).
  /// The vault is checked against its ledger under the old key first. On a vault that syncs,
  /// what it agreed with the server moves to the new key in the same transaction, and its
  /// place in the server's chain to `position` (where the new key's chain goes on).
  public static func begin(
    _ vault: Vault, old: VaultKeys, new: VaultKeys, header: KeyHeader, rotation: [UInt8],
    position: SyncPosition? = nil, random: some RandomSource
  ) throws -> KeyRotation {
    precondition(header.vaultID == vault.header.vaultID && new.vaultID == old.vaultID)
    if let readOnly = vault.readOnly {
      throw StoreError.readOnly(path: vault.path, reason: readOnly)
    }
    let rotator = try KeyRotation(vault: vault, old: old, new: new, random: random)
    // The stores whose keys read and write what sync agreed (no check of their own: the
    // ledger is verified below, inside the transaction).
    let stores = try [old, new].map { keys in
      SessionStore(
        vault: vault, cipher: try RecordCipher(keys: keys, random: random),
        ledger: Ledger(vaultID: keys.vaultID, key: keys.ledgerKey),
        fingerprintKey: keys.fingerprintKey, random: random)
    }
    let syncStores = (old: stores[0], new: stores[1])
    try vault.write { db in
      let stamp = try Ledger.stamp(db)
      if let stamp {
        try Ledger(vaultID: old.vaultID, key: old.ledgerKey).verify(db, against: stamp)
      }
      try db.execute(
        sql: """
          UPDATE vault SET kdf_opslimit = ?, kdf_memlimit = ?, kdf_salt = ?, wrapped_key = ?,
            rotation_key = ?, rotation_cursor = '', recovery_slot = NULL
          WHERE wrapped_key = ? AND rotation_key IS NULL
          """,
        arguments: [
          Int64(header.limits.opsLimit), Int64(header.limits.memLimit), Data(header.salt),
          Data(header.wrappedKey), Data(rotation), Data(vault.header.wrappedKey),
        ])
      guard db.changesCount == 1 else { throw StoreError.keyChanged }
      // Before any session is sealed again: the agreed fingerprints are checked against the
      // values as the old key reads them.
      try syncStores.old.rekeySync(to: syncStores.new, position: position, db)
      try rotator.resealRows("trash", where: "outcome IS NULL AND length(summary) > 0", db)
      try Ledger(vaultID: new.vaultID, key: new.ledgerKey).commit(db, after: stamp)
    }
    vault.replaceHeaderInMemory(header)
    return rotator
  }

  /// The rotation under way in `vault`, with the keys `VaultKeys.open(…rotation:)` gave.
  public static func resume(
    _ vault: Vault, old: VaultKeys, new: VaultKeys, random: some RandomSource
  ) throws -> KeyRotation {
    try KeyRotation(vault: vault, old: old, new: new, random: random)
  }

  /// Re-seals the session rows still under the old key, `batch` rows a transaction, in id
  /// order from the cursor; `progress` is told how many so far. A row that does not open
  /// under the old key (damaged, or already under the new one) is left as it is.
  @discardableResult
  public func resealSessions(batch: Int = 256, progress: (Int) throws -> Void = { _ in }) throws
    -> Int
  {
    var done = 0
    while true {
      let count = try vault.write { db -> Int in
        guard
          let cursor = try String.fetchOne(db, sql: "SELECT rotation_cursor FROM vault")
        else { return 0 }
        let rows = try resealRows(
          "session", where: "id > ? ORDER BY id LIMIT ?", arguments: [cursor, batch], db)
        guard let last = rows.last else { return 0 }
        try db.execute(
          sql: "UPDATE vault SET rotation_cursor = ?",
          arguments: [try last.decode(String.self, atIndex: 0)])
        return rows.count
      }
      guard count > 0 else { return done }
      done += count
      try progress(done)
    }
  }

  /// Seals again the rows of `table` (session or trash) that `condition` takes; the rows read.
  @discardableResult
  func resealRows(
    _ table: String, where condition: String, arguments: StatementArguments = [],
    _ db: Database
  ) throws -> [Row] {
    let rows = try Row.fetchAll(
      db, sql: "SELECT id, summary, body, revision FROM \(table) WHERE \(condition)",
      arguments: arguments)
    for row in rows {
      let id: String = try row.decode(String.self, atIndex: 0)
      if let sealed = try reseal(row, id: id) {
        try db.execute(
          sql: "UPDATE \(table) SET summary = ?, body = ? WHERE id = ?",
          arguments: [sealed.summary, sealed.body, id])
      }
    }
    return rows
  }

  /// The row's two columns (columns 1 and 2 of `row`, revision column 3) re-sealed under
  /// the new key at the same revision; nil when they do not open under the old one.
  private func reseal(_ row: Row, id text: String) throws -> (summary: Data, body: Data)? {
    guard let id = SessionID(text),
      let summary = try? row.decode(Data.self, atIndex: 1),
      let body = try? row.decode(Data.self, atIndex: 2)
    else { return nil }
    let revision = UInt64(max((try? row.decode(Int64.self, atIndex: 3)) ?? 0, 0))
    func again(_ sealed: Data, _ column: RecordCipher.Column) throws -> Data? {
      guard
        var plain = try? oldCipher.open(
          Array(sealed), id: id.bytes, column: column, revision: revision, { Array($0) })
      else { return nil }
      defer { wipe(&plain) }
      return Data(try newCipher.seal(plain, id: id.bytes, column: column, revision: revision))
    }
    guard let newSummary = try again(summary, .summary), let newBody = try again(body, .body)
    else { return nil }
    return (newSummary, newBody)
  }

  /// Finishes: the additions still waiting sealed again to the new public key, the header
  /// swapped to the new key, the sealing key and the recovery slot (`recoverySlot`, wrapping
  /// the new key, or none) replaced, the ledger stamped, in one transaction.
  public func finish(recoverySlot: [UInt8]?) throws {
    try vault.write { db in
      let stamp = try Ledger.stamp(db)
      let ledger = Ledger(vaultID: new.vaultID, key: new.ledgerKey)
      if let stamp { try ledger.verify(db, against: stamp) }
      // Sealed to the old public key: one the old key alone opens. A box that does not
      // open is left as it is (it is reported when opened, as it would have been).
      for row in try Row.fetchAll(db, sql: "SELECT seq, box FROM addition") {
        let box = Array(try row.decode(Data.self, atIndex: 1))
        guard var plain = try? SealedBox.open(box, keys: old, { Array($0) }) else { continue }
        defer { wipe(&plain) }
        try db.execute(
          sql: "UPDATE addition SET box = ? WHERE seq = ?",
          arguments: [
            Data(try SealedBox.seal(plain, to: new.sealingPublicKey)),
            try row.decode(Int64.self, atIndex: 0),
          ])
      }
      try db.execute(
        sql: """
          UPDATE vault SET wrapped_key = rotation_key, rotation_key = NULL,
            rotation_cursor = NULL, recovery_slot = ?,
            sealing_key = CASE WHEN sealing_key IS NULL THEN NULL ELSE ? END
          """,
        arguments: [recoverySlot.map { Data($0) }, Data(new.sealingPublicKey)])
      try ledger.commit(db, after: stamp)
    }
    try vault.reloadHeader()
  }
}

extension Vault {
  /// The new data key wrapped under the passphrase while a rotation is under way; nil when
  /// none is. No key needed.
  public func rotationKey() throws -> [UInt8]? {
    try read { db in
      let row = try Row.fetchOne(db, sql: "SELECT rotation_key FROM vault")
      return try row?.decode(Data?.self, atIndex: 0).map { Array($0) }
    }
  }
}
