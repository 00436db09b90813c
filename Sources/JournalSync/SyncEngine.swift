import Foundation
import Glibc
import JournalCore
import JournalCrypto
import JournalStorage
import JournalSystem

/// What one sync did, for the person.
public struct SyncReport: Sendable, Equatable {
  /// Sessions sent to the server, and deletions.
  public var sent = 0
  public var removalsSent = 0
  /// Sessions changed here by other devices, and deleted here because another deleted them.
  public var received = 0
  public var removedHere = 0
  /// Sessions that now hold a text kept from a write at the same time.
  public var conflicted: [SessionID] = []
  /// Sessions that now keep a note another device corrected at the same time, as a note of
  /// its own beside the one shown.
  public var notesKept: [SessionID] = []
  /// Sessions another device deleted that had changes here not yet sent: they went too.
  public var removedWithChanges: [SessionID] = []
  /// Whether the passphrase changed on another device (needed at the next unlock here).
  public var passphraseChanged = false
  /// Whether this device's new passphrase was sent.
  public var passphraseSent = false
  /// Whether the server's tables are of an earlier version that this role may not bring up
  /// to date (their admin can): they let other roles stop this journal's sync.
  public var serverOutdated = false
  /// Another device changed the data key, and this one followed: how many sessions were
  /// sealed again here under the new key; nil when the key did not change.
  public var keyFollowed: Int?
  /// That device's key change made this device's recovery code (which wrapped the old key)
  /// stop working.
  public var recoveryCodeDropped = false
}

/// What `journal sync status` shows; read without the key.
public struct SyncStatus: Sendable, Equatable {
  public let server: String
  public let lastSync: Date?
  public let pendingSessions: Int
  public let pendingRemovals: Int
  public let seq: Int64
  public let background: Bool
  /// The sessions holding a text kept from another device's write at the same time; nil
  /// when they cannot be counted without asking for the passphrase (no agent holds the key).
  public var conflicted: [SessionID]?
  /// A sync of this journal running on this computer now, if one is.
  public var running: Running?

  /// A sync running on this computer, as its lock tells it.
  public struct Running: Sendable, Equatable {
    public let pid: Int32
    public let background: Bool
    public let started: Date?
    /// How long it has gone without progress, in seconds.
    public let quiet: Int
    /// Whether that is longer than any of its waits: it is stuck.
    public let stuck: Bool
  }
}

/// Sync through PostgreSQL (issue 19; SECURITY.md, "Sync"): setup, join, and one sync, over
/// the storage seam's keyed store and a `SyncTransport`.
///
/// One sync: pull what the server has past where this device stopped, check it against the
/// chain of changes, merge it field by field into the sessions here and write that in one
/// transaction; then push what changed here as one new link, if no other device pushed
/// meanwhile (else pull again). A sync cut anywhere loses nothing: the server takes a push
/// whole or not at all, this device writes what it agreed whole or not at all, and a push
/// the server took but this device did not record comes back in the next pull as its own.
public final class SyncEngine {
  /// How far apart two devices' clocks are allowed for when a sync decides that another
  /// device's undo window has closed.
  static let clockAllowance: TimeInterval = 5 * 60

  private let transport: any SyncTransport
  private let options: Options
  private let keys: VaultKeys
  private let store: any SyncStorage

  /// What a sync is handed besides the vault and the server: everything it would otherwise
  /// reach for (the clock, random bytes, where its lock is, the debug build's crash points and
  /// batch size, a way to say a line), so that it prints nothing and reads nothing global.
  public struct Options {
    public var now: () -> Date
    public var random: any RandomSource
    /// The file a sync of this vault holds while it runs (`<vault>.sync-lock`).
    public var lockPath: String
    /// How many sessions go in one push (one link, one transaction on each side), so that
    /// sending a whole journal holds a bounded number of sealed rows at once.
    public var pushBatch: Int
    /// Called at each named point of a sync (a debug build's crash points).
    public var reached: (String) -> Void
    /// A line for the person (a background sync stopped, another one waited for).
    public var note: (String) -> Void

    public init(
      now: @escaping () -> Date, random: any RandomSource, lockPath: String,
      pushBatch: Int = 1000, reached: @escaping (String) -> Void = { _ in },
      note: @escaping (String) -> Void = { _ in }
    ) {
      self.now = now
      self.random = random
      self.lockPath = lockPath
      self.pushBatch = pushBatch
      self.reached = reached
      self.note = note
    }
  }

  /// How often a sync pulls again when other devices push in between.
  static let attempts = 5

  /// How long a sync holding this vault's lock may go without progress before another takes
  /// it for stuck, in milliseconds: longer than any wait of a sync (SyncBounds.answer) by a
  /// margin for the work in between.
  public static let stuckAfter = SyncBounds.standard.answer + 15_000

  /// The lock this sync holds, touched at every answer from the server.
  private var lock: SyncLock?

  public init(
    storage: any SyncStorage, keys: VaultKeys, transport: any SyncTransport, options: Options
  ) {
    self.store = storage
    self.keys = keys
    self.transport = transport
    self.options = options
  }

  // MARK: - Setup and join

  /// Makes this vault the first on the server (creating the schema if the role may), and
  /// sends every session.
  public static func setup(
    _ storage: any SyncStorage, keys: VaultKeys, server: String, transport: any SyncTransport,
    options: Options, stuckAfter: Int = SyncEngine.stuckAfter
  ) throws -> SyncReport {
    let current = try prepareSchema(transport)
    let vaultID = keys.vaultID
    let held = try transport.vaults()
    if held.contains(where: { $0 != vaultID }) { throw SyncError.serverHasOther }
    _ = try transport.addVault(vaultID, header: ServerHeader.encode(storage.keyHeader))
    let settings = SyncSettings(
      server: server, device: options.random.bytes(SyncStamp.deviceBytes))
    try storage.beginSync(settings)
    var report = try SyncEngine(
      storage: storage, keys: keys, transport: transport, options: options
    ).sync(stuckAfter: stuckAfter)
    report.serverOutdated = report.serverOutdated || !current
    return report
  }

  /// Makes the schema, or brings an earlier one up to date; false when it is of an earlier
  /// version this role may not bring up to date.
  @discardableResult
  static func prepareSchema(_ transport: any SyncTransport) throws -> Bool {
    switch try transport.schemaVersion() {
    case nil: try transport.createSchema()
    case let version? where version > ServerSchema.version:
      throw SyncError.serverNewer(found: version, supported: ServerSchema.version)
    case let version? where version < ServerSchema.version:
      return try transport.upgradeSchema()
    default: break
    }
    return true
  }

  /// The key header of the one journal this role holds on the server (for `join`).
  public static func serverHeader(_ transport: any SyncTransport) throws -> KeyHeader {
    let schema = try transport.schemaVersion()
    if let schema, schema > ServerSchema.version {
      throw SyncError.serverNewer(found: schema, supported: ServerSchema.version)
    }
    let vaults = schema == nil ? [] : try transport.vaults()
    guard vaults.count <= 1 else { throw SyncError.serverSeveral(count: vaults.count) }
    guard let vaultID = vaults.first,
      let state = try transport.pull(
        vaultID, links: 1, rowsAfter: .max, passes: 0, begin: { _ in }, rows: { _, _ in })
    else { throw SyncError.serverEmpty(role: transport.role) }
    guard let header = ServerHeader.decode(state.header), header.vaultID == vaultID else {
      throw SyncError.tampered(.changedHeader)
    }
    // Before any passphrase: the header must be the one the last link that set it names.
    // (Not authenticated yet, as the key comes from the header; the chain is checked with it
    // once joined. But a header the server damaged is named as such, not as a passphrase
    // that does not open it.)
    let named = state.links.compactMap { SyncLink(entry: $0.entry)?.header }.last
    if let named, named != SyncLink.hash(state.header) {
      throw SyncError.tampered(.changedHeader)
    }
    return header
  }

  /// Deletes this journal's copy on the server; false when it held none. A server of a newer
  /// schema is left alone.
  public static func deleteServerCopy(vaultID: [UInt8], transport: any SyncTransport) throws
    -> Bool
  {
    guard let schema = try transport.schemaVersion() else { return false }
    guard schema <= ServerSchema.version else {
      throw SyncError.serverNewer(found: schema, supported: ServerSchema.version)
    }
    return try transport.removeVault(vaultID)
  }

  /// A new device: with the vault just made from the server's header, fetches everything.
  public static func join(
    _ storage: any SyncStorage, keys: VaultKeys, server: String, transport: any SyncTransport,
    options: Options, stuckAfter: Int = SyncEngine.stuckAfter
  ) throws -> SyncReport {
    var settings = SyncSettings(
      server: server, device: options.random.bytes(SyncStamp.deviceBytes))
    settings.headerHash = SyncLink.hash(ServerHeader.encode(storage.keyHeader))
    try storage.beginSync(settings)
    return try SyncEngine(
      storage: storage, keys: keys, transport: transport, options: options
    ).sync(stuckAfter: stuckAfter)
  }

  /// What `sync status` shows, without the key; nil when the vault does not sync.
  public static func status(
    settings: SyncSettings, pending: (sessions: Int, removals: Int)
  ) -> SyncStatus {
    SyncStatus(
      server: settings.server, lastSync: settings.lastSync, pendingSessions: pending.sessions,
      pendingRemovals: pending.removals, seq: settings.seq, background: settings.background)
  }

  /// A sync of the vault running on this computer now, as its lock at `lockPath` tells it:
  /// stuck when it has made no progress for `stuckAfter` milliseconds. Nil when none runs.
  public static func running(lockPath: String, now: Date, stuckAfter: Int) -> SyncStatus.Running? {
    guard let holder = SyncLock.holder(lockPath) else { return nil }
    let quiet = now.timeIntervalSince(holder.progress)
    return SyncStatus.Running(
      pid: holder.pid, background: holder.background, started: holder.started,
      quiet: max(Int(quiet), 0), stuck: Int(quiet * 1000) > stuckAfter)
  }

  // MARK: - One sync

  /// Pulls, merges, pushes; what it did. A second sync of the vault on this computer waits
  /// for the first while it makes progress, unless `waiting` is false (a background sync):
  /// then it does nothing. A holder with no progress for `stuckAfter` milliseconds is stuck
  /// (SyncLock): a background one is ended and this sync takes over; another is reported.
  public func sync(waiting: Bool = true, stuckAfter: Int = SyncEngine.stuckAfter)
    throws -> SyncReport
  {
    guard
      let lock = try SyncLock.take(
        options.lockPath, background: !waiting, stuckAfter: stuckAfter, now: options.now,
        note: options.note)
    else { return SyncReport() }
    self.lock = lock
    defer { self.lock = nil }
    return try syncHoldingLock()
  }

  /// One sync, this vault's lock held.
  private func syncHoldingLock() throws -> SyncReport {
    var report = SyncReport()
    var attempts = 0
    var upgraded = false
    while attempts < Self.attempts {
      guard let settings = try store.syncSettings() else { throw SyncError.notSetUp }
      // Fields changed here are stamped from the clock as it was before this sync read
      // anything: an edit made offline last week must not win over one read today.
      if issuing == nil { issuing = settings.clock }
      guard let pulled = try pull(settings, into: &report) else {
        // Another journal changed a session meanwhile: merged again.
        attempts += 1
        continue
      }
      // A server of an earlier schema is brought up to date by a role that owns its tables,
      // once, before this device writes to it.
      if pulled.schema < ServerSchema.version && !upgraded {
        upgraded = true
        report.serverOutdated = try !transport.upgradeSchema()
      }
      switch try push(pulled, into: &report) {
      case .done: return report
      case .more: continue
      case .moved: attempts += 1
      }
    }
    throw SyncError.keptMoving
  }

  // MARK: - A new data key

  /// `passwd --new-key` on a journal that syncs, before anything changes here: syncs under
  /// the key this device holds (so that the server holds everything here, and this device
  /// everything the server holds), then replaces the server's copy in one push: `header`
  /// (the new key under the new passphrase), every row opened under this key and sealed again
  /// under `new`'s, and a link that makes the key, tagged under this key (so every device
  /// holding it can tell the change from a lie) and under the new one (so a device that
  /// joins with the new passphrase begins its chain there). Where this device's place in the
  /// chain moves to; the sync's own report.
  public func sendNewKey(
    _ new: VaultKeys, header: KeyHeader, stuckAfter: Int = SyncEngine.stuckAfter
  ) throws -> (position: SyncPosition, report: SyncReport, sessions: Int) {
    guard
      let lock = try SyncLock.take(
        options.lockPath, background: false, stuckAfter: stuckAfter, now: options.now,
        note: options.note)
    else { throw SyncError.keptMoving }
    self.lock = lock
    defer { self.lock = nil }
    var report = SyncReport()
    for _ in 0..<Self.attempts {
      let synced = try syncHoldingLock()
      report.sent += synced.sent
      report.removalsSent += synced.removalsSent
      report.received += synced.received
      report.removedHere += synced.removedHere
      report.conflicted += synced.conflicted
      report.notesKept += synced.notesKept
      report.removedWithChanges += synced.removedWithChanges
      report.passphraseChanged = report.passphraseChanged || synced.passphraseChanged
      guard let settings = try store.syncSettings() else { throw SyncError.notSetUp }
      if let sent = try replaceServerCopy(settings, new: new, header: header) {
        return (sent.position, report, sent.sessions)
      }
    }
    throw SyncError.keptMoving
  }

  /// The server's copy sealed again under `new`, in one push that goes through only if no
  /// device pushed since this one's sync; nil when one did (sync again).
  private func replaceServerCopy(_ settings: SyncSettings, new: VaultKeys, header: KeyHeader)
    throws -> (position: SyncPosition, sessions: Int)?
  {
    var verified: VerifiedChain?
    var moved = false
    var seq: Int64 = 0
    var seen: Set<SessionID> = []
    var rows: [ServerRow] = []
    var items: [SyncLink.Item] = []
    let old = try RecordCipher(key: keys.syncKey, random: options.random)
    let fresh = try RecordCipher(key: new.syncKey, random: options.random)
    // The whole chain under this key is read again: every row is checked against the last
    // change that wrote it, not only those written since this device last read.
    var whole = settings
    whole.seq = 0
    whole.head = nil
    guard
      let state = try transport.pull(
        keys.vaultID, links: 1, rowsAfter: 0, passes: 1,
        begin: { state in
          lock?.beat()
          if state.schema > ServerSchema.version {
            throw SyncError.serverNewer(found: state.schema, supported: ServerSchema.version)
          }
          guard state.counter == settings.seq else {
            moved = true
            return
          }
          let checked = try verifyChain(state, from: whole)
          // The chain read whole must end where this device's own reading of it ended.
          guard checked.head == settings.head || (checked.head == nil && settings.seq == 0)
          else { throw SyncError.tampered(.forked(seq: settings.seq)) }
          verified = checked
          seq = state.counter + 1
        },
        rows: { _, batch in
          lock?.beat()
          guard let checked = verified else { return }
          for row in batch {
            let id = try checked.check(row)
            guard seen.insert(id).inserted else {
              throw SyncError.tampered(.changedRow(id: id.short))
            }
            let body: [UInt8]
            do {
              body = try old.open(
                row.body, id: row.id, column: .syncRow, revision: UInt64(row.seq)
              ) { plain in
                var copy = Array(plain)
                defer { wipe(&copy) }
                return try fresh.seal(
                  copy, id: row.id, column: .syncRow, revision: UInt64(seq))
              }
            } catch {
              throw SyncError.tampered(.changedRow(id: id.short))
            }
            rows.append(ServerRow(id: row.id, seq: seq, body: body))
            items.append(.put(id, hash: SyncLink.hash(body)))
          }
        })
    else { throw SyncError.journalNotOnServer(role: transport.role, read: settings.seq) }
    if moved { return nil }
    guard let verified else { throw SyncError.tampered(.brokenChain(seq: settings.seq)) }
    for (id, item) in verified.latest {
      if case .put = item, !seen.contains(id) {
        throw SyncError.tampered(.droppedChange(id: id.short))
      }
    }
    let headerBytes = ServerHeader.encode(header)
    let headerHash = SyncLink.hash(headerBytes)
    var link = SyncLink(
      seq: seq, device: settings.device,
      previous: settings.head ?? [UInt8](repeating: 0, count: SyncLink.tagBytes),
      header: headerHash, items: items, newKey: true)
    link.keyTag = try SyncLink.keyTag(link.body, vaultID: keys.vaultID, key: new.syncKey)
    let entry = link.entry
    let tag = try SyncLink.tag(entry, vaultID: keys.vaultID, key: keys.syncKey)
    let change = ServerChange(
      link: ServerLink(seq: seq, device: settings.device, entry: entry, tag: tag), rows: rows,
      removed: [], header: headerBytes)
    options.reached("new-key-before-push")
    guard try transport.push(keys.vaultID, expecting: state.counter, change) else {
      lock?.beat()
      return nil
    }
    lock?.beat()
    options.reached("new-key-sent")
    return (SyncPosition(seq: seq, head: tag, headerHash: headerHash), rows.count)
  }

  /// The key header the server holds for this journal now (another device changed the key:
  /// its new passphrase opens it). Checked with the key it gives, by `checkNewKey`.
  public func serverHeader() throws -> KeyHeader {
    guard
      let state = try transport.pull(
        keys.vaultID, links: .max, rowsAfter: .max, passes: 0, begin: { _ in },
        rows: { _, _ in })
    else { throw SyncError.journalNotOnServer(role: transport.role, read: 0) }
    guard let header = ServerHeader.decode(state.header), header.vaultID == keys.vaultID else {
      throw SyncError.tampered(.changedHeader)
    }
    return header
  }

  /// After another device changed the key: with this engine's keys (the new ones, from the
  /// server's header and the new passphrase), checks the chain from the change that made
  /// them on, and the header against it, before anything here changes. Where this device's
  /// place in the chain moves to: just before that change, so that the next sync reads every
  /// session it holds. The change must follow from the link this device last read (`seq`,
  /// `head`, checked under its old key when it found the change), or come later (a key made
  /// again since: the links between are under a key this device never held).
  public func checkNewKey(from settings: SyncSettings) throws -> SyncPosition {
    var whole = settings
    whole.seq = 0
    whole.head = nil
    whole.headerHash = nil
    var verified: VerifiedChain?
    var header: [UInt8] = []
    do {
      guard
        try transport.pull(
          keys.vaultID, links: 1, rowsAfter: .max, passes: 0,
          begin: { state in
            verified = try verifyChain(state, from: whole)
            header = state.header
          }, rows: { _, _ in }) != nil
      else { throw SyncError.journalNotOnServer(role: transport.role, read: settings.seq) }
    } catch SyncError.keyChanged {
      // The passphrase opened a header of the key this device already holds: an old header
      // put back by the server, not the new key's.
      throw SyncError.tampered(.changedHeader)
    }
    // No change made this key: the header is not the one a new key's change named (an old
    // header put back, say).
    guard let verified, let made = verified.newKeyAt, let previous = verified.newKeyPrevious,
      made > settings.seq
    else { throw SyncError.tampered(.changedHeader) }
    return SyncPosition(seq: made - 1, head: previous, headerHash: SyncLink.hash(header))
  }

  private var pushBatch: Int { options.pushBatch }

  /// The clock that stamps the fields changed here, as it was when this sync began.
  private var issuing: HybridClock?

  /// How a push ended.
  private enum Pushed {
    /// Everything was sent.
    case done
    /// A batch was sent; more wait.
    case more
    /// Another device pushed first: pull again.
    case moved
  }

  /// Where a pull left this device: the settings it wrote, and the server's counter.
  private struct Pulled {
    var settings: SyncSettings
    var counter: Int64
    /// The server's schema version.
    var schema: Int
  }

  // MARK: Pull

  /// Reads, checks and merges what the server has past `start`; nil when another journal
  /// changed a session here meanwhile (merge again).
  ///
  /// Two passes over the server's rows, in one snapshot of it: the first checks every row
  /// against the chain (the change that wrote it, its hash) and that none is missing, and
  /// keeps only ids; the second opens and merges them a batch at a time, each batch written
  /// in a keyed transaction of its own, and the change number read is written last. Memory
  /// holds a batch, not the journal. Nothing is written unless everything read checks out; a
  /// sync cut between batches has written only checked sessions, and the next one, reading
  /// them all again from the same change, merges them again to the same result.
  private func pull(_ start: SyncSettings, into total: inout SyncReport) throws -> Pulled? {
    var report = SyncReport()
    var verified: VerifiedChain?
    var seen: Set<SessionID> = []
    var complete = false
    var refused = false
    var merged: Set<SessionID> = []
    var clock = start.clock
    let cipher = try RecordCipher(key: keys.syncKey, random: options.random)
    func checkComplete(_ verified: VerifiedChain) throws {
      guard !complete else { return }
      for (id, item) in verified.latest {
        if case .put = item, !seen.contains(id) {
          throw SyncError.tampered(.droppedChange(id: id.short))
        }
      }
      complete = true
    }
    guard
      let state = try transport.pull(
        keys.vaultID, links: max(start.seq, 1), rowsAfter: start.seq, passes: 2,
        begin: {
          lock?.beat()
          // A server whose schema is newer than this journal knows is not written to.
          if $0.schema > ServerSchema.version {
            throw SyncError.serverNewer(found: $0.schema, supported: ServerSchema.version)
          }
          verified = try verifyChain($0, from: start)
        },
        rows: { pass, batch in
          lock?.beat()
          guard let checked = verified, !refused else { return }
          if pass == 0 {
            for row in batch { seen.insert(try checked.check(row)) }
          } else {
            try checkComplete(checked)
            // The second pass is checked as the first: the server promised one snapshot, and
            // a server that answers twice differently is found here, not believed.
            for row in batch {
              let id = try checked.check(row)
              guard seen.contains(id), merged.insert(id).inserted else {
                throw SyncError.tampered(.changedRow(id: id.short))
              }
            }
            refused = try !merge(
              batch, start: start, cipher: cipher, clock: &clock, report: &report)
          }
        })
    else { throw SyncError.journalNotOnServer(role: transport.role, read: start.seq) }
    guard let verified else { throw SyncError.tampered(.brokenChain(seq: start.seq)) }
    if refused { return nil }
    try checkComplete(verified)
    guard merged == seen else {
      let missing = seen.subtracting(merged).sorted().first
      throw SyncError.tampered(.droppedChange(id: missing?.short ?? "?"))
    }
    var settings = start
    settings.seq = state.counter
    settings.head = verified.head ?? start.head
    // The key header: another device's new passphrase is taken, unless this device changed
    // its own since the last sync (then this one is sent, and the later push wins). A device
    // set up again on a server that holds its journal (after `sync leave`) has agreed no
    // header yet: it takes the one the other devices hold (and says so), rather than sending
    // its own over theirs.
    var newHeader: KeyHeader?
    if let hash = verified.header, hash != start.headerHash {
      let localHash = SyncLink.hash(ServerHeader.encode(store.keyHeader))
      if localHash == start.headerHash || start.headerHash == nil {
        guard let header = ServerHeader.decode(state.header), header.vaultID == keys.vaultID
        else { throw SyncError.tampered(.changedHeader) }
        if localHash != hash { newHeader = header }
        settings.headerHash = hash
      }
    }
    guard state.counter != start.seq || newHeader != nil else {
      return Pulled(settings: start, counter: state.counter, schema: state.schema)
    }
    // Last, in one transaction: the deletions, the header, and where this device now is.
    var removed = verified.latest.filter { $0.value == .remove }.map(\.key).sorted()
    if verified.newKeyAt != nil {
      // The change that made the key holds every session the journal has: one agreed here
      // and not among them was deleted on another device (in a change this key cannot read).
      removed = Set(removed).union(try store.syncAgreed().filter { verified.latest[$0] == nil })
        .sorted()
    }
    var commit = SyncCommit(settings: settings, startedAt: start.seq)
    if !removed.isEmpty {
      let (local, _) = try store.syncLocal(removed)
      let changedHere = Set(try store.syncOutbox(limit: nil).changed)
      for id in removed {
        // Deleted on another device after its undo window: gone here too, for good.
        if local[id] != nil { report.removedHere += 1 }
        if changedHere.contains(id) { report.removedWithChanges.append(id) }
        commit.removed.append(id)
      }
    }
    if let issuing { clock.witness(issuing) }
    commit.settings.clock = clock
    // The header is taken in the same transaction as the change it came with.
    if let newHeader { commit.header = (newHeader, store.keyHeader) }
    options.reached("sync-pulled")
    guard try store.commitSync(commit) else { return nil }
    report.passphraseChanged = newHeader != nil
    total.received += report.received
    total.removedHere += report.removedHere
    total.conflicted += report.conflicted
    total.notesKept += report.notesKept
    total.removedWithChanges += report.removedWithChanges
    total.passphraseChanged = total.passphraseChanged || report.passphraseChanged
    return Pulled(settings: commit.settings, counter: state.counter, schema: state.schema)
  }

  /// Opens and merges one batch of checked rows into the sessions here, and writes it in one
  /// keyed transaction (this device's change number unchanged); false when another journal
  /// changed one of them meanwhile (nothing written).
  private func merge(
    _ batch: [ServerRow], start: SyncSettings, cipher: RecordCipher, clock: inout HybridClock,
    report: inout SyncReport
  ) throws -> Bool {
    var incoming: [SessionID: SyncMerge.Version] = [:]
    for row in batch {
      guard let id = SessionID(exactly: row.id) else { continue }
      do {
        let version = try cipher.open(
          row.body, id: row.id, column: .syncRow, revision: UInt64(row.seq)
        ) { plain in
          // Opened (so written by a device with the key) but of a later layout: newer.
          if let layout = plain.first, layout > SyncRowCodec.version {
            throw SyncError.newerData(
              found: Int(layout), supported: Int(SyncRowCodec.version))
          }
          return try SyncRowCodec.decode(plain, id: id)
        }
        for stamp in version.stamps.values { clock.witness(stamp) }
        for conflict in version.session.conflicts { clock.witness(conflict.stamp) }
        incoming[id] = version
      } catch let error as SyncError {
        throw error
      } catch {
        throw SyncError.tampered(.changedRow(id: id.short))
      }
    }
    let ids = incoming.keys.sorted()
    let (local, tombstoned) = try store.syncLocal(ids)
    var settings = start
    settings.clock = clock
    if let issuing { settings.clock.witness(issuing) }
    var commit = SyncCommit(settings: settings, startedAt: start.seq)
    var counts = SyncReport()
    for id in ids {
      guard let theirs = incoming[id] else { continue }
      let base = try record(theirs)
      // A session deleted here for good stays deleted: the deletion is sent next (even if
      // this device never recorded sending the session: its agreed row says so).
      guard !tombstoned.contains(id) else {
        commit.agreed.append(.init(id: id, session: nil, base: base, clean: false, readAt: nil))
        continue
      }
      // A deleted note whose undo window has closed is emptied in this write, as in any keyed
      // write of its session here, and the emptied copy sent back (a purged copy wins every
      // merge): a sealed text the person deleted does not wait on this device, the server and
      // every other for the session's next edit. The window was set by the deleting device's
      // clock: a sync counts it as closed only `clockAllowance` later, so that a clock running
      // ahead here does not end the undo there (a keyed write of the session made here, an
      // edit, still purges at this device's own clock).
      let now = options.now().addingTimeInterval(-Self.clockAllowance)
      guard let mine = local[id] else {
        var received = theirs.session
        received.purgeNotes(at: now)
        commit.agreed.append(
          .init(
            id: id, session: received, base: base, clean: received == theirs.session,
            readAt: nil))
        counts.received += 1
        continue
      }
      // Fields unchanged here since the last agreement simply take the server's value.
      var merged = SyncMerge.merge(
        local: try version(of: mine), base: mine.base?.base, incoming: theirs)
      merged.session.purgeNotes(at: now)
      // Agreed with the server only when it holds exactly this: a merge that took anything of
      // this device's own (its later `updated` alone, say) is sent, or the devices would each
      // keep their own while saying they are up to date.
      let clean = try record(merged) == base && merged.session == theirs.session
      let changed = merged.session != mine.session
      if changed { counts.received += 1 }
      // A note kept from another device's correction is named as a conflict is.
      func kept(_ session: Session) -> Set<Note.ID> {
        Set(session.notes.lazy.filter { $0.keptFrom != nil && $0.isShown }.map(\.id))
      }
      if Set(merged.session.conflicts) != Set(mine.session.conflicts),
        !merged.session.conflicts.isEmpty
      {
        counts.conflicted.append(id)
      }
      if !kept(merged.session).subtracting(kept(mine.session)).isEmpty {
        counts.notesKept.append(id)
      }
      commit.agreed.append(
        .init(
          id: id, session: changed ? merged.session : nil, base: base, clean: clean,
          readAt: mine.revision, trashed: mine.trashed))
    }
    options.reached("sync-merged")
    guard try store.commitSync(commit) else { return false }
    report.received += counts.received
    report.conflicted += counts.conflicted
    report.notesKept += counts.notesKept
    return true
  }

  /// Checks the links past `start` against the chain this device holds, and the key header
  /// against the last link that set one (`VerifiedChain.verify`).
  private func verifyChain(_ state: ServerState, from start: SyncSettings) throws
    -> VerifiedChain
  {
    try VerifiedChain.verify(
      state, from: start, vaultID: keys.vaultID, key: keys.syncKey,
      localHeader: SyncLink.hash(ServerHeader.encode(store.keyHeader)))
  }

  // MARK: Push

  /// Pushes what changed here, up to `pushBatch` sessions.
  private func push(_ pulled: Pulled, into report: inout SyncReport) throws -> Pushed {
    var settings = pulled.settings
    // One more than a push takes: whether more are left is all that is asked of the rest.
    let outbox = try store.syncOutbox(limit: pushBatch + 1)
    let batch = Array(outbox.changed.prefix(pushBatch))
    let headerBytes = ServerHeader.encode(store.keyHeader)
    let headerHash = SyncLink.hash(headerBytes)
    let headerChanged = headerHash != settings.headerHash
    guard !outbox.changed.isEmpty || !outbox.removed.isEmpty || headerChanged else {
      // Nothing to send: only the time of this sync is noted, outside the keyed write (it is
      // not a session, and the ledger need not be stamped again for it).
      try store.noteSync(at: options.now())
      return .done
    }
    let seq = pulled.counter + 1
    let (local, _) = try store.syncLocal(batch)
    let cipher = try RecordCipher(key: keys.syncKey, random: options.random)
    var rows: [ServerRow] = []
    var items: [SyncLink.Item] = []
    var commit = SyncCommit(settings: settings, startedAt: settings.seq)
    for id in batch {
      guard let mine = local[id], !mine.trashed else { continue }
      let version = try version(of: mine)
      var plain = SyncRowCodec.encode(version)
      defer { wipe(&plain) }
      let body = try cipher.seal(plain, id: id.bytes, column: .syncRow, revision: UInt64(seq))
      rows.append(ServerRow(id: id.bytes, seq: seq, body: body))
      items.append(.put(id, hash: SyncLink.hash(body)))
      commit.agreed.append(
        .init(id: id, session: nil, base: try record(version), clean: true, readAt: mine.revision))
    }
    for id in outbox.removed.sorted() {
      items.append(.remove(id))
      commit.forgotten.append(id)
    }
    let link = SyncLink(
      seq: seq, device: settings.device,
      previous: settings.head ?? [UInt8](repeating: 0, count: SyncLink.tagBytes),
      header: headerChanged ? headerHash : nil, items: items)
    let entry = link.entry
    let tag = try SyncLink.tag(entry, vaultID: keys.vaultID, key: keys.syncKey)
    let change = ServerChange(
      link: ServerLink(seq: seq, device: settings.device, entry: entry, tag: tag), rows: rows,
      removed: outbox.removed.map(\.bytes), header: headerChanged ? headerBytes : nil)
    options.reached("sync-before-push")
    guard try transport.push(keys.vaultID, expecting: pulled.counter, change) else {
      lock?.beat()
      return .moved
    }
    lock?.beat()
    options.reached("sync-after-push")
    settings.seq = seq
    settings.head = tag
    settings.headerHash = headerHash
    if let issuing { settings.clock.witness(issuing) }
    settings.lastSync = options.now()
    commit.settings = settings
    guard try store.commitSync(commit) else { throw SyncError.keptMoving }
    report.sent += rows.count
    report.removalsSent += outbox.removed.count
    // The first push sends the header too: only a later one is a new passphrase.
    report.passphraseSent =
      report.passphraseSent || headerChanged && pulled.settings.headerHash != nil
    return outbox.changed.count > batch.count ? .more : .done
  }

  // MARK: Versions

  /// This device's version of a session: each field's stamp is the agreed one while its
  /// value is the agreed one, else a new stamp from the clock at the session's last edit.
  private func version(of local: SyncLocal) throws -> SyncMerge.Version {
    var clock =
      issuing ?? HybridClock(time: 0, counter: 0, device: [UInt8](repeating: 0, count: 16))
    defer { issuing = clock }
    var stamps: SyncStamps = [:]
    let edited = UInt64(max(0, (local.session.updated.timeIntervalSince1970 * 1000).rounded()))
    for field in SyncField.allCases {
      // Tags agreed before format 14 (a base of layout 1, no fingerprint) were none: a
      // session still without tags has not changed them here.
      let noTagsYet =
        field == .tags && local.base?.fingerprints[.tags] == nil && local.session.tags.isEmpty
      if let base = local.base, let agreed = base.stamps[field],
        try noTagsYet || store.fingerprint(local.session, field) == base.fingerprints[field]
      {
        stamps[field] = agreed
      } else {
        stamps[field] = clock.stamp(physical: edited)
      }
    }
    return SyncMerge.Version(session: local.session, stamps: stamps)
  }

  /// What is remembered of a version as agreed with the server.
  private func record(_ version: SyncMerge.Version) throws -> SyncBaseRecord {
    var fingerprints: [SyncField: [UInt8]] = [:]
    for field in SyncField.allCases {
      fingerprints[field] = try store.fingerprint(version.session, field)
    }
    return SyncBaseRecord(
      stamps: version.stamps, fingerprints: fingerprints,
      conflicts: Set(version.session.conflicts.map(\.stamp)))
  }
}
