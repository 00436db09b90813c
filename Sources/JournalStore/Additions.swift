import Foundation
import GRDB
import JournalCore
import JournalCrypto
import JournalStorage

/// Sealed additions (SECURITY.md, "Sealed additions"): sessions and later fields written
/// without the passphrase, sealed to the vault's public key, kept in the `addition` table
/// until a command that holds the key opens them into ordinary sessions.
///
/// Ordering: an addition is one INSERT (keyless, one transaction); opening them is one keyed
/// write that inserts or updates the sessions, deletes the additions and stamps the ledger
/// together, so a crash leaves either every addition waiting or every one opened.
extension Vault {
  /// What a sealed addition carries.
  public enum AdditionKind: String, Sendable {
    /// A whole new session.
    case new
    /// Later fields (mood after, environment, music, reflection) of a session.
    case later
  }

  /// Whether sealed capture is on (the public key additions are sealed to, nil when it is
  /// off), and whether the person has been told it can be turned on.
  public struct Sealing: Sendable, Equatable {
    public let publicKey: [UInt8]?
    public let offered: Bool
  }

  /// The vault's sealed-capture setting, from the clear columns (no key needed).
  public func sealing() throws -> Sealing {
    try read { db in
      let row = try Row.fetchOne(db, sql: "SELECT sealing_key, sealing_offered FROM vault")
      let key = try row?.decode(Data?.self, atIndex: 0)
      let offered = try row?.decode(Int64.self, atIndex: 1) ?? 0
      return Sealing(publicKey: key.map { Array($0) }, offered: offered != 0)
    }
  }

  /// Puts back the public key sealed capture seals to (a key changed in the file; on stays
  /// on, so the ledger's settings entry is as it was), under the key this process opened
  /// (see `replaceHeader`). Turning it on or off is `SessionStore.setSealing`, a keyed write.
  public func repairSealing(publicKey: [UInt8]) throws {
    try write { db in try setSealing(publicKey: publicKey, db) }
  }

  /// Sets the sealing key (nil: off) and marks it offered, under the key this process opened.
  func setSealing(publicKey: [UInt8]?, _ db: Database) throws {
    try db.execute(
      sql: """
        UPDATE vault SET sealing_key = ?, sealing_offered = 1
        WHERE wrapped_key = ? AND rotation_key IS NULL
        """,
      arguments: [publicKey.map { Data($0) }, Data(header.wrappedKey)])
    guard db.changesCount == 1 else { throw StoreError.keyChanged }
  }

  /// Remembers that sealed capture has been offered, so that it is offered once.
  public func markSealingOffered() throws {
    try write { db in try db.execute(sql: "UPDATE vault SET sealing_offered = 1") }
  }

  /// Adds one sealed addition (no key needed). A new session must have an id no session or
  /// addition has; later fields must be for a session in the vault or waiting as an
  /// addition. `completes`: later fields that hold a reflection, after which the session no
  /// longer waits (its reminder is cleared).
  public func addSealed(
    _ kind: AdditionKind, id: SessionID, completes: Bool, at time: Date, box: [UInt8],
    sealedTo publicKey: [UInt8]
  ) throws {
    try write { db in
      // Sealed to the key the vault asks for now: a key changed since the form began (a key
      // rotation) makes this box one nobody could open, so it is refused and the draft kept.
      let current = try Row.fetchOne(db, sql: "SELECT sealing_key FROM vault")
      guard let stored = try current?.decode(Data?.self, atIndex: 0),
        KeyedHash.same(Array(stored), publicKey)
      else { throw StoreError.keyChanged }
      let known =
        try Bool.fetchOne(
          db,
          sql: """
            SELECT EXISTS (SELECT 1 FROM session WHERE id = ?1)
              OR EXISTS (SELECT 1 FROM addition WHERE id = ?1 AND kind = 'new')
            """, arguments: [id.hex]) ?? false
      switch kind {
      case .new:
        guard try !known && !SessionStore.idTaken(id, db) else {
          throw StoreError.ambiguous(prefix: id.hex, candidates: [])
        }
      case .later: guard known else { throw StoreError.noMatch(prefix: id.short) }
      }
      let status: String? =
        switch kind {
        case .new: completes ? "complete" : "needs_reflection"
        case .later: completes ? "complete" : nil
        }
      try db.execute(
        sql: "INSERT INTO addition (id, kind, status, added_at, box) VALUES (?, ?, ?, ?, ?)",
        arguments: [id.hex, kind.rawValue, status, Self.millis(time), Data(box)])
      if completes {
        try db.execute(sql: "DELETE FROM reminder WHERE id = ?", arguments: [id.hex])
      }
    }
  }

  /// How many sealed additions wait to be opened with the key.
  public func sealedCount() throws -> Int {
    try read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM addition") ?? 0 }
  }

  /// The one session whose id starts with what the person typed, among the sessions and the
  /// new sessions waiting sealed (clear ids: no key needed).
  public func resolveForSealing(_ text: String) throws -> SessionID {
    guard let prefix = SessionID.normalisedPrefix(text) else {
      throw StoreError.noMatch(prefix: text)
    }
    let ids = try read { db in
      try String.fetchAll(
        db,
        sql: """
          SELECT id FROM session WHERE id >= ?1 AND id < ?2
          UNION SELECT id FROM addition WHERE kind = 'new' AND id >= ?1 AND id < ?2
          ORDER BY id LIMIT 6
          """, arguments: [prefix, prefix + "g"])
    }
    guard let first = ids.first, let id = SessionID(first) else {
      throw StoreError.noMatch(prefix: prefix)
    }
    guard ids.count == 1 else {
      throw StoreError.ambiguous(prefix: prefix, candidates: ids.map { String($0.prefix(8)) })
    }
    return id
  }

  /// Sessions waiting for reflection, counted from the clear columns: sessions and new
  /// sealed additions that wait, less those a sealed reflection completes.
  static let waitingSQL = """
    SELECT (SELECT count(*) FROM session WHERE status = 'needs_reflection'
              AND id NOT IN (SELECT id FROM addition WHERE kind = 'later' AND status = 'complete'))
         + (SELECT count(*) FROM addition WHERE kind = 'new' AND status = 'needs_reflection'
              AND id NOT IN (SELECT id FROM addition WHERE kind = 'later' AND status = 'complete'))
    """
}

/// What opening the sealed additions did.
public struct OpenedAdditions: Sendable, Equatable {
  /// Sessions added without the passphrase, now ordinary sessions.
  public var added: [SessionID] = []
  /// New sessions that claimed the id of a session this vault has, holds in the trash or
  /// purged (`claimed`), opened apart under a new id (`keptAs`): an addition never takes the
  /// place of a person's session, its undo or its tombstone.
  public var keptApart: [KeptApart] = []
  /// Sessions whose later fields were written without the passphrase, now applied.
  public var updated: [SessionID] = []
  /// Additions that did not open (altered, sealed to another key, not of the layout, or a
  /// clear value out of range), by the id they name; each was removed, as nothing can ever
  /// open it.
  public var damaged: [SessionID] = []
  /// Additions whose clear id is not an id at all (the file was edited), removed.
  public var unnamed = 0
  /// Later fields for a session deleted since they were written (or whose own sealed
  /// addition did not open): nothing is left to add them to, and they were removed.
  public var orphaned: [SessionID] = []

  public init() {}
}

extension SessionStore {
  /// Turns sealed capture on (with the vault's public key) or off (nil): a keyed write,
  /// stamped by the ledger, which covers the setting (format 11).
  public func setSealing(publicKey: [UInt8]?) throws {
    try write { db in try vault.setSealing(publicKey: publicKey, db) }
  }

  /// Replaces the recovery slot (nil removes it) in one keyed write: the old code stops
  /// working as the new one starts, and the ledger covers the slot (format 11).
  public func setRecoverySlot(_ slot: [UInt8]?) throws {
    try write { db in
      // Only under the key this process opened (see `Vault.replaceHeader`).
      try db.execute(
        sql: "UPDATE vault SET recovery_slot = ? WHERE wrapped_key = ? AND rotation_key IS NULL",
        arguments: [slot.map { Data($0) }, Data(vault.header.wrappedKey)])
      guard db.changesCount == 1 else { throw StoreError.keyChanged }
    }
  }

  /// The largest box an addition can be: a new session with every text at its limit (four
  /// of 1 MiB, two of 200 bytes) and the rest, padded, sealed. A box longer than this was not
  /// sealed by journal: it is damage, never read (a planted 900 MB blob must not fill memory).
  static let largestBox = 4 * 1_048_576 + 65_536

  /// Opens every sealed addition into ordinary sessions marked as added without the
  /// passphrase, in one keyed write with the ledger's stamp; removes them. New sessions are
  /// opened first (oldest first), then later fields (oldest first), one box in memory at a
  /// time.
  ///
  /// Everything an addition holds is the word of whoever could write the file: each clear
  /// value is checked where it is read (an id, a kind, a time in range, a box's size), the
  /// sealed fields as a stored session's are, and a new session never takes an id the vault
  /// has, had or holds in the trash, an id of a draft on this computer (`reserved`), or an
  /// id another waiting addition claims too: it is opened apart under a new id. Later fields
  /// for an id two additions claimed go to each of them (the person's words are never lost,
  /// and the stranger's copy is marked); later fields too long to join a text are opened
  /// apart as a session of their own.
  public func openAdditions(
    keys: VaultKeys, now: Date, random: some RandomSource, reserved: Set<SessionID> = []
  ) throws -> OpenedAdditions {
    guard try vault.sealedCount() > 0 else { return OpenedAdditions() }
    return try write { db in
      var opened = OpenedAdditions()
      let contested = Set(
        try String.fetchAll(
          db,
          sql: "SELECT id FROM addition WHERE kind = 'new' GROUP BY id HAVING count(*) > 1"
        ).compactMap(SessionID.init))
      // Where the sessions of contested ids went: later fields follow each.
      var keptAs: [SessionID: [SessionID]] = [:]
      let rows = try Row.fetchAll(
        db,
        sql: """
          SELECT seq, id, kind, added_at, typeof(box), length(box) FROM addition
          ORDER BY kind = 'later', seq
          """)
      // Sessions given notes, each written once after every addition is opened: a person's
      // notes (or a planter's thousands) cost one write of the session, not one each.
      var noted: [SessionID: Session] = [:]
      for row in rows {
        // `seq` is the INTEGER PRIMARY KEY: SQLite keeps it an integer whatever is planted.
        let seq = (try? row.decode(Int64.self, atIndex: 0)) ?? 0
        let remove = {
          try db.execute(sql: "DELETE FROM addition WHERE seq = ?", arguments: [seq])
        }
        guard let text = try? row.decode(String.self, atIndex: 1), let id = SessionID(text)
        else {
          opened.unnamed += 1
          try remove()
          continue
        }
        guard let kindText = try? row.decode(String.self, atIndex: 2),
          let kind = Vault.AdditionKind(rawValue: kindText),
          let addedAt = try? row.decode(Int64.self, atIndex: 3),
          let added = StoredRange.date(millis: addedAt),
          (try? row.decode(String.self, atIndex: 4)) == "blob",
          let size = try? row.decode(Int64.self, atIndex: 5), size <= Self.largestBox,
          let boxData = try Data.fetchOne(
            db, sql: "SELECT box FROM addition WHERE seq = ?", arguments: [seq])
        else {
          opened.damaged.append(id)
          try remove()
          continue
        }
        var box = Array(boxData)
        defer { wipe(&box) }
        do {
          switch kind {
          case .new:
            var session = try SealedBox.open(box, keys: keys) { plain in
              try RecordCodec.decodeNewAddition(plain, id: id)
            }
            session.markOpened(addedAt: added, now: now)
            if try contested.contains(id) || reserved.contains(id) || Self.idTaken(id, db) {
              let fresh = try freshID(db)
              session = session.reidentified(as: fresh)
              opened.keptApart.append(.init(claimed: id, keptAs: fresh))
              if contested.contains(id) { keptAs[id, default: []].append(fresh) }
            } else {
              opened.added.append(id)
            }
            try put(session, db)
          case .later:
            let (changes, note, _) = try SealedBox.open(box, keys: keys) { plain in
              try RecordCodec.decodeLaterAddition(plain)
            }
            let targets = keptAs[id] ?? [id]
            var applied = false
            for target in targets {
              if let note {
                if try applyNote(
                  note, to: target, addedAt: added, now: now, db, &noted, &opened)
                {
                  applied = true
                }
                continue
              }
              // Later fields read the session as the notes before them left it.
              if let session = noted.removeValue(forKey: target) { try put(session, db) }
              if try applyLater(changes, to: target, addedAt: added, now: now, db, &opened) {
                applied = true
              }
            }
            if !applied, keptAs[id] == nil {
              if try Self.revision(of: id, db) == nil {
                // A session in the trash may come back by undo: its additions wait for it.
                let trashed =
                  try Bool.fetchOne(
                    db,
                    sql: "SELECT EXISTS (SELECT 1 FROM trash WHERE id = ? AND outcome IS NULL)",
                    arguments: [id.hex]) ?? false
                if trashed { continue }
                opened.orphaned.append(id)
                try remove()
                continue
              }
              // A session that does not open keeps its additions waiting (reported when read).
              continue
            }
          }
        } catch let error as StoreError {
          throw error
        } catch let error as DatabaseError {
          throw error
        } catch {
          opened.damaged.append(id)
        }
        try remove()
      }
      for session in noted.values { try put(session, db) }
      // A reminder of a new addition that did not open waits for nothing any more.
      try db.execute(
        sql: """
          DELETE FROM reminder
          WHERE id NOT IN (SELECT id FROM session WHERE status = 'needs_reflection')
            AND id NOT IN (SELECT id FROM addition WHERE kind = 'new' AND status = 'needs_reflection')
          """)
      return opened
    }
  }

  /// Applies later fields to the session `id`, as `Session.addSealed` joins them. A text that
  /// would grow past its field's limit is not joined: the fields are opened apart, as a
  /// session of their own marked and named, so that no word is lost and every session stays
  /// one an export can bring back in. False when there is no such session, or it does not
  /// open.
  private func applyLater(
    _ changes: [Session.Change], to id: SessionID, addedAt added: Date, now: Date,
    _ db: Database, _ opened: inout OpenedAdditions
  ) throws -> Bool {
    guard try Self.revision(of: id, db) != nil, var session = try? fetch(id, db) else {
      return false
    }
    var joined = session
    try joined.addSealed(changes, at: added, now: now)
    let fits = [Field.environment, .music, .reflection].allSatisfy { field in
      (joined.text(of: field)?.utf8.count ?? 0) <= field.maximumBytes
    }
    if fits {
      session = joined
      try put(session, db)
      if !opened.added.contains(id), !opened.updated.contains(id) { opened.updated.append(id) }
      return true
    }
    let fresh = try freshID(db)
    var apart = Session(
      id: fresh, date: session.date, treatment: session.treatment, dose: nil,
      intention: "Later fields written without the passphrase for session \(id.short), too "
        + "long to join it",
      moodBefore: nil, environment: nil, music: nil, moodAfter: nil, reflection: nil,
      created: now, updated: now, status: .needsReflection)
    try apart.addSealed(changes, at: added, now: now)
    if apart.status == .needsReflection { try apart.apply(.close, now: now) }
    apart.markOpened(addedAt: added, now: now)
    try put(apart, db)
    opened.keptApart.append(.init(claimed: id, keptAs: fresh))
    return true
  }

  /// Adds a note written without the passphrase to the session `id` (as `noted` holds it,
  /// written once all additions are opened). Only its text and mood are the writer's: it is
  /// marked as added so, dated no later than its addition was kept (`added`, from the clear
  /// row) and the opening and no earlier than the session was created, and given a fresh random id and version, so that no planted note
  /// can stand in for one of the person's, choose where it sorts, or make the session
  /// unreadable. A note past what a session takes (in number or in text) is opened apart as
  /// a session of its own, marked and named. False when there is no such session, or it does
  /// not open.
  private func applyNote(
    _ sealed: Note, to id: SessionID, addedAt added: Date, now: Date, _ db: Database,
    _ noted: inout [SessionID: Session], _ opened: inout OpenedAdditions
  ) throws -> Bool {
    guard try Self.revision(of: id, db) != nil,
      var session = noted[id] ?? (try? fetch(id, db))
    else { return false }
    // Only what `journal note` writes: a text as typed text is checked (no control
    // character a terminal would act on when it is shown), else damage.
    guard (try? Note.normalise(sealed.text)) == sealed.text else {
      throw FieldCodec.Malformed()
    }
    var noteID = Note.ID(random.uint64())
    while session.notes.contains(where: { $0.id == noteID }) { noteID = Note.ID(random.uint64()) }
    let note = Note(
      // Never earlier than the session it is added to: a planted date cannot make it note 1.
      id: noteID, written: Note.stored(max(session.created, min(sealed.written, added, now))),
      edited: nil,
      mood: sealed.mood, text: sealed.text, deleted: nil, purgeAfter: nil, addedSealed: true,
      keptFrom: nil, versions: [random.uint64()])
    do {
      try session.addNote(note, now: now)
      session.keepSealedNoteMark(at: added)
      noted[id] = session
      if !opened.added.contains(id), !opened.updated.contains(id) { opened.updated.append(id) }
    } catch {
      let fresh = try freshID(db)
      var apart = Session(
        id: fresh, date: session.date, treatment: session.treatment, dose: nil,
        intention: "A note written without the passphrase for session \(id.short), which "
          + "holds as many notes as it may",
        moodBefore: nil, environment: nil, music: nil, moodAfter: nil, reflection: nil,
        created: now, updated: now, status: .needsReflection)
      try apart.addNote(note, now: now)
      try apart.apply(.close, now: now)
      apart.markOpened(addedAt: added, now: now)
      try put(apart, db)
      opened.keptApart.append(.init(claimed: id, keptAs: fresh))
    }
    return true
  }

  /// Whether a session has this id, or had it (a tombstone), or holds it in the trash
  /// (waiting, or marked by an undo or a purge since the last keyed write).
  static func idTaken(_ id: SessionID, _ db: Database) throws -> Bool {
    try Bool.fetchOne(
      db,
      sql: """
        SELECT EXISTS (SELECT 1 FROM session WHERE id = ?1)
          OR EXISTS (SELECT 1 FROM trash WHERE id = ?1)
          OR EXISTS (SELECT 1 FROM tombstone WHERE id = ?1)
        """, arguments: [id.hex]) ?? false
  }
}
