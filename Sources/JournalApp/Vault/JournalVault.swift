import Foundation
import JournalCore
import JournalCrypto
import JournalDiagnostics
import JournalDrafts
import JournalStorage
import JournalStore

/// The use cases on an unlocked vault. Prints nothing and never exits: the command line
/// decides what a person sees.
public final class JournalVault {
  public let path: String
  private let vault: Vault
  private let keys: VaultKeys
  /// Where sessions are kept: the use cases below talk to the seam, never to SQLite.
  private let store: any SessionStorage
  let context: AppContext

  private init(
    path: String, vault: Vault, keys: VaultKeys, context: AppContext,
    agentWitness: (([UInt8], LedgerStamp) -> LedgerStamp?)? = nil,
    accept: ((TrustQuestion) throws -> Bool)? = nil, check: LedgerCheck = .whole
  ) throws {
    self.path = path
    self.vault = vault
    self.keys = keys
    self.context = context
    self.witnesses = Witnesses(
      record: VaultWitness(vault: path, environment: context.environment, keys: keys),
      agent: agentWitness.map { ask in { stamp in ask(keys.vaultID, stamp) } })
    // Asked at most once, with the first thing found (the ledger's, then this computer's)
    // and everything trusting the vault as it is would accept, each named.
    var accepted = false
    let witness = witnesses.record
    let asking = accept.map { accept in
      { (error: any Error) throws -> Bool in
        if !accepted {
          accepted = try accept(
            TrustQuestion.asking(about: error, vault: vault, keys: keys, witness: witness))
        }
        return accepted
      }
    }
    let storage: VaultStorage
    do {
      storage = try VaultStorage(
        vault: vault, keys: keys, random: context.random, accept: asking, check: check)
    } catch StoreError.tampered(.rows) {
      // The ledger covers the sync server's address, which carries its own tag: when that
      // tag no longer checks out, the address is what changed, and it is said so.
      if let settings = try? vault.syncSettings(), let tag = settings.serverTag,
        let made = try? SessionStore.serverTag(settings.server, key: keys.fingerprintKey),
        !KeyedHash.same(made, tag)
      {
        throw AppError.syncAddressChanged
      }
      throw Self.naming(.rows, vault: vault, witness: witnesses.record)
    }
    self.store = storage
    self.vaultStorage = storage
    if check == .listing {
      // Checked by the first `list`, from its own pass over the rows. (Opened for listing
      // only when no sealed addition waits: there is nothing to open.) The sealing key is
      // put right and pinned only after a check, by the next command that makes one first:
      // a key planted where capture was off must not turn it on before the ledger is asked.
      witnessPending = true
      openedForListing = true
      keptCheck = checkRecord?.read()
      if let keptCheck { storage.remember(keptCheck) }
      return
    }
    // A keyed write carries the kept check to its own stamp (`SessionStore.carry`): read,
    // and its key derived, only by a command that writes.
    storage.rememberAtFirstWrite { [weak self] in self?.checkRecord?.read() }
    try checkWitnesses(asking: asking, accepted: accepted)
    self.acceptedChanges = accepted
    try settleSealing()
  }

  /// What was written without the passphrase and opened by this opening.
  public private(set) var openedAdditions = OpenedAdditions()
  /// Whether the vault's stored sealing key was not the one its data key gives, and was set
  /// right again.
  public private(set) var sealingKeyRepaired = false

  /// With the key at hand: puts the vault's public sealing key right if it was changed, pins
  /// it on this computer, and opens every sealed addition into ordinary sessions.
  private func settleSealing() throws {
    guard vault.readOnly == nil else { return }
    try settleSealingKey()
    openedAdditions = try vaultStorage.openAdditions(
      keys: keys, now: context.now(), random: context.random, reserved: draftIDs())
  }

  /// The ids of this vault's drafts on this computer: a sealed addition never takes one (a
  /// draft whose id a session had would be taken for saved already, and dropped).
  private func draftIDs() -> Set<SessionID> {
    guard let directory = try? DraftLocation.directory(environment: context.environment),
      let drafts = try? DraftStore(directory: directory, keys: keys, random: context.random),
      let entries = try? drafts.scan()
    else { return [] }
    return Set(entries.map(\.id))
  }

  /// Puts the vault's public sealing key right if it was changed, and pins it here.
  private func settleSealingKey() throws {
    guard vault.readOnly == nil else { return }
    let derived = keys.sealingPublicKey
    if let stored = try vault.sealing().publicKey {
      if !KeyedHash.same(stored, derived) {
        try vault.repairSealing(publicKey: derived)
        sealingKeyRepaired = true
      }
      try? SealingPin(vaultID: keys.vaultID, environment: context.environment)?.record(derived)
    }
  }

  /// Whether sealed capture is still to be offered (a vault made before it; asked once).
  public var offersSealedCapture: Bool {
    vault.readOnly == nil && (try? vault.sealing().offered) == false
  }

  /// Remembers that sealed capture was offered.
  public func markSealedCaptureOffered() throws { try vault.markSealingOffered() }

  /// Turns sealed capture on or off for this vault (and pins its key here when on).
  public func setSealedCapture(_ on: Bool) throws {
    guard vault.readOnly == nil else { throw AppError.sealingUnavailable }
    try vaultStorage.setSealing(publicKey: on ? keys.sealingPublicKey : nil)
    if on {
      try SealingPin(vaultID: keys.vaultID, environment: context.environment)?.record(
        keys.sealingPublicKey)
    }
  }

  /// This computer's witnesses of the vault's last state: its record on disk and, while
  /// unlocked, the agent.
  private let witnesses: Witnesses
  /// The store behind `store`, for the ledger's stamp.
  private let vaultStorage: VaultStorage
  /// Whether the witnesses are still to be asked (a vault opened for listing).
  private var witnessPending = false
  /// Whether the vault was opened for listing: only such a listing keeps its whole check
  /// (one of another opening, `announceArc`'s say, would name no newest and drop those kept).
  private var openedForListing = false
  /// Where the last whole check of this vault is kept between commands, and what was kept
  /// there when this one began (a vault opened for listing; one opened otherwise reads it
  /// at its first keyed write, which carries it).
  private lazy var checkRecord: WholeCheckRecord? = WholeCheckRecord(
    vault: path, environment: context.environment, keys: keys, random: context.random)
  private var keptCheck: WholeCheck?

  /// The ledger's `rows` finding, session by session where this computer's record saw the
  /// rows the ledger stands for.
  private static func naming(_ tampering: Tampering, vault: Vault, witness: VaultWitness?)
    -> StoreError
  {
    guard case .rows = tampering, let named = witness?.differences(in: vault) else {
      return .tampered(tampering)
    }
    return .tampered(named)
  }

  /// Refuses a vault older than, or another than, what a witness of this computer saw, and
  /// moves them forward to it; after `verify --accept`, records it as it is.
  private func checkWitnesses(asking: ((any Error) throws -> Bool)?, accepted: Bool) throws {
    // A vault not yet protected (one that could not be written) has no stamp to compare.
    guard var stamp = vaultStorage.stamp else { return }
    var trusted = accepted
    do {
      if !trusted {
        // Another journal may have written (and told its witnesses) since this one checked
        // the vault: a witness ahead of the stamp is checked again against the vault now. As
        // long as the vault has moved on at each look, it is being written, not rolled back
        // (a witness is only ever told of a write once it is in the vault): with several
        // journals writing at once, a few looks may each find a newer write told already.
        // A vault that has not moved since the last look is refused at once.
        var tries = 0
        while true {
          do {
            try witnesses.check(stamp)
            break
          } catch AppError.olderThanSeen(let seen, _) where tries < 64 {
            tries += 1
            guard let now = try vaultStorage.recheck(), now.generation > stamp.generation else {
              throw AppError.olderThanSeen(seen: seen, found: stamp.generation)
            }
            stamp = now
          }
        }
      }
    } catch let error as AppError {
      guard let asking, try asking(error) else { throw error }
      trusted = true
    }
    if trusted {
      // Trusted as it is: stamped past anything a witness saw, so that none takes it for
      // older from now on.
      stamp = try vaultStorage.restamp(after: witnesses.latest())
      try witnesses.trust(stamp)
    }
    let witnesses = self.witnesses
    vaultStorage.onStamp = { [weak self] stamp in
      witnesses.advance(to: stamp)
      // A whole check the write carried to its stamp is kept for the next listing.
      if let self, let checkRecord = self.checkRecord, let carried = self.vaultStorage.wholeCheck,
        carried.generation == stamp.generation, carried.tag == stamp.tag
      {
        checkRecord.record(carried)
      }
    }
  }

  /// Whether opening carried an interrupted key change through.
  public internal(set) var finishedKeyChange = false

  /// Whether opening trusted a vault that did not add up (`verify --accept`).
  public private(set) var acceptedChanges = false

  /// Creates a vault at `path` with a new random data key wrapped under `passphrase`.
  /// Refuses, changing nothing, when a vault is already there.
  public static func create(
    at path: String, passphrase: SecureBytes, limits: KDFLimits, context: AppContext
  ) throws -> JournalVault {
    try context.kdfPolicy.check(limits)
    try JournalVault.refuseExisting(path)
    let (keys, header) = try VaultKeys.create(
      passphrase: passphrase, limits: limits, random: context.random)
    // Sealed capture is on for a new vault (SECURITY.md, "Sealed additions").
    let vault = try Vault.create(at: path, header: header, sealingKey: keys.sealingPublicKey)
    return try JournalVault(path: path, vault: vault, keys: keys, context: context)
  }

  /// Opens the vault at `path`. The passphrase is asked for only once the file is known to
  /// be a vault, so a typo in --vault does not cost a passphrase prompt.
  ///
  /// A wrong (or empty) passphrase is asked again up to `tries` times in all, calling
  /// `tryAgain` before each new ask; a person at a terminal gets three, like sudo and ssh.
  ///
  /// A vault that is not as journal last left it is refused (exit 12), unless `accept`,
  /// asked with what was found, trusts it as it is (`journal verify --accept`).
  ///
  /// `opened`: the vault file, when the caller has it open already (read without the key).
  public static func open(
    at path: String, opened: Vault? = nil, context: AppContext,
    beforeUnlock: (Vault) -> Void = { _ in },
    agentKeys: ([UInt8]) -> VaultKeys? = { _ in nil },
    agentWitness: (([UInt8], LedgerStamp) -> LedgerStamp?)? = nil, tries: Int = 1,
    tryAgain: () -> Void = {}, accept: ((TrustQuestion) throws -> Bool)? = nil,
    check: LedgerCheck = .whole, passphrase: () throws -> SecureBytes
  ) throws -> JournalVault {
    let vault = try opened ?? Vault.open(at: path)
    // Deletions whose undo window has closed are purged on every run, before anything else.
    try vault.purgeExpired(now: context.now())
    beforeUnlock(vault)
    // Waiting sealed additions are opened at once, after the ordinary check of the vault.
    let check = try check == .listing && vault.sealedCount() > 0 ? .whole : check
    // A key change under way is carried through first, with the passphrase (no agent holds
    // either key: the change stopped it).
    let rotating = try vault.rotationKey()
    // The agent's keys are asked for by vault id: another vault's are never used here.
    if rotating == nil, let keys = agentKeys(vault.header.vaultID) {
      return try JournalVault(
        path: path, vault: vault, keys: keys, context: context, agentWitness: agentWitness,
        accept: accept, check: check)
    }
    var attempt = 1
    while true {
      do {
        let keys: VaultKeys
        if let rotating {
          let (old, new) = try VaultKeys.open(
            header: vault.header, passphrase: try passphrase(), policy: context.kdfPolicy,
            rotation: rotating)
          _ = try KeyChange.complete(
            try KeyRotation.resume(vault, old: old, new: new, random: context.random),
            vault: vault, path: path, context: context, recoverySlot: nil)
          keys = new
        } else {
          keys = try VaultKeys.open(
            header: vault.header, passphrase: try passphrase(), policy: context.kdfPolicy)
        }
        let journal = try JournalVault(
          path: path, vault: vault, keys: keys, context: context, agentWitness: agentWitness,
          accept: accept, check: check)
        journal.finishedKeyChange = rotating != nil
        return journal
      } catch let error where Self.isWrongPassphrase(error) && tries > 1 {
        guard attempt < tries else { throw AppError.wrongPassphrases(tries: tries) }
        attempt += 1
        tryAgain()
      }
    }
  }

  private static func isWrongPassphrase(_ error: any Error) -> Bool {
    (error as? CryptoError) == .wrongPassphrase || (error as? AppError) == .emptyPassphrase
  }

  /// A new device's vault for a journal that syncs (`journal sync join`): made at `path`
  /// with the server's key header once `passphrase` opens it (asked up to `tries` times).
  public static func join(
    at path: String, header: KeyHeader, context: AppContext, tries: Int,
    tryAgain: () -> Void, passphrase: () throws -> SecureBytes
  ) throws -> JournalVault {
    try refuseExisting(path)
    var attempt = 1
    while true {
      do {
        let keys = try VaultKeys.open(
          header: header, passphrase: try passphrase(), policy: context.kdfPolicy)
        let vault = try Vault.create(at: path, header: header, sealingKey: keys.sealingPublicKey)
        return try JournalVault(path: path, vault: vault, keys: keys, context: context)
      } catch let error where Self.isWrongPassphrase(error) && tries > 1 {
        guard attempt < tries else { throw AppError.wrongPassphrases(tries: tries) }
        attempt += 1
        tryAgain()
      }
    }
  }

  /// Settles the conflicts of one field of a session (`journal resolve`).
  public func resolveConflict(
    _ id: SessionID, field: Field, keeping choice: ConflictChoice
  ) throws -> Session {
    try store.update(id) { session in
      session.purgeNotes(at: context.now())
      guard !session.conflicts.isEmpty else {
        throw AppError.noConflicts(id: id.short)
      }
      try session.resolve(field, keeping: choice, now: context.now())
    }
  }

  /// Checks, before any passphrase is asked, that `init` has somewhere to go.
  public static func refuseExisting(_ path: String) throws {
    try Vault.refuseExisting(at: path)
  }

  // MARK: - Sessions

  /// Saves a complete draft as a new session (status: needs reflection).
  public func save(_ draft: SessionDraft, tags: [String] = []) throws -> Session {
    var session = try Session.saving(draft, now: context.now())
    try session.retag(adding: tags, removing: [], now: session.created)
    try store.save(session)
    return session
  }

  /// The session whose id starts with what the person typed.
  public func resolve(_ text: String) throws -> SessionID {
    try store.resolve(text)
  }

  /// The id as people should type it: the short form, or the whole id in the rare case that
  /// another session shares its first 8 digits.
  public func displayID(_ id: SessionID) throws -> String {
    try Self.displayID(id, resolve: store.resolve)
  }

  /// The short form of `id`, or the whole id when `resolve` finds the short one ambiguous.
  static func displayID(_ id: SessionID, resolve: (String) throws -> SessionID) throws -> String {
    do {
      _ = try resolve(id.short)
      return id.short
    } catch StoreError.ambiguous {
      return id.hex
    }
  }

  /// Whether a session with exactly this id is in the vault.
  public func contains(_ id: SessionID) throws -> Bool {
    do {
      return try store.resolve(id.hex) == id
    } catch StoreError.noMatch {
      return false
    }
  }

  /// The vault's draft files, sealed under its draft key.
  public func drafts(in directory: String) throws -> DraftStore {
    try DraftStore(directory: directory, keys: keys, random: context.random)
  }

  public func session(_ id: SessionID) throws -> Session {
    try store.session(id)
  }

  /// What `list` shows of the sessions the filter takes, newest first (only its `limit`
  /// newest), and the ids of rows that could not be opened.
  public func list(_ filter: SessionFilter) throws -> (rows: ListRows, damaged: [SessionID]) {
    // `list -n` of every session: the newest the last whole check kept, when they serve.
    if filter.takesEvery, let limit = filter.limit, keptCheck?.newest.isEmpty == false,
      let rows = try naming({ try vaultStorage.keptNewest(limit) })
    {
      try afterListing(sawDamage: false)
      return (rows, [])
    }
    var listed = try listing(sawDamage: { !$0.damaged.isEmpty }) {
      try store.listRows(needsReflection: filter.waitingOnly, include: filter.includes)
    }
    if let limit = filter.limit, listed.rows.rows.count > limit {
      listed.rows.rows.removeSubrange(limit...)
    }
    return listed
  }

  /// Summaries newest first, optionally only those waiting for reflection, and the ids of
  /// rows that could not be opened.
  public func list(
    needsReflection: Bool
  ) throws -> (sessions: [SessionSummary], damaged: [SessionID]) {
    try listing(sawDamage: { !$0.damaged.isEmpty }) {
      try store.summaries(needsReflection: needsReflection)
    }
  }

  /// A read of every summary (the whole ledger check): rows that do not add up named with
  /// the witnesses' record, and the witnesses checked once the ledger has been.
  private func listing<Listed>(
    sawDamage: (Listed) -> Bool, _ read: () throws -> Listed
  ) throws -> Listed {
    let listed = try naming(read)
    try afterListing(sawDamage: sawDamage(listed))
    return listed
  }

  /// `read`, with rows that do not add up named with the witnesses' record.
  private func naming<Read>(_ read: () throws -> Read) throws -> Read {
    do {
      return try read()
    } catch StoreError.tampered(.rows) {
      throw Self.naming(.rows, vault: vault, witness: witnesses.record)
    }
  }

  /// After a listing's check: the witnesses asked, and a whole check it made kept.
  /// `sawDamage`: whether the listing found a row that did not open.
  private func afterListing(sawDamage: Bool) throws {
    if witnessPending {
      witnessPending = false
      try checkWitnesses(asking: nil, accepted: false)
    }
    // A whole check this listing made is kept for the next (the witnesses agreed with it).
    if openedForListing, let checkRecord, var made = vaultStorage.wholeCheck, made != keptCheck {
      // A check of the same state that names no newest (`tags`, completion, a filtered
      // `list`) leaves those kept; not one that found a row damaged, so that the next
      // `list -n` lists every session and names it again.
      if !sawDamage, made.newest.isEmpty, let kept = keptCheck, !kept.newest.isEmpty,
        kept.sameState(as: made)
      {
        made = kept
      }
      if made != keptCheck { checkRecord.record(made) }
      keptCheck = made
    }
  }

  /// Checks that the session is waiting for reflection before asking for any.
  public func beginReflection(_ id: SessionID) throws -> Session {
    let session = try store.session(id)
    // A complete session whose later fields are not all filled (a reflect that was
    // interrupted after the reflection) is open for those.
    if session.status == .complete, !session.laterFieldsOpen.isEmpty { return session }
    // A session closed without a reflection can still be reflected on.
    if session.status == .closed { return session }
    do {
      try Lifecycle.checkPlanned(
        session.status, date: session.date, now: context.now(), on: .beginReflection)
      _ = try Lifecycle.transition(from: session.status, on: .beginReflection)
    } catch {
      throw AppError.lifecycle(error, id: id.short)
    }
    return session
  }

  /// Applies one change and saves it at once, in one transaction.
  @discardableResult
  public func apply(_ change: Session.Change, to id: SessionID) throws -> Session {
    try apply([change], to: id)
  }

  /// Closes the session without a reflection, or reopens a closed one (`event` is `.close`
  /// or `.reopen`), saved at once.
  @discardableResult
  public func apply(_ event: LifecycleEvent, to id: SessionID) throws -> Session {
    let now = context.now()
    let session = try store.update(id) { session in
      session.purgeNotes(at: now)
      do {
        try session.revise(event, now: now)
      } catch let error as LifecycleError {
        throw AppError.lifecycle(error, id: id.short)
      }
    }
    try withdrawReminderIfPlanned(session, now: now)
    return session
  }

  /// Applies several changes and saves them together, in one transaction.
  @discardableResult
  public func apply(
    _ changes: [Session.Change], to id: SessionID,
    retagging tags: (adding: [String], removing: [String]) = ([], [])
  ) throws -> Session {
    let now = context.now()
    let session = try store.update(id) { session in
      session.purgeNotes(at: now)
      try session.retag(adding: tags.adding, removing: tags.removing, now: now)
      for change in changes {
        do {
          try session.revise(change, now: now)
        } catch let error as LifecycleError {
          throw AppError.lifecycle(error, id: id.short)
        }
      }
    }
    try withdrawReminderIfPlanned(session, now: now)
    return session
  }

  /// A session that a change made planned (its date moved ahead, or reopened with a date
  /// ahead) gets no reminder before it happens: one it had is cancelled.
  private func withdrawReminderIfPlanned(_ session: Session, now: Date) throws {
    guard session.isPlanned(at: now) else { return }
    _ = try vault.cancelReminder(session.id)
  }

  /// Whether the session is planned now (dated ahead, waiting).
  public func isPlanned(_ session: Session) -> Bool { session.isPlanned(at: context.now()) }

  // MARK: - Export, import, backup, verify

  /// Every readable session the filter takes, oldest first, handed to `body` one at a time
  /// after `begin` is told how many there are; the ids of rows that failed to open.
  public func export(
    _ filter: SessionFilter, begin: (Int) throws -> Void, _ body: (Session) throws -> Void
  ) throws -> [SessionID] {
    try store.streamSessions(
      order: .oldestFirst, include: { filter.includes($0) }, newest: filter.limit,
      begin: { count, _ in try begin(count) }, body)
  }

  /// Every whole session the filter takes (its `limit` is the caller's), handed to `body`
  /// one at a time in `order`; the ids of rows that failed to open.
  public func read(
    _ filter: SessionFilter, order: ReadOrder, _ body: (Session) throws -> Void
  ) throws -> [SessionID] {
    try store.streamSessions(
      order: order, include: { filter.includes($0) }, newest: nil, begin: { _, _ in }, body)
  }

  /// Every whole session the filter takes (its `limit` is the caller's), opened and handed
  /// to `transform` on every core; what it makes handed to `body` in `order`. The ids of
  /// rows that failed to open.
  public func read<Made: Sendable>(
    _ filter: SessionFilter, order: ReadOrder,
    transform: @escaping @Sendable (Session) -> Made?, _ body: (Made) throws -> Void
  ) throws -> [SessionID] {
    try store.streamSessions(
      order: order, include: { filter.includes($0) }, transform: transform, body)
  }

  /// For a search: every whole session the filter takes (its `limit` is the caller's) and
  /// that `matches`, handed to `transform` on every core; what it makes handed to `body` in
  /// `order`. The ids of rows that failed to open.
  public func search<Made: Sendable>(
    _ filter: SessionFilter, order: ReadOrder, matches: @escaping @Sendable (Session) -> Bool,
    transform: @escaping @Sendable (Session) -> Made?, _ body: (Made) throws -> Void
  ) throws -> [SessionID] {
    try store.streamMatching(
      order: order, include: { filter.includes($0) }, matches: matches, transform: transform,
      body)
  }

  /// The summaries the filter takes (only its `limit` newest), newest first unless `order`
  /// says otherwise, handed to `body` one at a time after `begin` is told the ids of rows
  /// that failed to open; all of those.
  public func streamList(
    _ filter: SessionFilter, order: ReadOrder = .newestFirst,
    begin: ([SessionID]) throws -> Void = { _ in }, _ body: (SessionSummary) throws -> Void
  ) throws -> [SessionID] {
    do {
      return try store.streamSummaries(
        needsReflection: filter.waitingOnly, order: order,
        include: { filter.includes($0) }, newest: filter.limit,
        begin: { _, damaged in try begin(damaged) }, body)
    } catch StoreError.tampered(.rows) {
      throw Self.naming(.rows, vault: vault, witness: witnesses.record)
    }
  }

  /// Brings sessions in, all or nothing (see SessionStore.importSessions).
  public func importSessions(_ sessions: [Session], dryRun: Bool) throws -> ImportCount {
    try store.importSessions(dryRun: dryRun, restorePurged: false, overlap: false) { take in
      for session in sessions { try take(session) }
    }
  }

  /// Brings in the sessions `produce` hands over one at a time, all or nothing; with
  /// `overlap`, read on another thread while this one writes (see SessionStorage).
  public func importSessions(
    dryRun: Bool, restorePurged: Bool = false, overlap: Bool = false,
    _ produce: (_ take: (Session) throws -> Void) throws -> Void
  ) throws -> ImportCount {
    try store.importSessions(
      dryRun: dryRun, restorePurged: restorePurged, overlap: overlap, produce)
  }

  /// What `verify` found.
  public struct Verification: Sendable {
    public let intact: Int
    public let damaged: [SessionID]
    public let structureProblem: String?
  }

  /// Opens every session's two sealed columns and checks the file's structure.
  public func verify() throws -> Verification {
    let problem = try vault.structureProblem()
    let (intact, damaged) = try store.openEvery()
    return Verification(intact: intact, damaged: damaged, structureProblem: problem)
  }

  /// A consistent, still-sealed copy of the vault at a new path. Needs no passphrase.
  public static func backup(from path: String, to destination: String, context: AppContext) throws {
    let vault = try Vault.open(at: path)
    try vault.purgeExpired(now: context.now())
    do {
      try vault.backup(to: destination)
    } catch StoreError.vaultExists(let existing) {
      throw AppError.outputExists(path: existing)
    }
  }

  // MARK: - Delete and undo

  /// Moves sessions to the trash as one deletion, undoable for `window` seconds.
  @discardableResult
  public func delete(_ ids: [SessionID], window: TimeInterval) throws -> Deletion {
    let now = context.now()
    return try store.delete(ids, now: now, purgeAfter: now.addingTimeInterval(window))
  }

  /// The vault's id, read from its header: no passphrase, nothing decrypted (which
  /// agent holds its key).
  public static func id(at path: String) throws -> [UInt8] {
    try Vault.open(at: path).header.vaultID
  }

  /// Restores the most recent deletion if its window is open. Needs no passphrase: undo has
  /// seconds to act, and moves sealed rows without reading them.
  public static func undo(at path: String, context: AppContext) throws -> Vault.Restored? {
    let vault = try Vault.open(at: path)
    let now = context.now()
    try vault.purgeExpired(now: now)
    return try vault.undoLatest(now: now)
  }

  /// Purges closed deletions now (after a countdown ends).
  public func purgeExpired() throws {
    try store.purgeExpired(now: context.now())
  }

  /// Whether this deletion still waits in the trash; false once `journal undo` (here or in
  /// another shell) restored it, or it was purged.
  public func isPending(_ deletion: Deletion) throws -> Bool {
    try store.isPending(deletion)
  }

  /// Restores this deletion (the countdown's "u"), if its window is still open; the ids
  /// restored, or nil when the window had closed.
  public func undo(_ deletion: Deletion) throws -> [SessionID]? {
    try store.restore(deletion, now: context.now())
  }

  // MARK: - Passphrase

  /// Re-wraps the data key under `newPassphrase` with a fresh salt, in one statement. No
  /// record is re-encrypted. Keeps the vault's limits unless new ones are given.
  public func changePassphrase(to newPassphrase: SecureBytes, limits: KDFLimits? = nil) throws {
    let limits = limits ?? vault.header.limits
    try context.kdfPolicy.check(limits)
    let header = try keys.wrap(passphrase: newPassphrase, limits: limits, random: context.random)
    try vault.replaceHeader(header)
  }

  /// Makes a recovery code, hands it to `show` (which must succeed: the person has it), and
  /// only then stores the data key wrapped under it as the vault's second key slot,
  /// replacing any earlier one (which stops working). A code that could not be shown is
  /// never stored, and the old one keeps working.
  public func makeRecoveryCode(show: (RecoveryCode) throws -> Void) throws {
    let code = try RecoveryCode.generate(random: context.random)
    try show(code)
    try vaultStorage.setRecoverySlot(try keys.wrapRecovery(code, random: context.random))
  }

  /// Removes the recovery slot; whether there was one.
  @discardableResult
  public func removeRecoveryCode() throws -> Bool {
    let had = try vault.recoverySlot() != nil
    try vaultStorage.setRecoverySlot(nil)
    return had
  }

  /// Opens the vault at `path` with its recovery code instead of the passphrase (which may
  /// be lost): the code is read by `code` only once the file is known to have a slot.
  public static func open(
    at path: String, context: AppContext, recoveryCode code: () throws -> RecoveryCode
  ) throws -> JournalVault {
    let vault = try Vault.open(at: path)
    guard let slot = try vault.recoverySlot() else { throw AppError.noRecoveryCode }
    let keys = try VaultKeys.open(
      recoverySlot: slot, vaultID: vault.header.vaultID, code: try code())
    return try open(at: path, opened: vault, context: context, agentKeys: { _ in keys }) {
      throw AppError.internalError("a recovery opening asked for the passphrase")
    }
  }

  /// The unlocked keys (for handing to the agent).
  public var unlockedKeys: VaultKeys { keys }

  /// Where the sessions are kept, for a use case that works on the storage seam itself.
  public var storage: any SessionStorage { store }

  /// The same place, as sync sees it (the seam's other side).
  public var syncStorage: any SyncStorage { vaultStorage }

  /// Set by a sync of this vault: its own writes start no other.
  var syncing = false

  /// A command that wrote to a vault whose background sync is on starts `journal sync` as
  /// a process of its own as it ends, which never delays or fails the command.
  deinit {
    guard !syncing, vaultStorage.writes > 0 else { return }
    BackgroundSync.start(vault: vault, path: path)
  }

  /// The vault file underneath, for the keyless use cases (reminders).
  public var file: Vault { vault }

  /// The key-derivation limits the vault uses now.
  public var limits: KDFLimits { vault.header.limits }
}

// MARK: - Notes and tags

/// A note's deletion, for its countdown and its undo: the session, the note, and when its
/// window closes.
public struct NoteDeletion: Sendable, Equatable {
  public let session: SessionID
  public let note: Note.ID
  public let purgeAfter: Date
}

extension JournalVault {
  /// Changes the session's notes or tags in one keyed write, purging any deleted note whose
  /// window has closed on the way.
  private func updateNotes(
    _ id: SessionID, _ change: (inout Session, Date) throws -> Void
  ) throws -> Session {
    let now = context.now()
    return try store.update(id) { session in
      session.purgeNotes(at: now)
      do {
        try change(&session, now)
      } catch let error as NoteError {
        throw AppError.note(error, id: id.short)
      }
    }
  }

  /// Adds a note written now; its number (1 is the oldest) and the session as saved.
  public func addNote(
    _ text: String, mood: Mood?, to id: SessionID
  ) throws -> (session: Session, number: Int) {
    let note = Note(text: text, mood: mood, now: context.now(), random: context.random.uint64)
    let session = try updateNotes(id) { session, now in try session.addNote(note, now: now) }
    return (session, (session.shownNotes.firstIndex { $0.id == note.id } ?? 0) + 1)
  }

  /// Corrects note `number`: its text (nil keeps it) and mood (nil keeps it; `.some(nil)`
  /// removes it).
  public func editNote(
    _ number: Int, text: String?, mood: Mood??, of id: SessionID, expecting seen: Note? = nil
  ) throws -> Session {
    let version = context.random.uint64()
    return try updateNotes(id) { session, now in
      _ = try session.editNote(
        number, text: text, mood: mood, version: version, now: now, expecting: seen)
    }
  }

  /// Deletes note `number`, restorable for `window` seconds (`journal note ID --undo`).
  public func deleteNote(
    _ number: Int, of id: SessionID, window: TimeInterval, expecting seen: Note? = nil
  ) throws -> NoteDeletion {
    let version = context.random.uint64()
    var deleted: Note?
    _ = try updateNotes(id) { session, now in
      deleted = try session.deleteNote(
        number, purgeAfter: now + window, version: version, now: now, expecting: seen)
      // No window: purged in the same write.
      if window <= 0 { session.purgeNotes(at: now) }
    }
    guard let deleted, let end = deleted.purgeAfter ?? deleted.deleted else {
      throw AppError.note(.noSuchNote(number: number, count: 0), id: id.short)
    }
    return NoteDeletion(session: id, note: deleted.id, purgeAfter: end)
  }

  /// Restores the note of the session deleted last, while its window is open: its number.
  public func restoreNote(
    of id: SessionID, only note: Note.ID? = nil
  ) throws -> (session: Session, number: Int) {
    let version = context.random.uint64()
    var restored: Note?
    let session = try updateNotes(id) { session, now in
      restored = try session.restoreNote(version: version, now: now, only: note)
    }
    return (session, (session.shownNotes.firstIndex { $0.id == restored?.id } ?? 0) + 1)
  }

  /// Whether the deleted note is still restorable (not restored or purged).
  public func isPending(_ deletion: NoteDeletion) throws -> Bool {
    let note = try store.session(deletion.session).notes.first { $0.id == deletion.note }
    return note?.deleted != nil && note?.purgeAfter != nil
  }

  /// Restores exactly this deletion while its window is open; false when it is not pending.
  public func undo(_ deletion: NoteDeletion) throws -> Bool {
    guard try isPending(deletion), context.now() < deletion.purgeAfter else { return false }
    _ = try restoreNote(of: deletion.session, only: deletion.note)
    return true
  }

  /// Purges the session's deleted notes whose window has closed.
  public func purgeNotes(of id: SessionID) throws {
    guard try store.session(id).hasNotesToPurge(at: context.now()) else { return }
    _ = try updateNotes(id) { _, _ in }
  }

  /// Adds and removes tags (as given: normalised here).
  public func retag(_ id: SessionID, adding: [String], removing: [String]) throws -> Session {
    let added = try adding.map(Tag.normalise)
    let removed = try removing.map(Tag.normalise)
    return try updateNotes(id) { session, now in
      try session.retag(adding: added, removing: removed, now: now)
    }
  }

  /// Every tag in the journal with how many sessions carry it, most used first, from the
  /// summaries (no body is opened).
  public func tagCounts() throws -> (tags: [(name: String, sessions: Int)], damaged: [SessionID]) {
    let (summaries, damaged) = try list(needsReflection: false)
    var counts: [String: Int] = [:]
    for summary in summaries {
      for tag in summary.tags { counts[tag, default: 0] += 1 }
    }
    let sorted = counts.sorted { ($1.value, $0.key) < ($0.value, $1.key) }
    return (sorted.map { (name: $0.key, sessions: $0.value) }, damaged)
  }
}
