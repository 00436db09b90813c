import Foundation
import JournalAgent
import JournalCore
import JournalCrypto
import JournalDiagnostics
import JournalDrafts
import JournalStore
import JournalSync
import JournalSystem
import JournalTerminal
import Testing

/// Every error case of every module, with the exit code it must end with: one row a case.
///
/// The `expected…` functions switch over each enum with no `default:`, so a new case does not
/// build until it is given an exit code here; `rows` must then hold a sample of it, which
/// `everyCaseHasARow` checks by the case names.
struct DiagnosisTests {
  static let rows: [any Error] = [
    FieldError.missingFields([.intention]), FieldError.moodNotANumber(field: .moodBefore),
    FieldError.moodOutOfRange(field: .moodBefore, value: 0), FieldError.unreadableDate,
    FieldError.dateTooFarAhead, FieldError.dateTooFarBack, FieldError.emptyIntention,
    FieldError.unknownTreatment(suggestion: "psilocybin"),
    FieldError.emptyCustomTreatment,
    FieldError.customTreatmentTooLong(maximum: 64),
    FieldError.textTooLong(field: .dose, maximumBytes: 250),
    FieldError.controlCharacters(field: .intention), FieldError.emptyTag,
    FieldError.tagTooLong(maximumBytes: 64), FieldError.tagCharacters,
    FieldError.tooManyTags(maximum: 32), FieldError.emptyNote,
    FieldError.noteTooLong(maximumBytes: 1_048_576), FieldError.noteControlCharacters,
    FieldError.noteMood, AppError.note(.noSuchNote(number: 2, count: 1), id: "3f2a9c1e"),
    NoteError.noSuchNote(number: 3, count: 2), NoteError.tooManyNotes,
    NoteError.nothingToRestore, NoteError.notesTooLong(maximumBytes: 8_388_608),
    NoteError.changedMeanwhile(number: 2),
    LifecycleError.notSavedYet, LifecycleError.alreadySaved, LifecycleError.alreadyComplete,
    LifecycleError.alreadyClosed, LifecycleError.notClosed, LifecycleError.planned,
    LifecycleError.doneCannotBeAhead,
    LifecycleError.noConflict(field: .reflection),
    CryptoError.sodiumUnavailable, CryptoError.secureMemoryUnavailable(bytes: 32),
    CryptoError.keyDerivationFailed, CryptoError.kdfLimitsOutOfRange(opsLimit: 1, memLimit: 1),
    CryptoError.wrongPassphrase, CryptoError.wrongRecoveryCode, CryptoError.vaultMismatch,
    CryptoError.integrity,
    CryptoError.malformedPlaintext,
    StoreError.vaultMissing(path: "/v"), StoreError.vaultExists(path: "/v"),
    StoreError.notAVault(path: "/v"), StoreError.damagedFile(path: "/v"),
    StoreError.newerFormat(found: 9, supported: 4),
    StoreError.damagedRecord(id: "3f2a"), StoreError.damagedReminder(id: "3f2a"),
    StoreError.importedNotesOverflow(id: "3f2a"),
    StoreError.damagedStructure(path: "/v"), StoreError.tampered(.settings),
    StoreError.damagedCopy(
      path: "/copy", report: "Tree 4 page 4: btreeInitPage() returns error code 11"),
    StoreError.noMatch(prefix: "ab"),
    StoreError.ambiguous(prefix: "a", candidates: ["a1", "a2"]),
    StoreError.io(path: "/v", errno: EIO),
    StoreError.database(code: 14, message: "unable to open"), StoreError.busy,
    StoreError.diskFull(path: "/v"), StoreError.keyChanged, StoreError.syncAlreadySetUp,
    StoreError.readOnly(path: "/v", reason: .fileSystem),
    StoreError.readOnly(path: "/v", reason: .file),
    StoreError.readOnly(path: "/v", reason: .directory(path: "/d")),
    StoreError.tampered(.rows), StoreError.tampered(.ledger),
    StoreError.tampered(.inconsistent(ids: ["3f2a"])),
    StoreError.tampered(.inconsistent(ids: ["3f2a", "9c1d"])),
    StoreError.tampered(.olderVersion(id: "3f2a")),
    StoreError.tampered(.sessions(missing: ["3f2a"], added: [], changed: ["9c1d", "0a0b"])),
    SystemError.missing(path: "/d"), SystemError.exists(path: "/f"),
    SystemError.symlink(path: "/l"),
    SystemError.wrongOwner(path: "/o"),
    SystemError.unsafePermissions(path: "/p", mode: 0o755, expected: 0o700),
    SystemError.notARegularFile(path: "/n"), SystemError.io(path: "/i", errno: EACCES),
    SystemError.standardOutput(errno: ENOSPC), SystemError.noPrivateMemoryDirectory,
    TerminalError.stopped, TerminalError.secretTooLong(maximum: 1024),
    AgentError.socket(path: "/s", errno: EADDRINUSE), AgentError.socketPathTooLong(path: "/s"),
    AgentError.notStarted, AgentError.stillRunning,
    AgentError.notAnswering(count: 1, processes: []),
    AgentError.notAnswering(count: 2, processes: [41, 42]),
    AgentError.notAnswering(count: 3, processes: [41]),
    DraftError.inUse(id: "3f2a"), DraftError.noMatch(prefix: "ab"),
    DraftError.ambiguous(prefix: "a"),
    DraftError.io(path: "/d", errno: ENOSPC), DraftError.needsKey(id: "3f2a"),
    DraftError.damaged(id: "3f2a"),
    AppError.noPassphraseSource, AppError.passphraseFileUnreadable(path: "/p", errno: ENOENT),
    AppError.sealingKeyChanged, AppError.sealingUnavailable, AppError.recoveryCodeMistyped,
    AppError.noRecoveryCodeSource, AppError.recoveryCodeReplaceNeedsYes, AppError.noRecoveryCode,
    AppError.ageMissing, AppError.ageRecipientRefused(given: "age1x", flag: "--to"),
    AppError.ageFailed(status: 1), AppError.shareNeedsRecipients,
    AppError.passphraseFileUnsafe(path: "/p", mode: 0o644),
    AppError.passphraseDescriptorUnreadable(fd: 3), AppError.passphraseCommandFailed(status: 1),
    AppError.emptyPassphrase, AppError.passphraseTooLong(maximum: 1024),
    AppError.passphraseTooShort(minimum: 8), AppError.passphraseMismatch,
    AppError.noNewPassphraseSource, AppError.missingFlags(["--intention"]),
    AppError.nothingToChange, AppError.editorNeedsTerminal,
    AppError.stdinUsedTwice, AppError.stdinUnreadable, AppError.noHome,
    AppError.lifecycle(.alreadyComplete, id: "3f2a"),
    AppError.laterFieldFilled(.reflection, id: "3f2a"), AppError.editorTextUnreadable,
    AppError.olderThanSeen(seen: 9, found: 7), AppError.otherThanSeen(generation: 9),
    AppError.witnessDamaged(path: "/s/seen/00"),
    AppError.editorFailed(status: 127), AppError.editorCancelled(status: 1),
    AppError.editorNotFound(name: "/nonexistent"),
    AppError.outputUnwritable(path: "/missing/o", errno: ENOENT),
    AppError.reminderInPast, AppError.plannedReminder, AppError.badLimit, AppError.emptyDateRange,
    AppError.noSearchWords,
    AppError.searchWordsTooLong(maximumBytes: 65536),
    AppError.nothingToUndo,
    AppError.confirmationNeeded(what: "deleting"),
    AppError.importRefused(place: "line 3", reason: "is not JSON"),
    AppError.importVersion(found: 9, supported: 1), AppError.importJrnlJournal,
    AppError.outputExists(path: "/o"), AppError.savedNotShown(id: "3f2a", errno: ENOSPC),
    AppError.passphraseFileNotRegular(path: "/p"), AppError.passphraseCommandTimedOut(seconds: 120),
    AppError.passphraseNotUTF8, AppError.emptyRecoveryCode,
    AppError.sessionsDamaged(ids: ["3f2a"]), AppError.declined(what: "nothing was deleted"),
    AppError.notificationNotShown, AppError.noTerminalProgram(id: "3f2a"),
    AppError.terminalProgramFailed(id: "3f2a"), AppError.fileStructureDamaged(report: "x"),
    AppError.remindersNotDelivered(reason: "the notifier ended with exit status 1"),
    AppError.outputUnwritable(path: "/o", errno: ENOSPC),
    AppError.badSetting(name: "JOURNAL_UNDO_WINDOW", expected: "a duration"),
    AppError.configLine(path: "/c", line: 2, problem: "unknown setting"),
    AppError.configUnreadable(path: "/c", errno: EACCES), AppError.configUnsafe(path: "/c"),
    AppError.internalError("test"), AppError.wrongPassphrases(tries: 3),
    SyncError.notSetUp, SyncError.serverHasOther, SyncError.serverEmpty(role: "me"),
    SyncError.serverSeveral(count: 2), SyncError.serverNewer(found: 2, supported: 1),
    SyncError.tampered(.rolledBack(seen: 9, shown: 7)), SyncError.tampered(.forked(seq: 3)),
    SyncError.tampered(.brokenChain(seq: 4)), SyncError.tampered(.changedRow(id: "3f2a")),
    SyncError.tampered(.droppedChange(id: "3f2a")), SyncError.tampered(.changedHeader),
    SyncError.damagedRow(id: "3f2a"),
    SyncError.journalNotOnServer(role: "me", read: 17), AppError.syncAddressChanged,
    AppError.syncJoinRefused(cause: Diagnosis(SyncError.tampered(.changedHeader))),
    AppError.syncJoinUnfinished(
      cause: Diagnosis(SyncError.cut(said: ServerText("gone"))), path: "/v"),
    SyncError.keptMoving,
    AppError.syncNewKeyNotSent(cause: Diagnosis(SyncError.cut(said: ServerText("gone")))),
    AppError.keyChangeUnfinished(cause: Diagnosis(AgentError.notAnswering(process: 4242))),
    SyncError.keyChanged(seq: 9),
    SyncError.lockStuck(pid: 4242, seconds: 60),
    AppError.noConflicts(id: "3f2a"), SyncError.newerData(found: 2, supported: 1),
    SyncError.clientLibraryMissing(name: "libpq.so.5"),
    SyncError.connection(.unreachable(said: ServerText("could not translate host name"))),
    SyncError.connection(.noPassword(role: "me")),
    SyncError.connection(.passwordRefused(role: "me")),
    SyncError.connection(.roleRefused(role: "me", said: ServerText("no pg_hba.conf entry"))),
    SyncError.connection(.noDatabase(name: "journal")),
    SyncError.connection(.refused(sqlState: "53300", said: ServerText("too many clients"))),
    SyncError.statement(sqlState: "42501", said: ServerText("permission denied")),
    SyncError.statement(sqlState: "42P01", said: ServerText("relation does not exist")),
    SyncError.statement(sqlState: "XX000", said: ServerText("internal error")),
    SyncError.cut(said: ServerText("server closed the connection unexpectedly")),
    SyncError.waited(.connecting, milliseconds: 10_000),
    SyncError.waited(.answer, milliseconds: 45_000), SyncError.waited(.lock, milliseconds: 1500),
    SyncError.waited(.statement, milliseconds: 30_000),
    SyncError.waited(.quietHere, milliseconds: 30_000),
    SyncError.badAddress(reason: .unreadable), SyncError.badAddress(reason: .password),
    SyncError.badAddress(reason: .weakTLS(mode: "require")),
    AppError.notSavedDraftKept(
      cause: Diagnosis(StoreError.diskFull(path: "/v")), kept: "the date and the intention",
      sealed: false),
  ]

  /// Each row ends with the exit code its kind of failure is documented to have.
  @Test(arguments: 0..<rows.count) func exitCode(row: Int) throws {
    let error = Self.rows[row]
    #expect(Diagnosis(error).exitCode == Self.expectedCode(error), "\(error)")
  }

  /// Each row has words in journal's style: a lowercase start (or a quoted name), no
  /// trailing period, a hint in the same style, and nothing of what was typed.
  @Test(arguments: 0..<rows.count) func words(row: Int) throws {
    let diagnosis = Diagnosis(Self.rows[row])
    for text in [diagnosis.message] + (diagnosis.hint.map { [$0] } ?? []) {
      #expect(!text.isEmpty)
      // Lowercase, unless it starts with a name that is spelt so ("HOME", "JOURNAL_…").
      let first = text.prefix { $0 != " " }
      let styled = text.first.map { $0.isLowercase || $0.isNumber || $0 == "\"" } == true
      #expect(styled || first == first.uppercased(), "\(text)")
      #expect(!text.hasSuffix("."), "\(text)")
      #expect(!text.contains("\n"), "\(text)")
      #expect(!text.contains("SECRET"), "\(text)")
    }
  }

  /// The table holds a sample of every case of every enum the switches below name.
  @Test func everyCaseHasARow() {
    var names: [String: Set<String>] = [:]
    for error in Self.rows {
      let type = String(describing: Swift.type(of: error))
      let label = Mirror(reflecting: error).children.first?.label ?? String(describing: error)
      names[type, default: []].insert(label)
    }
    #expect(names["FieldError"]?.count == 20)
    #expect(names["NoteError"]?.count == 5)
    #expect(names["LifecycleError"]?.count == 8)
    #expect(names["CryptoError"]?.count == 9)
    #expect(names["StoreError"]?.count == 20)
    #expect(names["SystemError"]?.count == 9)
    #expect(names["DraftError"]?.count == 6)
    #expect(names["TerminalError"]?.count == 2)
    #expect(names["AgentError"]?.count == 5)
    #expect(names["AppError"]?.count == 74)
    #expect(names["SyncError"]?.count == 18)
  }

  /// An error of a type journal does not know is a bug: exit 1 and a request for a report,
  /// never a usage hint.
  @Test func unknownErrorIsInternal() {
    struct Unexpected: Error {}
    let diagnosis = Diagnosis(Unexpected())
    #expect(diagnosis.exitCode == .internalError)
    #expect(diagnosis.message == "internal error (Unexpected)")
    #expect(
      diagnosis.hint == "this is a bug in journal; please report it, without any journal content")
  }

  /// The exit-code table of Docs/USER-GUIDE.md lists exactly the codes journal has.
  @Test func userGuideTableMatchesTheCode() throws {
    let guide = URL(fileURLWithPath: #filePath)
      .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
      .appendingPathComponent("Docs/USER-GUIDE.md")
    let text = try String(contentsOf: guide, encoding: .utf8)
    let section = try #require(text.components(separatedBy: "## Exit codes").dropFirst().first)
    let codes = section.split(separator: "\n").prefix { !$0.hasPrefix("## ") }
      .compactMap { line -> Int32? in
        let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
        return cells.first.flatMap { Int32($0) }
      }
    #expect(codes == JournalExit.allCases.map(\.rawValue))
  }

  static func expectedCode(_ error: any Error) -> JournalExit {
    switch error {
    case let error as FieldError: expected(error)
    case let error as LifecycleError: expected(error)
    case let error as NoteError: expected(error)
    case let error as CryptoError: expected(error)
    case let error as StoreError: expected(error)
    case let error as SystemError: expected(error)
    case let error as DraftError: expected(error)
    case let error as TerminalError: expected(error)
    case let error as AgentError: expected(error)
    case let error as AppError: expected(error)
    case let error as SyncError: expected(error)
    default: .internalError
    }
  }

  static func expected(_ error: FieldError) -> JournalExit {
    switch error {
    case .missingFields, .moodNotANumber, .moodOutOfRange, .unreadableDate, .dateTooFarAhead,
      .dateTooFarBack, .emptyIntention, .unknownTreatment, .emptyCustomTreatment,
      .customTreatmentTooLong, .textTooLong, .controlCharacters, .emptyTag, .tagTooLong,
      .tagCharacters, .tooManyTags, .emptyNote, .noteTooLong, .noteControlCharacters, .noteMood:
      .usage
    }
  }

  static func expected(_ error: NoteError) -> JournalExit {
    switch error {
    case .noSuchNote, .nothingToRestore: .notFound
    case .tooManyNotes, .notesTooLong, .changedMeanwhile: .notAllowed
    }
  }

  static func expected(_ error: LifecycleError) -> JournalExit {
    switch error {
    case .notSavedYet, .alreadySaved, .alreadyComplete, .alreadyClosed, .notClosed, .planned,
      .doneCannotBeAhead:
      .notAllowed
    case .noConflict: .notFound
    }
  }

  static func expected(_ error: CryptoError) -> JournalExit {
    switch error {
    case .sodiumUnavailable: .internalError
    case .secureMemoryUnavailable, .keyDerivationFailed: .ioError
    case .wrongPassphrase, .wrongRecoveryCode: .wrongPassphrase
    case .kdfLimitsOutOfRange, .vaultMismatch, .integrity, .malformedPlaintext: .damaged
    }
  }

  static func expected(_ error: StoreError) -> JournalExit {
    switch error {
    case .vaultMissing: .noVault
    case .vaultExists, .keyChanged, .syncAlreadySetUp: .notAllowed
    case .notAVault, .damagedFile, .damagedRecord, .damagedReminder, .damagedStructure,
      .damagedCopy:
      .damaged
    case .newerFormat: .newerFormat
    case .importedNotesOverflow: .usage
    case .noMatch, .ambiguous: .notFound
    case .io, .database, .busy, .diskFull, .readOnly: .ioError
    case .tampered: .tampered
    }
  }

  static func expected(_ error: SystemError) -> JournalExit {
    switch error {
    case .missing, .io, .standardOutput: .ioError
    case .exists: .notAllowed
    case .symlink, .wrongOwner, .unsafePermissions, .notARegularFile, .noPrivateMemoryDirectory:
      .unsafeFiles
    }
  }

  static func expected(_ error: AgentError) -> JournalExit {
    switch error {
    case .socket, .socketPathTooLong, .notStarted, .stillRunning, .notAnswering: .ioError
    }
  }

  static func expected(_ error: TerminalError) -> JournalExit {
    switch error {
    case .stopped: .cancelled
    case .secretTooLong: .passphraseUnavailable
    }
  }

  static func expected(_ error: DraftError) -> JournalExit {
    switch error {
    case .inUse: .notAllowed
    case .noMatch, .ambiguous: .notFound
    case .io: .ioError
    case .needsKey: .passphraseUnavailable
    case .damaged: .damaged
    }
  }

  static func expected(_ error: AppError) -> JournalExit {
    switch error {
    case .noPassphraseSource, .passphraseFileUnreadable, .passphraseDescriptorUnreadable,
      .passphraseCommandFailed, .emptyPassphrase, .passphraseTooLong, .noNewPassphraseSource,
      .passphraseFileNotRegular, .passphraseCommandTimedOut, .emptyRecoveryCode:
      .passphraseUnavailable
    case .passphraseFileUnsafe, .configUnsafe: .unsafeFiles
    case .passphraseTooShort, .passphraseMismatch, .passphraseNotUTF8, .missingFlags,
      .nothingToChange, .editorNeedsTerminal,
      .stdinUsedTwice, .stdinUnreadable, .noHome, .editorTextUnreadable, .confirmationNeeded,
      .importRefused, .importJrnlJournal, .badSetting, .configLine:
      .usage
    case .lifecycle, .laterFieldFilled: .notAllowed
    case .note(let inner, _): expected(inner)
    case .olderThanSeen, .otherThanSeen, .witnessDamaged, .sealingKeyChanged: .tampered
    case .sealingUnavailable: .notAllowed
    case .recoveryCodeMistyped, .recoveryCodeReplaceNeedsYes: .usage
    case .noRecoveryCodeSource: .passphraseUnavailable
    case .noRecoveryCode: .notFound
    case .ageMissing: .notAllowed
    case .ageRecipientRefused, .shareNeedsRecipients: .usage
    case .ageFailed: .ioError
    case .editorNotFound: .usage
    case .outputUnwritable(_, let code) where code == ENOENT || code == ENOTDIR: .usage
    case .editorFailed, .outputUnwritable, .configUnreadable, .savedNotShown,
      .notificationNotShown, .terminalProgramFailed, .remindersNotDelivered:
      .ioError
    case .sessionsDamaged, .fileStructureDamaged: .damaged
    case .declined: .cancelled
    case .noTerminalProgram: .notFound
    case .editorCancelled: .cancelled
    case .reminderInPast, .plannedReminder, .badLimit, .emptyDateRange, .noSearchWords,
      .searchWordsTooLong:
      .usage
    case .nothingToUndo: .notFound
    case .importVersion: .newerFormat
    case .outputExists: .notAllowed
    case .internalError: .internalError
    case .wrongPassphrases: .wrongPassphrase
    case .notSavedDraftKept(let cause, _, _), .syncJoinRefused(let cause),
      .syncJoinUnfinished(let cause, _), .syncNewKeyNotSent(let cause),
      .keyChangeUnfinished(let cause):
      cause.exitCode
    case .noConflicts: .notFound
    case .syncAddressChanged: .tampered
    }
  }

  static func expected(_ error: SyncError) -> JournalExit {
    switch error {
    case .clientLibraryMissing, .connection, .statement, .cut, .waited: .syncUnavailable
    case .badAddress: .usage
    case .notSetUp, .serverHasOther, .serverSeveral, .serverEmpty: .notAllowed
    case .journalNotOnServer, .keptMoving, .lockStuck: .syncUnavailable
    case .serverNewer, .newerData: .newerFormat
    case .tampered: .tampered
    case .damagedRow: .damaged
    case .keyChanged: .passphraseUnavailable
    }
  }

  /// Every limit is said in the unit that fits: never "longer than 0 KiB".
  @Test func limitsInTheirUnit() {
    let dose = Diagnosis(FieldError.textTooLong(field: .dose, maximumBytes: 250))
    #expect(dose.message == "the dose is longer than 250 bytes")
    let text = Diagnosis(FieldError.textTooLong(field: .reflection, maximumBytes: 65536))
    #expect(text.message == "the reflection is longer than 64 KiB")
  }

  /// A treatment name typed wrongly is private: the error cannot even hold it; the message
  /// names the nearest known treatment, and the hint lists them all.
  @Test func noTypedContentInMessages() {
    let near = Diagnosis(FieldError.unknownTreatment(suggestion: "psilocybin"))
    #expect(near.message == #"unknown treatment; did you mean "psilocybin"?"#)
    #expect(
      near.hint
        == "choose one of psilocybin, mdma, ketamine, lsd, ayahuasca, mescaline, dmt, "
        + #"ibogaine, cannabis, or "other:<name>""#)
    let far = Diagnosis(FieldError.unknownTreatment(suggestion: nil))
    #expect(far.message == "unknown treatment")
    #expect(far.hint == near.hint)
  }
}
