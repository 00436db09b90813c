import Dispatch
import Glibc
import JournalAgent
import JournalCore
import JournalCrypto
import JournalDiagnostics
import JournalPostgres
import JournalStorage
import JournalStore
import JournalSync
import JournalSystem

/// The sync commands as a person starts them (`journal sync …`): each opens what it needs,
/// connects to the server through its backend (JournalPostgres), and calls the engine
/// (JournalSync's `SyncEngine`) over the storage seam. Only these load libpq.
public enum SyncCommands {
  /// `journal sync setup URL`: this vault becomes the first on the server.
  public static func setup(_ runtime: Runtime, address text: String) throws -> SyncReport {
    let address = try address(text, context: runtime.context)
    let journal = try runtime.openVault()
    guard try journal.file.syncSettings() == nil else { throw StoreError.syncAlreadySetUp }
    let transport = try connect(address, runtime)
    journal.syncing = true
    return try SyncEngine.setup(
      journal.syncStorage, keys: journal.unlockedKeys, server: address.given,
      transport: transport, options: options(journal, runtime), stuckAfter: stuckAfter(runtime))
  }

  /// `journal sync join URL`: a new vault here, from the server, opened with the journal's
  /// passphrase. A join the server's copy refused leaves nothing behind, so that `join` can
  /// be run again; one cut short (exit 13) keeps what arrived, for `journal sync` to finish.
  public static func join(_ runtime: Runtime, address text: String) throws -> SyncReport {
    let address = try address(text, context: runtime.context)
    let path = try runtime.vaultPath()
    try JournalVault.refuseExisting(path)
    let transport = try connect(address, runtime)
    let header = try SyncEngine.serverHeader(transport)
    // This computer's record of a journal that was at this path before (set aside after its
    // key changed on another device, say) does not apply to the one made now: under another
    // key, it would read as damaged.
    let record = VaultWitness.path(
      vault: path, vaultID: header.vaultID, environment: runtime.context.environment)
    if let record { unlink(record) }
    let failure: any Error
    do {
      // Scoped, so that the vault is closed before anything is removed.
      let journal = try JournalVault.join(
        at: path, header: header, context: runtime.context, tries: runtime.passphraseTries,
        tryAgain: runtime.passphraseTryAgain
      ) {
        let passphrase = try runtime.askPassphrase(prompt: "The journal's passphrase: ")
        runtime.terminal?.writeLine("Deriving your key (this takes a moment on purpose)…")
        return passphrase
      }
      do {
        journal.syncing = true
        return try SyncEngine.join(
          journal.syncStorage, keys: journal.unlockedKeys, server: address.given,
          transport: transport, options: options(journal, runtime),
          stuckAfter: stuckAfter(runtime))
      } catch {
        failure = error
      }
    }
    let cause = Diagnosis(failure)
    guard cause.exitCode != .syncUnavailable else {
      // The vault is here already: the next step is a sync, not another join.
      throw AppError.syncJoinUnfinished(cause: cause, path: path)
    }
    // Nothing in it is the person's own: what the server's refused copy gave, if anything.
    for file in [path, path + "-wal", path + "-shm", path + ".sync-lock"] { unlink(file) }
    if let record { unlink(record) }
    throw AppError.syncJoinRefused(cause: cause)
  }

  /// `journal sync`: push and pull now. The server's address is trusted only once checked:
  /// by its tag under the key, when the unlock agent holds the key (then the connection is
  /// made on another thread while the vault is checked and opened: a PostgreSQL connection
  /// costs about as much as the rest of a sync with nothing to do), else by the vault's check
  /// before connecting. An address edited into the vault file is never contacted, nor
  /// handed a password from ~/.pgpass. The vault is opened with point checks (the ledger's
  /// root, which covers the settings, then the leaves of the sessions sent and received), so
  /// a sync costs what it moves, not the size of the journal.
  public static func sync(_ runtime: Runtime, background: Bool = false) throws -> SyncReport {
    // Said before any passphrase is asked; the file opened once for all.
    let file = try Vault.open(at: try runtime.vaultPath())
    guard let early = try file.syncSettings() else { throw SyncError.notSetUp }
    let id = file.header.vaultID
    let keys = AgentClient(environment: runtime.context.environment, vaultID: id)?.keys(
      vaultID: id)
    var connecting: Connecting?
    if let keys, let tag = early.serverTag {
      // An address whose tag the key does not confirm was put there by someone else.
      guard KeyedHash.same(try SessionStore.serverTag(early.server, key: keys.fingerprintKey), tag)
      else { throw AppError.syncAddressChanged }
      connecting = Connecting(
        try address(early.server, context: runtime.context), runtime)
    }
    let journal: JournalVault
    do {
      journal = try runtime.openVault(check: .point, opened: file, agent: .init(keys: keys))
    } catch StoreError.tampered(.rows) {
      // The ledger covers the address: said as what it is when this computer's record says
      // the address is what changed.
      if let seen = VaultWitness.recordedServer(
        vault: try runtime.vaultPath(), vaultID: id, environment: runtime.context.environment),
        seen != KeyedHash.unkeyed(Array(early.server.utf8))
      {
        throw AppError.syncAddressChanged
      }
      throw StoreError.tampered(.rows)
    }
    guard let settings = try journal.file.syncSettings() else { throw SyncError.notSetUp }
    let transport: any SyncTransport
    if let connecting, settings.server == early.server {
      transport = try connecting.transport()
    } else {
      transport = try connect(
        try address(settings.server, context: runtime.context), runtime)
    }
    journal.syncing = true
    do {
      return try SyncEngine(
        storage: journal.syncStorage, keys: journal.unlockedKeys, transport: transport,
        options: options(journal, runtime)
      ).sync(waiting: !background, stuckAfter: stuckAfter(runtime))
    } catch SyncError.keyChanged(let seq) where !background {
      return try follow(journal, runtime, transport: transport, changedAt: seq)
    }
  }

  /// The new passphrase and the key it opens from the server's `header`: three tries at a
  /// terminal, as any passphrase; a file gives the same answer again, so it has one.
  private static func newKey(
    _ header: KeyHeader, source: PassphraseSource, _ runtime: Runtime
  ) throws -> (SecureBytes, VaultKeys) {
    let tries = source == .terminal ? 3 : 1
    for attempt in 1...tries {
      let typed = try source.read(prompt: "New passphrase: ", terminal: runtime.terminal)
      runtime.terminal?.writeLine("Deriving your key (this takes a moment on purpose)…")
      let opened = Result {
        try VaultKeys.open(header: header, passphrase: typed, policy: runtime.context.kdfPolicy)
      }
      switch opened {
      case .success(let keys): return (typed, keys)
      case .failure(CryptoError.wrongPassphrase) where attempt < tries:
        runtime.terminal?.writeLine(
          "  that passphrase does not open the journal's new key; try again")
      case .failure(CryptoError.wrongPassphrase) where tries > 1:
        throw AppError.wrongPassphrases(tries: tries)
      case .failure(let error): throw error
      }
    }
    throw AppError.internalError("no new passphrase after asking")
  }

  /// `passwd --new-key` on a journal that syncs (SECURITY.md, "Sync", "A new key"): the
  /// server's copy is replaced under the new key first (after a sync, so that it holds
  /// everything here), then this vault changes key. A key the server did not take changes
  /// nothing here.
  static func changeKey(
    _ journal: JournalVault, _ runtime: Runtime, to passphrase: SecureBytes, limits: KDFLimits?
  ) throws -> JournalVault.KeyChanged {
    guard let settings = try journal.file.syncSettings() else { throw SyncError.notSetUp }
    var sent: Int?
    var synced: SyncReport?
    do {
      var changed = try journal.changeKey(to: passphrase, limits: limits) { new, header in
        let transport = try connect(
          try address(settings.server, context: runtime.context), runtime)
        journal.syncing = true
        let result = try SyncEngine(
          storage: journal.syncStorage, keys: journal.unlockedKeys, transport: transport,
          options: options(journal, runtime)
        ).sendNewKey(new, header: header, stuckAfter: stuckAfter(runtime))
        sent = result.sessions
        synced = result.report
        return result.position
      }
      changed.serverSessions = sent
      changed.synced = synced
      return changed
    } catch let error where sent == nil {
      throw AppError.syncNewKeyNotSent(cause: Diagnosis(error))
    }
  }

  /// `journal sync` after another device changed the key: asks for the new passphrase (at
  /// the terminal, or from JOURNAL_NEW_PASSPHRASE_FILE), opens the server's header with it,
  /// checks the chain under the new key, then moves this vault to it (unsent changes kept)
  /// and syncs. Without a way to ask, nothing changes: `keyChanged` says what to do.
  private static func follow(
    _ journal: JournalVault, _ runtime: Runtime, transport: any SyncTransport,
    changedAt seq: Int64
  ) throws -> SyncReport {
    let file = runtime.context.environment["JOURNAL_NEW_PASSPHRASE_FILE"]
    let source: PassphraseSource? =
      file.flatMap { $0.isEmpty ? nil : .file($0) } ?? (runtime.terminal != nil ? .terminal : nil)
    guard let source else { throw SyncError.keyChanged(seq: seq) }
    // An unlock agent that would keep the old key stops the change before the new
    // passphrase is typed (and is asked again as the change begins).
    try AgentClient.stopEverywhere(
      environment: runtime.context.environment, vaultID: journal.unlockedKeys.vaultID)
    let header = try SyncEngine(
      storage: journal.syncStorage, keys: journal.unlockedKeys, transport: transport,
      options: options(journal, runtime)
    ).serverHeader()
    runtime.terminal?.writeLine(
      "The journal's key was changed on another device: its new passphrase opens it now.")
    let (passphrase, new) = try newKey(header, source: source, runtime)
    guard let settings = try journal.file.syncSettings() else { throw SyncError.notSetUp }
    let position = try SyncEngine(
      storage: journal.syncStorage, keys: new, transport: transport,
      options: options(journal, runtime)
    ).checkNewKey(from: settings)
    let followed = try journal.followKey(
      new, ending: header, passphrase: passphrase, position: position)
    let moved = try JournalVault.open(
      at: journal.path, opened: journal.file, context: runtime.context, agentKeys: { _ in new }
    ) { throw AppError.internalError("a vault opened with its new key asked for a passphrase") }
    moved.syncing = true
    var report = try SyncEngine(
      storage: moved.syncStorage, keys: new, transport: transport,
      options: options(moved, runtime)
    ).sync(stuckAfter: stuckAfter(runtime))
    report.keyFollowed = followed.sessions
    report.recoveryCodeDropped = followed.recoveryDropped
    return report
  }

  /// A connection made on another thread, waited for when needed.
  private final class Connecting: @unchecked Sendable {
    // @unchecked: `result` is written once on the connecting thread before `done` is
    // signalled, and read only after waiting for it.
    private var result: Result<any SyncTransport, any Error>?
    private let done = DispatchSemaphore(value: 0)

    init(_ address: ServerAddress, _ runtime: Runtime) {
      let library = SyncCommands.library(runtime)
      let batch = SyncCommands.pullBatch(runtime)
      let bounds = SyncCommands.bounds(runtime, address: address)
      DispatchQueue.global(qos: .userInitiated).async {
        self.result = Result {
          try PostgresTransport(
            address.conninfo, library: library, batch: batch, bounds: bounds)
        }
        self.done.signal()
      }
    }

    func transport() throws -> any SyncTransport {
      done.wait()
      guard let result else { throw AppError.internalError("no connection result") }
      return try result.get()
    }
  }

  /// `journal sync leave`: this vault stops syncing; what it agreed with the server is
  /// forgotten, so that `sync setup` (to this server or another) sends everything again.
  /// The server's copy stays. A keyed write: the ledger covers what sync agreed.
  ///
  /// With `deleting`, the server's copy is deleted first (every row and link of it, for every
  /// device): for a passphrase that leaked, whose old key sealed all of it, or a server left
  /// for good. Nothing here changes unless that succeeded. The address is trusted as any
  /// sync trusts it: read after the vault's whole check.
  ///
  /// Within the cooling-off window after a session, at a terminal and unless `confirmed`
  /// (--yes), it first pauses to ask once more, before the server is contacted.
  public static func leave(_ runtime: Runtime, deleting: Bool = false, confirmed: Bool = false)
    throws -> Left
  {
    let window = try CoolingOffPause.window(runtime)
    // Said before any passphrase is asked; the file opened once for both.
    let file = try Vault.open(at: try runtime.vaultPath())
    guard try file.syncSettings() != nil else { throw SyncError.notSetUp }
    let journal = try runtime.openVault(opened: file)
    guard let settings = try journal.file.syncSettings() else { throw SyncError.notSetUp }
    try CoolingOffPause.check(
      .leaveSync(deletingServerCopy: deleting), window: window, journal: journal,
      confirmed: confirmed, runtime)
    var deleted: Bool?
    if deleting {
      let transport = try connect(
        try address(settings.server, context: runtime.context), runtime)
      deleted = try SyncEngine.deleteServerCopy(
        vaultID: journal.unlockedKeys.vaultID, transport: transport)
    }
    try journal.syncStorage.leaveSync()
    return Left(server: settings.server, deleted: deleted)
  }

  /// What `sync leave` did.
  public struct Left: Sendable, Equatable {
    /// The server this journal synced with.
    public let server: String
    /// Whether the server's copy was deleted (false: it held none); nil when not asked.
    public let deleted: Bool?
  }

  /// `journal sync status`, without the passphrase.
  /// The sessions with kept conflicts are counted only when the unlock agent holds the key
  /// (the passphrase is never asked for this).
  public static func status(_ runtime: Runtime) throws -> SyncStatus {
    let vault = try runtime.openLocked()
    guard let settings = try vault.syncSettings() else { throw SyncError.notSetUp }
    var status = SyncEngine.status(settings: settings, pending: try vault.syncPending())
    status.running = SyncEngine.running(
      lockPath: try runtime.vaultPath() + ".sync-lock", now: runtime.context.now(),
      stuckAfter: stuckAfter(runtime))
    let id = vault.header.vaultID
    let environment = runtime.context.environment
    if let keys = AgentClient(environment: environment, vaultID: id)?.keys(vaultID: id),
      let journal = try? JournalVault.open(
        at: try runtime.vaultPath(), opened: vault, context: runtime.context,
        agentKeys: { _ in keys }, passphrase: { throw AppError.noPassphraseSource })
    {
      var conflicted: [SessionID] = []
      _ = try journal.storage.streamSessions(
        order: .newestFirst, include: { _ in true },
        transform: { $0.conflicts.isEmpty ? nil : $0.id }
      ) { conflicted.append($0) }
      status.conflicted = conflicted
    }
    return status
  }

  /// `journal sync background [on|off]`: whether a write starts a sync in the background;
  /// the setting as it is then. Needs no passphrase.
  public static func background(_ runtime: Runtime, set on: Bool?) throws -> Bool {
    let vault = try runtime.openLocked()
    guard try vault.syncSettings() != nil else { throw SyncError.notSetUp }
    if let on { try vault.setSyncBackground(on) }
    return try vault.syncSettings()?.background ?? false
  }

  /// The schema, for a hosting admin (`journal sync setup --print-schema`).
  public static var schemaSQL: String { PostgresSchema.sql }

  /// Connects to `address` as the runtime says (libpq's name, the pull batch, the bounds).
  static func connect(_ address: ServerAddress, _ runtime: Runtime) throws -> any SyncTransport {
    try PostgresTransport(
      address.conninfo, library: library(runtime), batch: pullBatch(runtime),
      bounds: bounds(runtime, address: address))
  }

  /// The address as given, checked (PostgreSQL's rules: no password, TLS to another computer).
  static func address(_ text: String, context: AppContext) throws -> ServerAddress {
    try ServerAddress(text, environment: context.environment)
  }

  /// What the engine is handed: this runtime's clock and random bytes, the vault's lock, the
  /// debug build's crash points and push batch, and the command line's notes.
  static func options(_ journal: JournalVault, _ runtime: Runtime) -> SyncEngine.Options {
    let environment = runtime.context.environment
    var pushBatch = 1000
    #if DEBUG
      if let text = environment["JOURNAL_DEBUG_PUSH_BATCH"], let size = Int(text), size > 0 {
        pushBatch = size
      }
    #endif
    return SyncEngine.Options(
      now: { runtime.context.now() }, random: runtime.context.random,
      lockPath: journal.path + ".sync-lock", pushBatch: pushBatch,
      reached: { CrashPoint.reached($0, environment: environment) }, note: { Report.note($0) })
  }

  /// How long a sync waits for each thing (SyncBounds), connecting as long as the address
  /// says. A debug build lets a test make them short (JOURNAL_DEBUG_SYNC_BOUNDS, as
  /// `lock=500,answer=1500`, in milliseconds), so that no test waits out a real timeout.
  static func bounds(_ runtime: Runtime, address: ServerAddress) -> SyncBounds {
    var bounds = SyncBounds.standard
    bounds.connect = address.connectTimeout
    #if DEBUG
      for (key, value) in debugBounds(runtime) {
        switch key {
        case "connect": bounds.connect = value
        case "lock": bounds.lock = value
        case "statement": bounds.statement = value
        case "idle": bounds.idle = value
        case "answer": bounds.answer = value
        default: break
        }
      }
    #endif
    return bounds
  }

  /// How long a sync holding the lock may go without progress before it is taken for stuck
  /// (debug builds: `stuck=` in JOURNAL_DEBUG_SYNC_BOUNDS).
  static func stuckAfter(_ runtime: Runtime) -> Int {
    #if DEBUG
      if let value = debugBounds(runtime)["stuck"] { return value }
    #endif
    return SyncEngine.stuckAfter
  }

  #if DEBUG
    private static func debugBounds(_ runtime: Runtime) -> [String: Int] {
      var bounds: [String: Int] = [:]
      let text = runtime.context.environment["JOURNAL_DEBUG_SYNC_BOUNDS"] ?? ""
      for pair in text.split(separator: ",") {
        let parts = pair.split(separator: "=")
        if parts.count == 2, let value = Int(parts[1]), value > 0 {
          bounds[String(parts[0])] = value
        }
      }
      return bounds
    }
  #endif

  /// How many rows a pull reads at a time; a debug build lets a test choose
  /// (JOURNAL_DEBUG_PULL_BATCH), so that a few sessions take many batches.
  static func pullBatch(_ runtime: Runtime) -> Int {
    #if DEBUG
      if let text = runtime.context.environment["JOURNAL_DEBUG_PULL_BATCH"], let size = Int(text) {
        return size
      }
    #endif
    return 500
  }

  /// libpq's name; a debug build lets a test name one that is not there.
  static func library(_ runtime: Runtime) -> String {
    #if DEBUG
      if let name = runtime.context.environment["JOURNAL_DEBUG_LIBPQ"] { return name }
    #endif
    return "libpq.so.5"
  }
}
