import Foundation
import JournalAgent
import JournalCore
import JournalCrypto
import JournalDiagnostics
import JournalDrafts
import JournalStore
import JournalSystem
import JournalTerminal

/// What a command needs from the world: the context, the terminal (if any), the vault.
public struct Runtime {
  /// What every command may be told on its command line.
  public struct Options: Sendable {
    public var vault: String?
    public var passphraseFile: String?
    public var passphraseFd: Int32?
    public var plain: Bool
    public var noInput: Bool

    public init(
      vault: String?, passphraseFile: String?, passphraseFd: Int32?, plain: Bool, noInput: Bool
    ) {
      self.vault = vault
      self.passphraseFile = passphraseFile
      self.passphraseFd = passphraseFd
      self.plain = plain
      self.noInput = noInput
    }
  }

  public let options: Options
  public let context: AppContext
  public let terminal: TTY?
  /// How stdout looks: plain or not, colour, the width to wrap to (nil for a pipe).
  public let presentation: Presentation

  /// Reads the settings file into the environment (the environment wins), then opens the
  /// terminal unless input is off.
  public init(_ options: Options) throws {
    let environment = try ConfigFile.apply(to: ProcessInfo.processInfo.environment)
    self.options = options
    self.context = .live(environment: environment)
    let quiet =
      try options.noInput || Setting.flag("JOURNAL_NO_INPUT", environment: environment) ?? false
    let plain = try Setting.isPlain(flag: options.plain, environment: environment)
    let spoken = try Setting.isSpoken(flag: options.plain, environment: environment)
    self.terminal = quiet ? nil : TTY.open(environment: environment, plain: plain, spoken: spoken)
    self.presentation = Presentation(
      plain: plain,
      colour: Presentation.colourAllowed(environment: environment) && isatty(STDOUT_FILENO) != 0,
      width: Presentation.width(of: STDOUT_FILENO, environment: environment), spoken: spoken)
    ExternalEditor.wipeLeftoverBuffers(environment: environment)
  }

  public func vaultPath() throws -> String {
    try VaultLocation.resolve(flag: options.vault, environment: context.environment)
  }

  public var passphraseSource: PassphraseSource? {
    PassphraseSource.choose(
      file: options.passphraseFile, descriptor: options.passphraseFd,
      environment: context.environment, hasTerminal: terminal != nil)
  }

  /// Opens the vault, asking for the passphrase only once the file is known to be a vault.
  /// With integration prompts on, today's are shown once it is open.
  /// `accept` may trust a vault that is not as journal last left it (`verify --accept`).
  ///
  /// `check`: how much of the vault is checked, and when (`LedgerCheck`): `.listing` for
  /// `list`, which checks it from its own pass over the rows; `.point` for a command about
  /// one session, which checks what it reads and writes.
  public func openVault(
    prompt: String = "Passphrase: ", accept: ((TrustQuestion) throws -> Bool)? = nil,
    check: LedgerCheck = .whole
  ) throws -> JournalVault {
    try openVault(prompt: prompt, accept: accept, check: check, opened: nil)
  }

  /// What the unlock agent answered when asked for a vault's keys (nil: it holds none).
  struct AgentAnswer {
    let keys: VaultKeys?
  }

  /// `openVault`, on the vault file when the caller has it open already (`opened`), and with
  /// the agent's answer when the caller asked it already (`agent`), so neither is done twice.
  func openVault(
    prompt: String = "Passphrase: ", accept: ((TrustQuestion) throws -> Bool)? = nil,
    check: LedgerCheck = .whole, opened: Vault?, agent: AgentAnswer? = nil
  ) throws -> JournalVault {
    let path = try vaultPath()
    let arc = try IntegrationArc.isOn(environment: context.environment)
    var file = opened
    let journal = try JournalVault.open(
      at: path, opened: opened, context: context,
      beforeUnlock: { vault in
        file = vault
        announce(vault)
      },
      agentKeys: { [context] id in
        agent.map(\.keys)
          ?? AgentClient(environment: context.environment, vaultID: id)?.keys(vaultID: id)
      },
      agentWitness: { [context] id, stamp in
        AgentClient(environment: context.environment, vaultID: id)?
          .witness(generation: stamp.generation, tag: stamp.tag)
          .map { LedgerStamp(generation: $0.generation, tag: $0.tag) }
      },
      tries: passphraseTries, tryAgain: passphraseTryAgain, accept: accept, check: check
    ) { [self] in
      if let file { announceSealed(file) }
      return try askPassphrase(prompt: prompt)
    }
    reportOpened(journal)
    if arc { announceArc(journal) }
    return journal
  }

  /// Sealed capture for `vault`, when nothing else would give the key without asking (no
  /// agent holds it, no passphrase file, descriptor or command is set) and it is on and
  /// pinned here; else nil, with what the agent answered, so that it is asked once.
  func sealedCapture(_ vault: Vault) throws -> (capture: SealedCapture?, agent: AgentAnswer) {
    let id = vault.header.vaultID
    let agent = AgentAnswer(
      keys: AgentClient(environment: context.environment, vaultID: id)?.keys(vaultID: id))
    guard agent.keys == nil, passphraseSource == nil || passphraseSource == .terminal,
      let capture = try SealedCapture.ready(vault: vault, context: context)
    else { return (nil, agent) }
    try vault.purgeExpired(now: context.now())
    announce(vault)
    return (capture, agent)
  }

  /// Before the passphrase is asked: how many additions written without it wait.
  func announceSealed(_ vault: Vault) {
    guard let count = try? vault.sealedCount(), count > 0 else { return }
    Report.note(
      count == 1
        ? "1 addition written without the passphrase waits; it opens with the passphrase"
        : "\(count) additions written without the passphrase wait; they open with the passphrase")
  }

  /// What opening the vault did with what was written without the passphrase.
  func reportOpened(_ journal: JournalVault) {
    if SecureBytes.someUnlocked {
      Report.note(
        "the key could not be locked in memory (the locked-memory limit, \"ulimit -l\", is "
          + "reached), so it may be written to swap; raise the limit, or use encrypted swap")
    }
    if journal.finishedKeyChange {
      Report.note(
        "a change of the journal's key was interrupted; it is finished now, every session "
          + #"under the new key (the recovery code, if any, was removed: "journal recovery-code" makes one)"#
      )
    }
    if journal.sealingKeyRepaired {
      Report.note(
        "the key this journal seals new writing to had been changed; it is set right again")
      Report.hint(
        "what was sealed to the other key cannot be opened here; check who can write "
          + "the journal's files")
    }
    let opened = journal.openedAdditions
    // At most ten ids a line: thousands of planted additions must not make a line of
    // thousands.
    let ids = { (ids: [SessionID]) in
      ids.prefix(10).map(\.short).joined(separator: ", ")
        + (ids.count > 10 ? " and \(ids.count - 10) more" : "")
    }
    if !opened.added.isEmpty {
      Report.note(
        "opened \(counted(opened.added.count, "session")) written without the passphrase: "
          + ids(opened.added))
    }
    for kept in opened.keptApart.prefix(10) {
      Report.note(
        #"something written without the passphrase claimed the id "\#(kept.claimed.short)"; "#
          + #"it was kept apart as "\#(kept.keptAs.short)""#)
    }
    if opened.keptApart.count > 10 {
      Report.note("and \(opened.keptApart.count - 10) more were kept apart the same way")
    }
    if let first = opened.keptApart.first {
      Report.hint(
        #"nothing already in the journal was replaced; "journal show \#(first.keptAs.short)" "#
          + "reads what was kept apart, marked as added without the passphrase")
    }
    if !opened.updated.isEmpty {
      Report.note("opened later fields written without the passphrase for " + ids(opened.updated))
    }
    for id in opened.damaged.prefix(10) {
      Report.note(
        #"something written without the passphrase for session "\#(id.short)" did not open"#)
    }
    if opened.damaged.count > 10 {
      Report.note("and \(opened.damaged.count - 10) more did not open")
    }
    if !opened.damaged.isEmpty {
      Report.hint(
        "what did not open was altered or damaged and has been removed; the others opened")
    }
    if opened.unnamed > 0 {
      Report.note(
        "\(counted(opened.unnamed, "addition")) written without the passphrase named no session "
          + "and \(opened.unnamed == 1 ? "was" : "were") removed")
      Report.hint(
        "the vault file was edited; check who can write it")
    }
    if !opened.orphaned.isEmpty {
      Report.note(
        "later fields written without the passphrase for " + ids(opened.orphaned)
          + " had no session left to join (deleted) and were removed")
    }
    if journal.offersSealedCapture {
      try? journal.markSealedCaptureOffered()
      Report.note(
        #"new: you can write sessions and reflections without the passphrase, to read later with it; "journal capture on" turns it on"#
      )
    }
  }

  /// The passphrase from its source (the terminal, a file, a descriptor or a command).
  public func askPassphrase(prompt: String) throws -> SecureBytes {
    guard let source = passphraseSource else { throw AppError.noPassphraseSource }
    return try source.read(prompt: prompt, terminal: terminal)
  }

  /// Three tries for a person at the terminal; a file, descriptor or command gives the same
  /// answer again, so it has one.
  public var passphraseTries: Int { passphraseSource == .terminal ? 3 : 1 }

  /// Said before the passphrase is asked again.
  public func passphraseTryAgain() {
    terminal?.writeLine("  that passphrase does not open this journal; try again")
  }

  /// The day, week and month prompts due today; a session that cannot be read is left to
  /// the command itself to report.
  private func announceArc(_ journal: JournalVault) {
    guard let (sessions, _) = try? journal.list(needsReflection: false) else { return }
    let format = DisplayFormat(timeZone: context.timeZone)
    for (session, milestone) in IntegrationArc.due(
      sessions, today: context.now(), timeZone: context.timeZone)
    {
      Report.note(IntegrationArc.line(session, milestone, format: format))
    }
  }

  /// The terminal the guided forms talk to: the TTY itself, or one whose long texts open
  /// the person's editor (`--editor`, or JOURNAL_EDITOR=1).
  public func formTerminal(_ tty: TTY, editor: Bool) throws -> any Terminal {
    let setting = try Setting.flag("JOURNAL_EDITOR", environment: context.environment) ?? false
    guard editor || setting else { return tty }
    return EditorTerminal(
      base: tty, editor: try ExternalEditor.prepare(environment: context.environment))
  }

  /// The vault's draft files, in their directory (JOURNAL_DRAFTS_DIR or the default).
  public func drafts(_ journal: JournalVault) throws -> DraftStore {
    try journal.drafts(in: try DraftLocation.directory(environment: context.environment))
  }

  /// The draft files, after dropping the unreadable, the stale and those already saved.
  public func recoverDrafts(_ journal: JournalVault) throws -> (DraftStore, DraftRecovery) {
    let store = try drafts(journal)
    let recovery = try DraftRecovery.run(
      store: store, journal: journal, now: context.now(),
      maximumAge: try DraftLocation.maximumAge(environment: context.environment),
      format: DisplayFormat(timeZone: context.timeZone))
    return (store, recovery)
  }

  /// The reminder use cases on a vault (no passphrase needed).
  public func reminders(_ vault: Vault) throws -> ReminderService {
    let schedule = try ReminderSettings.schedule(
      environment: context.environment, timeZone: context.timeZone)
    let now = context.now
    return ReminderService(vault: vault, schedule: schedule, now: { now() })
  }

  /// Opens the vault without the passphrase (for undo, backup and reminders), purging
  /// closed deletions and showing the reminder line like every command.
  public func openLocked() throws -> Vault {
    let vault = try Vault.open(at: try vaultPath())
    try vault.purgeExpired(now: context.now())
    announce(vault)
    return vault
  }

  /// The one gentle line shown while sessions wait for reflection and a reminder is due:
  /// once a day, at the first run that day (ReminderNote), not before every command.
  public func announce(_ vault: Vault) {
    guard let service = try? reminders(vault), let line = try? service.banner() else { return }
    let note = ReminderNote(vaultID: vault.header.vaultID, environment: context.environment)
    let today = ReminderNote.day(context.now(), timeZone: context.timeZone)
    if let note, note.shown(on: today) { return }
    Report.note(line)
    note?.record(today)
  }

  /// Process-wide protections, first thing in `main`: files private by default, no core
  /// dumps, no ptrace (see Hardening).
  public static func hardenProcess() { Hardening.apply() }

  /// Reads standard input as UTF-8 text for `field` (given as "-"): at most what the field
  /// holds, and a little for the spaces and newlines trimmed from its ends. Reading stops
  /// there: `yes | journal new --intention -` is refused after a megabyte, not after memory
  /// runs out.
  public static func readStandardInput(for field: Field) throws -> String {
    let limit = field.maximumBytes + 4096
    guard let bytes = try? Descriptor.standardInput.readAll(limit: limit) else {
      throw AppError.stdinUnreadable
    }
    guard bytes.count <= limit else {
      throw FieldError.textTooLong(field: field, maximumBytes: field.maximumBytes)
    }
    guard let text = String(validating: bytes, as: UTF8.self) else {
      throw AppError.stdinUnreadable
    }
    return text
  }

  /// Writes to stdout; a failed write (a full disk) throws.
  public static func output(_ text: String) throws {
    try StandardStreams.output(text)
  }

  /// Writes what a command prints after it saved session `saved`: a failed write says the
  /// session was saved (and how to see it), never that nothing was changed.
  public static func output(_ text: String, saved id: String) throws {
    do {
      try StandardStreams.output(text)
    } catch .standardOutput(let code) {
      throw AppError.savedNotShown(id: id, errno: code)
    }
  }

  /// Writes UTF-8 bytes to stdout; a failed write (a full disk) throws.
  public static func output(_ bytes: [UInt8]) throws {
    try StandardStreams.output(bytes)
  }
}
