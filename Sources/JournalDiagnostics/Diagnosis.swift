import Glibc
import JournalAgent
import JournalCore
import JournalCrypto
import JournalDrafts
import JournalStore
import JournalSync
import JournalSystem
import JournalTerminal

/// What to tell a person about an error: one line, an optional hint, and the exit code.
///
/// The one place that maps every error of every module to words and an exit code. No message
/// contains record content or a secret; ids and paths are the person's own.
public struct Diagnosis: Equatable, Sendable {
  public let message: String
  public let hint: String?
  public let exitCode: JournalExit

  public init(message: String, hint: String? = nil, exitCode: JournalExit) {
    self.message = message
    self.hint = hint
    self.exitCode = exitCode
  }

  /// Diagnoses any error thrown below the command line. An error of a type journal does not
  /// know is a bug: it says so and asks for a report, never for a different command line.
  public init(_ error: any Error) {
    if let error = error as? any Diagnosable {
      self = error.diagnosis
    } else {
      self = Self.internalError("\(type(of: error))")
    }
  }

  /// Whether `error` is an ordinary event rather than a fault: the person stopped, or there
  /// was nothing to undo. Reported without the word "error".
  public static func isOrdinary(_ error: any Error) -> Bool {
    if (error as? TerminalError) == .stopped { return true }
    switch error as? AppError {
    case .nothingToUndo, .editorCancelled, .declined: return true
    default: return false
    }
  }

  /// A bug: something that should not happen did. `detail` names where, never content.
  static func internalError(_ detail: String) -> Diagnosis {
    Diagnosis(
      message: "internal error (\(detail))",
      hint: "this is a bug in journal; please report it, without any journal content",
      exitCode: .internalError)
  }

  public static func validation(_ error: FieldError) -> Diagnosis {
    switch error {
    case .missingFields(let fields):
      return Diagnosis(
        message: "missing " + fields.map(\.label).joined(separator: ", "),
        hint: "give " + fields.map(\.flag).joined(separator: " and "), exitCode: .usage)
    case .moodNotANumber(let field):
      return Diagnosis(
        message: "\(field.label) is a whole number from 1 to 10", exitCode: .usage)
    case .moodOutOfRange(let field, let value):
      return Diagnosis(
        message: "\(field.label) \(value) is outside 1 to 10",
        hint: "1 is the lowest, 10 the highest", exitCode: .usage)
    case .unreadableDate:
      return Diagnosis(
        message: "the date could not be read",
        hint: #"use "now", "yesterday 20:00", "18:30" or "2026-11-21 18:30""#, exitCode: .usage)
    case .dateTooFarAhead:
      return Diagnosis(
        message: "the date is more than 60 days ahead",
        hint: "a session can be planned at most 60 days from now", exitCode: .usage)
    case .dateTooFarBack:
      return Diagnosis(
        message: "the date is before 1900",
        hint: "a session's date is from 1 January 1900 on; check the year", exitCode: .usage)
    case .emptyIntention:
      return Diagnosis(
        message: "the intention is empty", hint: "a few words are enough", exitCode: .usage)
    case .unknownTreatment(let suggestion):
      // The suggestion is one of journal's own keys; what was typed is never repeated.
      return Diagnosis(
        message: "unknown treatment" + (suggestion.map { #"; did you mean "\#($0)"?"# } ?? ""),
        hint: "choose one of " + Treatment.known.map(\.key).joined(separator: ", ")
          + #", or "other:<name>""#,
        exitCode: .usage)
    case .emptyCustomTreatment:
      return Diagnosis(
        message: #"the treatment "other" needs a name"#, hint: #"write "other:<name>""#,
        exitCode: .usage)
    case .customTreatmentTooLong(let maximum):
      return Diagnosis(
        message: "the treatment name is longer than \(maximum) characters", exitCode: .usage)
    case .textTooLong(let field, let maximum):
      return Diagnosis(
        message: "the \(field.label) is longer than \(byteSize(maximum))", exitCode: .usage)
    case .controlCharacters(let field):
      return Diagnosis(
        message: "the \(field.label) contains control characters",
        hint: "only letters, spaces, tabs and newlines are kept", exitCode: .usage)
    case .emptyTag:
      return Diagnosis(
        message: "a tag is empty", hint: "give it a name: --tag grief", exitCode: .usage)
    case .tagTooLong(let maximum):
      return Diagnosis(
        message: "a tag is longer than \(byteSize(maximum))", hint: "a word or two is enough",
        exitCode: .usage)
    case .tagCharacters:
      return Diagnosis(
        message: "a tag contains a comma or control characters",
        hint: "give each tag its own --tag", exitCode: .usage)
    case .tooManyTags(let maximum):
      return Diagnosis(
        message: "a session holds at most \(maximum) tags",
        hint: "remove one with --untag first", exitCode: .usage)
    case .emptyNote:
      return Diagnosis(
        message: "the note is empty", hint: "a few words are enough", exitCode: .usage)
    case .noteTooLong(let maximum):
      return Diagnosis(
        message: "the note is longer than \(byteSize(maximum))",
        hint: "split it into two notes", exitCode: .usage)
    case .noteControlCharacters:
      return Diagnosis(
        message: "the note contains control characters",
        hint: "only letters, spaces, tabs and newlines are kept", exitCode: .usage)
    case .noteMood:
      return Diagnosis(
        message: "a note's mood is a whole number from 1 to 10",
        hint: "1 is the lowest, 10 the highest", exitCode: .usage)
    }
  }

  static func note(_ error: NoteError, id: String?) -> Diagnosis {
    let session = id.map { #"session "\#($0)""# } ?? "the session"
    switch error {
    case .noSuchNote(let number, let count):
      return Diagnosis(
        message: count == 0
          ? "\(session) has no notes" : "\(session) has no note \(number)",
        hint: count == 0
          ? id.map { #"add one with "journal note \#($0) TEXT""# }
          : "its notes are numbered 1 to \(count), oldest first, as \"journal show\" lists them",
        exitCode: .notFound)
    case .tooManyNotes:
      return Diagnosis(
        message: "\(session) holds as many notes as it may (\(Note.maximumCount))",
        hint: "delete one it no longer needs", exitCode: .notAllowed)
    case .nothingToRestore:
      return Diagnosis(
        message: "no deleted note of \(session) can be restored",
        hint: "a deleted note comes back only within its undo window", exitCode: .notFound)
    case .notesTooLong(let maximum):
      return Diagnosis(
        message: "the notes of \(session) hold as much text as they may (\(byteSize(maximum)))",
        hint: "shorten or delete one it no longer needs", exitCode: .notAllowed)
    case .changedMeanwhile(let number):
      return Diagnosis(
        message: "note \(number) of \(session) changed meanwhile; nothing was done",
        hint: id.map { #"run "journal show \#($0)" to see its notes as they are now"# },
        exitCode: .notAllowed)
    }
  }

  static func lifecycle(_ error: LifecycleError, id: String?) -> Diagnosis {
    let session = id.map { #"session "\#($0)""# } ?? "the session"
    switch error {
    case .notSavedYet:
      return Diagnosis(
        message: "\(session) is not saved yet",
        hint: "the later fields open once the session is saved", exitCode: .notAllowed)
    case .alreadySaved:
      return Diagnosis(message: "\(session) is already saved", exitCode: .notAllowed)
    case .alreadyComplete:
      return Diagnosis(
        message: "\(session) is already complete",
        hint: id.map {
          #"run "journal show \#($0)" to read it, or "journal edit \#($0)" to change it"#
        },
        exitCode: .notAllowed)
    case .alreadyClosed:
      return Diagnosis(
        message: "\(session) is already closed without a reflection",
        hint: id.map {
          #""journal reflect \#($0)" still adds one; "journal reopen \#($0)" makes it wait again"#
        },
        exitCode: .notAllowed)
    case .noConflict(let field):
      return Diagnosis(
        message: "\(session) has no conflict in its \(field.label)",
        hint: id.map { #"run "journal show \#($0)" to see which fields have one"# },
        exitCode: .notFound)
    case .notClosed:
      return Diagnosis(
        message: "\(session) is not closed",
        hint: "only a session closed without a reflection can be reopened", exitCode: .notAllowed)
    case .planned:
      return Diagnosis(
        message: "\(session) is planned: its date is still ahead",
        hint: id.map {
          #"reflections come once it has passed; if it happened already, "journal edit \#($0) --date …""#
        } ?? "a reflection comes once its date has passed; save the session without one",
        exitCode: .notAllowed)
    case .doneCannotBeAhead:
      return Diagnosis(
        message: "\(session) is reflected on or closed, so its date cannot be ahead",
        hint: "check the date; only a session still to come is dated ahead (planned)",
        exitCode: .notAllowed)
    }
  }

  static func syncTamper(_ what: SyncTamper) -> String {
    switch what {
    case .rolledBack(let seen, let shown):
      "it shows \(shown) changes where this device has read \(seen)"
    case .forked(let seq): "change \(seq) is not the one this device read"
    case .brokenChain(let seq): "change \(seq) is missing or does not authenticate"
    case .changedRow(let id): "session \(id) is not as its change wrote it"
    case .droppedChange(let id): "the change to session \(id) is missing"
    case .changedHeader: "the key header was changed"
    }
  }

  static func sync(_ error: SyncError) -> Diagnosis {
    let again = #"nothing here was lost; run "journal sync" again"#
    switch error {
    case .clientLibraryMissing:
      return Diagnosis(
        message: "the PostgreSQL client library (libpq5) is not installed",
        hint: "install it (sudo apt-get install libpq5); everything else works without it",
        exitCode: .syncUnavailable)
    case .connection(let problem):
      return syncConnection(problem)
    case .cut(let said):
      return Diagnosis(
        message: "the connection to the sync server was cut; libpq said \(said.quoted)",
        hint: again, exitCode: .syncUnavailable)
    case .waited(let wait, let milliseconds):
      return syncWaited(wait, seconds: seconds(milliseconds))
    case .statement("42501", let said):
      // insufficient_privilege: the role may not make or use journal's tables.
      return Diagnosis(
        message: "the sync server refused this role (42501); it said \(said.quoted)",
        hint: #"whoever runs the server can make the tables: "journal sync setup --print-schema""#,
        exitCode: .syncUnavailable)
    case .statement("42P01", _), .statement("42883", _):
      // undefined_table, undefined_function: the tables, or part of them, were dropped.
      return Diagnosis(
        message: "the sync server no longer has journal's tables for this database",
        hint: #"this journal is whole here; once the server has them again ("journal sync "#
          + #"setup --print-schema"), run "journal sync leave", then "journal sync setup URL""#,
        exitCode: .syncUnavailable)
    case .statement(let state, let said):
      return Diagnosis(
        message: "the sync server refused a statement (\(state)); it said \(said.quoted)",
        hint: again + "; if it keeps refusing, whoever runs the server can read its log",
        exitCode: .syncUnavailable)
    case .badAddress(.unreadable):
      return Diagnosis(
        message: "the server address could not be read",
        hint: #"give a URL (postgres://me@host/journal) or "service=name""#, exitCode: .usage)
    case .badAddress(.password):
      return Diagnosis(
        message: "the server address holds a password; journal never keeps one",
        hint: "put it in ~/.pgpass (chmod 600) or a file named by PGPASSFILE", exitCode: .usage)
    case .badAddress(.weakTLS(let mode)):
      return Diagnosis(
        message: "sslmode=\(mode) is not enough for a server on another computer",
        hint: "use sslmode=verify-full (TLS with the certificate checked), or leave it out",
        exitCode: .usage)
    case .notSetUp:
      return Diagnosis(
        message: "this journal does not sync yet",
        hint: #"run "journal sync setup URL" here, or "journal sync join URL" on a new device"#,
        exitCode: .notAllowed)
    case .serverHasOther:
      return Diagnosis(
        message: "the server already holds another journal for this role",
        hint: #"join it with "journal sync join URL" on a new device, or use another role"#,
        exitCode: .notAllowed)
    case .serverEmpty(let role):
      return Diagnosis(
        message: "the server holds no journal for role \(ServerText(role).quoted)",
        hint: #"run "journal sync setup URL" on the device that has the journal first, or "#
          + "check the role in the address",
        exitCode: .notAllowed)
    case .journalNotOnServer(let role, let read):
      return Diagnosis(
        message: "the server holds no copy of this journal for role "
          + "\(ServerText(role).quoted); this device has read \(counted(Int(read), "change")) of it",
        hint: "if the address or PGUSER names another role than before, use the one this "
          + #"journal syncs with; if the server lost it, "journal sync leave", then "journal "#
          + #"sync setup URL" sends it again; nothing here was lost"#,
        exitCode: .syncUnavailable)
    case .serverSeveral(let count):
      return Diagnosis(
        message: "the server holds \(count) journals for this role",
        hint: "give each journal a role of its own on the server", exitCode: .notAllowed)
    case .serverNewer(let found, let supported):
      return Diagnosis(
        message: "the server's journal schema is version \(found); this journal reads \(supported)",
        hint: "update journal on this device", exitCode: .newerFormat)
    case .newerData(let found, let supported):
      return Diagnosis(
        message: "another device syncs in format \(found); this journal reads up to \(supported)",
        hint: "update journal on this device; nothing here was changed", exitCode: .newerFormat)
    case .tampered(let what):
      return Diagnosis(
        message: "the sync server's copy is not as your devices left it: "
          + Self.syncTamper(what) + "; nothing it altered was applied",
        hint:
          #"run "journal sync leave", then "journal sync setup URL" with a server you trust"#,
        exitCode: .tampered)
    case .damagedRow(let id):
      return Diagnosis(
        message: "session \(id) on the sync server opens with this journal's key but cannot be "
          + "read: one of your devices sent it damaged; nothing of it was applied",
        hint: #"update journal on each device, then run "journal sync" again; the other "#
          + "sessions are unaffected",
        exitCode: .damaged)
    case .keyChanged(let seq):
      return Diagnosis(
        message: "the journal's key was changed on another device (change \(seq)); this "
          + "device needs the new passphrase to follow it",
        hint: #"run "journal sync" at a terminal (or with JOURNAL_NEW_PASSPHRASE_FILE) and "#
          + "give the new passphrase; nothing here was changed or lost",
        exitCode: .passphraseUnavailable)
    case .keptMoving:
      return Diagnosis(
        message: "other devices kept syncing at the same time",
        hint: #"nothing was lost; run "journal sync" again"#, exitCode: .syncUnavailable)
    case .lockStuck(let pid, let seconds):
      return Diagnosis(
        message: "another journal sync on this device (process \(pid)) has made no progress "
          + "for \(counted(max(seconds, 1), "second"))",
        hint: "it may be stopped (Ctrl-Z in another terminal?): resume or end it, then run "
          + #""journal sync" again; nothing here was lost"#,
        exitCode: .syncUnavailable)
    }
  }

  /// A connection the server or the network did not let happen.
  static func syncConnection(_ problem: SyncError.ConnectionProblem) -> Diagnosis {
    let lost = "nothing here was lost"
    switch problem {
    case .unreachable(let said):
      return Diagnosis(
        message: "the sync server could not be reached; libpq said \(said.quoted)",
        hint: #"\#(lost); check the address and the network, then run "journal sync" again"#,
        exitCode: .syncUnavailable)
    case .noPassword(let role):
      return Diagnosis(
        message: "the sync server asks for a password, and ~/.pgpass has none for role "
          + ServerText(role).quoted + " there",
        hint: "add the line host:port:database:role:password to ~/.pgpass (chmod 600), "
          + "or name a file with PGPASSFILE",
        exitCode: .syncUnavailable)
    case .passwordRefused(let role):
      return Diagnosis(
        message: "the sync server refused the password for role \(ServerText(role).quoted)",
        hint: "\(lost); correct that role's line in ~/.pgpass (or the file PGPASSFILE names)",
        exitCode: .syncUnavailable)
    case .roleRefused(let role, let said):
      return Diagnosis(
        message: "the sync server does not let role \(ServerText(role).quoted) in; "
          + "it said \(said.quoted)",
        hint: "\(lost); check the role in the address, or ask whoever runs the server",
        exitCode: .syncUnavailable)
    case .noDatabase(let name):
      return Diagnosis(
        message: "the sync server has no database \(ServerText(name).quoted)",
        hint: "\(lost); check the database in the address", exitCode: .syncUnavailable)
    case .refused(let state, let said):
      return Diagnosis(
        message: "the sync server refused the connection (\(state)); it said \(said.quoted)",
        hint: #"\#(lost); run "journal sync" again later"#, exitCode: .syncUnavailable)
    }
  }

  /// A wait of a sync that reached its bound: what it waited for.
  static func syncWaited(_ wait: SyncError.SyncWait, seconds: String) -> Diagnosis {
    let again = #"nothing here was lost; run "journal sync" again"#
    switch wait {
    case .connecting:
      return Diagnosis(
        message: "waited \(seconds) for the sync server to take the connection",
        hint: "nothing here was lost; check the address and the network, then try again",
        exitCode: .syncUnavailable)
    case .answer:
      return Diagnosis(
        message: "waited \(seconds) for the sync server to answer; it took the connection, "
          + "then went silent",
        hint: again + " once the server answers", exitCode: .syncUnavailable)
    case .lock:
      return Diagnosis(
        message: "waited \(seconds) for another device's sync to let go of the journal on "
          + "the server",
        hint: again + #"; a device that went away mid-sync is let go by the server (see "#
          + #""Hosting a sync server" in the guide)"#,
        exitCode: .syncUnavailable)
    case .statement:
      return Diagnosis(
        message: "waited \(seconds) for the sync server to finish a statement",
        hint: again + "; if it keeps happening, the server is overloaded",
        exitCode: .syncUnavailable)
    case .quietHere:
      return Diagnosis(
        message: "the sync server ended this sync after this device was silent for "
          + "\(seconds) in the middle of it (was it asleep?)",
        hint: again, exitCode: .syncUnavailable)
    }
  }

  /// Milliseconds as a person reads a wait: "15 s", "1.5 s".
  static func seconds(_ milliseconds: Int) -> String {
    milliseconds % 1000 == 0
      ? "\(milliseconds / 1000) s" : "\(milliseconds / 1000).\(milliseconds % 1000 / 100) s"
  }

  static func crypto(_ error: CryptoError) -> Diagnosis {
    switch error {
    case .sodiumUnavailable:
      return Diagnosis(
        message: "libsodium could not start", hint: "check that libsodium is installed",
        exitCode: .internalError)
    case .secureMemoryUnavailable:
      return Diagnosis(
        message: "locked memory for keys could not be allocated",
        hint: #"raise the locked-memory limit ("ulimit -l")"#, exitCode: .ioError)
    case .keyDerivationFailed:
      return Diagnosis(
        message: "the key could not be derived from the passphrase",
        hint: "the key derivation needs up to 1 GiB of free memory", exitCode: .ioError)
    case .kdfLimitsOutOfRange(let ops, let mem):
      return Diagnosis(
        message: "the vault asks for key-derivation limits outside the accepted range "
          + "(\(ops) passes, \(mem / 1024) KiB)",
        hint: "the vault header is damaged or was tampered with; restore it from a backup",
        exitCode: .damaged)
    case .wrongPassphrase:
      return Diagnosis(
        message: "the passphrase does not open this vault",
        hint: "check the passphrase and try again; if it is right, the vault's header was "
          + "damaged or changed (restore it from a backup); nothing was changed",
        exitCode: .wrongPassphrase)
    case .wrongRecoveryCode:
      return Diagnosis(
        message: "the recovery code does not open this journal",
        hint: "check the code (a newer code replaces an older one); nothing was changed",
        exitCode: .wrongPassphrase)
    case .vaultMismatch:
      return Diagnosis(
        message: "the vault's key belongs to another vault",
        hint: "the vault header was tampered with; restore it from a backup", exitCode: .damaged)
    case .integrity, .malformedPlaintext:
      return Diagnosis(
        message: "a record did not pass its integrity check",
        hint: "the vault is damaged or was tampered with", exitCode: .damaged)
    }
  }

  static let acceptHint =
    #"nothing was changed; if this is a copy you restored on purpose, "journal verify --accept" trusts it as it is"#

  /// What the ledger found, in one calm line each; never content, short ids only.
  static func tampered(_ tampering: Tampering) -> Diagnosis {
    let hint = acceptHint
    switch tampering {
    case .rows:
      return Diagnosis(
        message:
          "this journal is not as journal last left it: a session was removed or put back, "
          + "an older copy of one was restored, or the trash, the sync state or the ledger "
          + "was changed in the file",
        hint: hint, exitCode: .tampered)
    case .ledger:
      return Diagnosis(
        message:
          "this journal's ledger is missing or damaged, so removed sessions cannot be ruled out",
        hint: hint, exitCode: .tampered)
    case .inconsistent(let ids):
      return Diagnosis(
        message: "the trash, purge or reminder rows of "
          + (ids.count == 1 ? #"session "\#(ids[0])""# : "sessions " + ids.joined(separator: ", "))
          + " do not fit the sessions: they were changed outside journal",
        hint: hint, exitCode: .tampered)
    case .sessions(let missing, let added, let changed):
      func named(_ ids: [String], one: String, many: String) -> String? {
        guard !ids.isEmpty else { return nil }
        let shown = ids.prefix(5).map { #""\#($0)""# }
        let more = ids.count > 5 ? ["\(ids.count - 5) more"] : []
        return (ids.count == 1 ? "session " : "sessions ") + Prose.list(shown + more) + " "
          + (ids.count == 1 ? one : many)
      }
      let parts = [
        named(missing, one: "is missing", many: "are missing"),
        named(changed, one: "holds another version", many: "hold other versions"),
        named(added, one: "was not there", many: "were not there"),
      ].compactMap { $0 }
      return Diagnosis(
        message: "this journal is not as this computer last saw it: " + Prose.list(parts),
        hint: hint, exitCode: .tampered)
    case .malformedRows(let shown):
      let named =
        shown.prefix(5).map { #""\#($0)""# } + (shown.count > 5 ? ["\(shown.count - 5) more"] : [])
      return Diagnosis(
        message: "the rows of " + Prose.list(named)
          + " hold values journal never writes (an id, a revision, a status or a time changed "
          + "in the file): those rows are damaged",
        hint: hint, exitCode: .tampered)
    case .settings:
      return Diagnosis(
        message:
          "this journal's settings were changed in the file, not by journal: writing without "
          + "the passphrase was turned on or off, or the recovery code was replaced",
        hint: hint, exitCode: .tampered)
    case .olderVersion(let id):
      return Diagnosis(
        message:
          #"session "\#(id)" holds an older version of itself, put back from an earlier copy"#,
        hint: hint, exitCode: .tampered)
    }
  }

  static func store(_ error: StoreError) -> Diagnosis {
    switch error {
    case .vaultMissing(let path):
      return Diagnosis(
        message: #"no journal at "\#(path)""#,
        hint: #"run "journal init" to create one, or point --vault at yours"#, exitCode: .noVault)
    case .vaultExists(let path):
      return Diagnosis(
        message: #"a journal already exists at "\#(path)""#,
        hint: "nothing was changed; use --vault to create another elsewhere",
        exitCode: .notAllowed)
    case .notAVault(let path):
      return Diagnosis(
        message: #""\#(path)" is not a journal vault, or its header is damaged"#,
        hint: "check --vault; restore the vault from a backup if it is damaged",
        exitCode: .damaged)
    case .damagedFile(let path):
      return Diagnosis(
        message: #"part of the vault "\#(path)" is damaged: a page of the file does not read"#,
        hint: "nothing was half-saved; restore the vault from a backup", exitCode: .damaged)
    case .damagedCopy(let path, let report):
      return Diagnosis(
        message:
          #"the copy "\#(path)" was written, but it is damaged (SQLite: \#(Quoted.data(report)))"#,
        hint:
          #"keep both files; "journal verify" checks the journal, "journal verify --vault FILE" the copy"#,
        exitCode: .damaged)
    case .damagedStructure(let path):
      return Diagnosis(
        message: #"the structure of the vault "\#(path)" was changed outside journal: a table, "#
          + "index or trigger is missing, or its format number was changed",
        hint: "nothing was changed; restore the vault from a backup", exitCode: .damaged)
    case .newerFormat(let found, let supported):
      return Diagnosis(
        message: "the vault has format \(found); this journal reads up to \(supported)",
        hint: "update journal to open it", exitCode: .newerFormat)
    case .damagedRecord(let id):
      return Diagnosis(
        message: #"session "\#(id)" is damaged and cannot be read"#,
        hint: "the other sessions are unaffected", exitCode: .damaged)
    case .importedNotesOverflow(let id):
      return Diagnosis(
        message:
          #"nothing was imported: session "\#(id)" would hold more than \#(Note.maximumCount) "#
          + "notes, or more than \(byteSize(Note.maximumTotalBytes)) of them, with those it has",
        hint: #"delete notes of it you no longer need ("journal note \#(id) --delete N"), "#
          + "then import again; the vault is unchanged",
        exitCode: .usage)
    case .damagedReminder(let id):
      return Diagnosis(
        message: #"the reminder of session "\#(id)" is damaged and cannot be used"#,
        hint: #"run "journal remind \#(id) --cancel", then set it again"#, exitCode: .damaged)
    case .noMatch(let prefix):
      return Diagnosis(
        message: #"no session has an id starting with "\#(prefix)""#,
        hint: #"run "journal list" to see the ids"#, exitCode: .notFound)
    case .ambiguous(let prefix, let candidates):
      return Diagnosis(
        message: #"the id "\#(prefix)" matches several sessions: "#
          + candidates.joined(separator: ", "),
        hint: "type a few more characters of the id", exitCode: .notFound)
    case .io(let path, let code):
      return Diagnosis(
        message: #"cannot use "\#(path)": \#(String(cString: strerror(code)))"#,
        exitCode: .ioError)
    case .database(let code, let message):
      return Diagnosis(
        message: "the vault could not be written or read (SQLite \(code): \(Quoted.data(message)))",
        hint: "nothing was half-saved; check the disk and try again", exitCode: .ioError)
    case .tampered(let tampering):
      return tampered(tampering)
    case .syncAlreadySetUp:
      return Diagnosis(
        message: "this journal syncs already",
        hint: #"run "journal sync" to sync it, "journal sync status" to see with what"#,
        exitCode: .notAllowed)
    case .keyChanged:
      return Diagnosis(
        message: "the journal's key was changed by another journal meanwhile",
        hint: "nothing was changed here; run the command again (with the current passphrase)",
        exitCode: .notAllowed)
    case .diskFull(let path):
      return Diagnosis(
        message: #"the disk holding "\#(path)" is full"#,
        hint: "free some space and try again; nothing was half-saved", exitCode: .ioError)
    case .readOnly(let path, .fileSystem):
      return Diagnosis(
        message: #"the vault "\#(path)" is on a read-only file system"#,
        hint: "list, show and export still work; remount it read-write to change it",
        exitCode: .ioError)
    case .readOnly(let path, .file):
      return Diagnosis(
        message: #"the vault "\#(path)" is read-only (no write permission)"#,
        hint: #"list, show and export still work; "chmod 600 \#(path)" to change it"#,
        exitCode: .ioError)
    case .readOnly(let path, .directory(let directory)):
      return Diagnosis(
        message: #"the vault's directory "\#(directory)" cannot be written"#,
        hint: #"list, show and export still work; "chmod 700 \#(directory)" to change \#(path)"#,
        exitCode: .ioError)
    case .busy:
      return Diagnosis(
        message: "the vault is busy in another journal process",
        hint: "try again in a moment", exitCode: .ioError)
    }
  }

  static func system(_ error: SystemError) -> Diagnosis {
    switch error {
    case .missing(let path):
      return Diagnosis(
        message: #"the directory "\#(path)" does not exist"#,
        hint: "create it, or point journal at another place", exitCode: .ioError)
    case .exists(let path):
      return Diagnosis(
        message: #""\#(path)" already exists"#,
        hint: "journal never replaces a file it did not make; move it away first",
        exitCode: .notAllowed)
    case .unsafePermissions(let path, let mode, let expected):
      return Diagnosis(
        message: #""\#(path)" is open to other users (mode \#(octal(mode)))"#,
        hint: #"run "chmod \#(octal(expected)) \#(path)" and try again"#, exitCode: .unsafeFiles)
    case .wrongOwner(let path):
      return Diagnosis(
        message: #""\#(path)" belongs to another user"#,
        hint: "keep your journal in a directory of your own", exitCode: .unsafeFiles)
    case .symlink(let path):
      return Diagnosis(
        message: #""\#(path)" is a symbolic link, which journal does not follow"#,
        hint: "give the real path (--vault for the journal), or remove the link if it is not yours",
        exitCode: .unsafeFiles)
    case .notARegularFile(let path):
      return Diagnosis(
        message: #""\#(path)" is not a regular file or directory"#, exitCode: .unsafeFiles)
    case .io(let path, let code):
      return Diagnosis(
        message: #"cannot use "\#(path)": \#(String(cString: strerror(code)))"#,
        exitCode: .ioError)
    case .standardOutput(let code):
      return Diagnosis(
        message: "standard output could not be written: \(String(cString: strerror(code)))",
        hint: "check free space where the output goes; nothing in the journal was changed",
        exitCode: .ioError)
    case .noPrivateMemoryDirectory:
      return Diagnosis(
        message: "there is no private in-memory directory for the editor's buffer",
        hint: "set XDG_RUNTIME_DIR to a private tmpfs, or type the text here without --editor",
        exitCode: .unsafeFiles)
    }
  }

  static func terminal(_ error: TerminalError) -> Diagnosis {
    switch error {
    case .stopped:
      return Diagnosis(message: "stopped; nothing further was changed", exitCode: .cancelled)
    case .secretTooLong(let maximum):
      return Diagnosis(
        message: "the passphrase is longer than \(maximum) bytes",
        hint: "type the passphrase alone, or give it in a file", exitCode: .passphraseUnavailable)
    }
  }

  static func agent(_ error: AgentError) -> Diagnosis {
    switch error {
    case .socket(let path, let code):
      return Diagnosis(
        message:
          #"the unlock agent cannot use its socket "\#(path)": \#(String(cString: strerror(code)))"#,
        hint: "the journal stays locked; the passphrase still opens it", exitCode: .ioError)
    case .socketPathTooLong(let path):
      return Diagnosis(
        message: #"the unlock agent's socket path "\#(path)" is too long"#,
        hint: "set XDG_RUNTIME_DIR to a shorter private directory", exitCode: .ioError)
    case .notStarted:
      return Diagnosis(
        message: "the unlock agent did not start",
        hint: "the journal stays locked; the passphrase still opens it", exitCode: .ioError)
    case .stillRunning:
      return Diagnosis(
        message: "another unlock agent of this vault did not stop when asked",
        hint: #"run "journal lock", then "journal unlock" again"#, exitCode: .ioError)
    case .notAnswering(let count, let processes):
      let one = count == 1
      let named = processes.map(String.init)
      let others = count - named.count
      // Those the kernel named by their process, and how many it did not.
      var which =
        named.isEmpty
        ? "" : "process\(named.count == 1 ? "" : "es") " + named.joined(separator: ", ")
      if !named.isEmpty && others > 0 { which += " and \(others) other\(others == 1 ? "" : "s")" }
      let shown = which.isEmpty ? "" : " (\(which))"
      let hint =
        named.isEmpty
        ? #"end \#(one ? "its" : "their") "journal agent-serve" process\#(one ? "" : "es")"#
        : #"end \#(named.count == 1 ? "it" : "them") with "kill -KILL \#(named.joined(separator: " "))""#
          + (others > 0
            ? #", and the other "journal agent-serve" process\#(others == 1 ? "" : "es")"# : "")
      return Diagnosis(
        message: one
          ? "an unlock agent\(shown) does not answer and may still hold its key"
          : "\(count) unlock agents\(shown) do not answer and may still hold their keys",
        hint: hint, exitCode: .ioError)
    }
  }

  static func draft(_ error: DraftError) -> Diagnosis {
    switch error {
    case .inUse(let id):
      return Diagnosis(
        message: #"draft "\#(id)" is open in another journal"#,
        hint: "finish or close it there first", exitCode: .notAllowed)
    case .noMatch(let prefix):
      return Diagnosis(
        message: #"no draft has an id starting with "\#(prefix)""#,
        hint: #"run "journal drafts" to see them"#, exitCode: .notFound)
    case .ambiguous(let prefix):
      return Diagnosis(
        message: #"the id "\#(prefix)" matches several drafts"#,
        hint: "type a few more characters of the id", exitCode: .notFound)
    case .needsKey(let id):
      return Diagnosis(
        message: #"draft "\#(id)" opens only with the passphrase"#,
        hint: #"run "journal unlock" first, then the command again; the draft is kept"#,
        exitCode: .passphraseUnavailable)
    case .damaged(let id):
      return Diagnosis(
        message: #"draft "\#(id)" is damaged and cannot be read"#,
        hint: #"run "journal drafts discard \#(id)" to remove it; the journal is unaffected"#,
        exitCode: .damaged)
    case .io(let path, let code):
      return Diagnosis(
        message: #"cannot write the draft "\#(path)": \#(String(cString: strerror(code)))"#,
        exitCode: .ioError)
    }
  }

  static func app(_ error: AppError) -> Diagnosis {
    switch error {
    case .noPassphraseSource:
      return Diagnosis(
        message: "a passphrase is needed and there is no terminal to ask for it",
        hint: "set JOURNAL_PASSPHRASE_FILE or JOURNAL_PASSPHRASE_COMMAND, or use --passphrase-file",
        exitCode: .passphraseUnavailable)
    case .passphraseFileUnreadable(let path, let code):
      return Diagnosis(
        message:
          #"the file "\#(path)" cannot be read: \#(String(cString: strerror(code)))"#,
        hint: "check the path; nothing was changed", exitCode: .passphraseUnavailable)
    case .passphraseFileNotRegular(let path):
      return Diagnosis(
        message: #"the passphrase file "\#(path)" is not a regular file"#,
        hint: "give a file holding the passphrase; for a pipe, use --passphrase-fd",
        exitCode: .passphraseUnavailable)
    case .passphraseCommandTimedOut(let seconds):
      return Diagnosis(
        message: "the passphrase command printed no passphrase within \(seconds) s",
        hint: "check JOURNAL_PASSPHRASE_COMMAND; it was stopped and nothing was changed",
        exitCode: .passphraseUnavailable)
    case .passphraseNotUTF8:
      return Diagnosis(
        message: "the new passphrase is not valid UTF-8 text",
        hint: "choose one of letters, digits, spaces and punctuation; nothing was changed",
        exitCode: .usage)
    case .emptyRecoveryCode:
      return Diagnosis(
        message: "the recovery code's file has an empty first line",
        hint: "write the code on the file's first line", exitCode: .passphraseUnavailable)
    case .passphraseFileUnsafe(let path, let mode):
      return Diagnosis(
        message: #"the file "\#(path)" is readable by others (mode \#(octal(mode)))"#,
        hint: #"run "chmod 600 \#(path)""#, exitCode: .unsafeFiles)
    case .passphraseDescriptorUnreadable(let fd):
      return Diagnosis(
        message: "file descriptor \(fd) cannot be read for the passphrase",
        exitCode: .passphraseUnavailable)
    case .passphraseCommandFailed(let status):
      return Diagnosis(
        message: "the passphrase command ended with exit status \(status)",
        hint: "check JOURNAL_PASSPHRASE_COMMAND", exitCode: .passphraseUnavailable)
    case .emptyPassphrase:
      return Diagnosis(message: "the passphrase is empty", exitCode: .passphraseUnavailable)
    case .passphraseTooLong(let maximum):
      return Diagnosis(
        message: "the passphrase is longer than \(maximum) bytes",
        hint: "check that the passphrase file holds only the passphrase",
        exitCode: .passphraseUnavailable)
    case .passphraseTooShort(let minimum):
      return Diagnosis(
        message: "the passphrase chosen is shorter than \(minimum) characters",
        hint: "a few unrelated words make a strong passphrase that is easy to remember",
        exitCode: .usage)
    case .passphraseMismatch:
      return Diagnosis(
        message: "the two passphrases differ", hint: "nothing was changed; try again",
        exitCode: .usage)
    case .noNewPassphraseSource:
      return Diagnosis(
        message: "a new passphrase is needed and there is no terminal to ask for it",
        hint: "use --new-passphrase-file or JOURNAL_NEW_PASSPHRASE_FILE",
        exitCode: .passphraseUnavailable)
    case .missingFlags(let flags):
      return Diagnosis(
        message: "missing " + flags.joined(separator: ", "),
        hint: "without a terminal, every required field needs its flag", exitCode: .usage)
    case .nothingToChange:
      return Diagnosis(
        message: "nothing to change",
        hint: #"give a field flag, such as --dose "2 g", or run in a terminal"#, exitCode: .usage)
    case .editorNeedsTerminal:
      return Diagnosis(
        message: "the editor needs a terminal; nothing was changed",
        hint: "run it in a terminal, or give the text without --editor",
        exitCode: .usage)
    case .stdinUsedTwice:
      return Diagnosis(
        message: #"only one field can read standard input ("-")"#, exitCode: .usage)
    case .stdinUnreadable:
      return Diagnosis(
        message: "standard input could not be read as UTF-8 text", exitCode: .usage)
    case .noHome:
      return Diagnosis(
        message: "HOME is not set, so there is no default journal location",
        hint: "set HOME, or use --vault", exitCode: .usage)
    case .lifecycle(let inner, let id):
      return lifecycle(inner, id: id)
    case .note(let inner, let id):
      return note(inner, id: id)
    case .olderThanSeen(let seen, let found):
      return Diagnosis(
        message:
          "this journal is older than the one this computer last saw (change \(found), "
          + "where this computer saw change \(seen)): it may have been restored from a backup "
          + "or rolled back",
        hint: Self.acceptHint, exitCode: .tampered)
    case .otherThanSeen(let generation):
      return Diagnosis(
        message:
          "this journal is not the one this computer last saw at change \(generation): "
          + "another copy of it took its place",
        hint: Self.acceptHint, exitCode: .tampered)
    case .witnessDamaged(let path):
      return Diagnosis(
        message: #"this computer's record of the journal, "\#(path)", is damaged"#,
        hint: Self.acceptHint, exitCode: .tampered)
    case .laterFieldFilled(let field, let id):
      return Diagnosis(
        message:
          #"session "\#(id)" already has its \#(field.label); reflect only fills empty fields"#,
        hint: #"run "journal edit \#(id) \#(field.flag) …" to change it"#, exitCode: .notAllowed)
    case .importRefused(let place, let reason):
      return Diagnosis(
        message: "nothing was imported: \(place) \(reason)",
        hint: "fix the file and import it again; the vault is unchanged", exitCode: .usage)
    case .importVersion(let found, let supported):
      return Diagnosis(
        message:
          "nothing was imported: the file has export version \(found); this journal reads up to \(supported)",
        hint: "update journal to import it", exitCode: .newerFormat)
    case .importJrnlJournal:
      return Diagnosis(
        message: "nothing was imported: this is a jrnl journal file, not its export",
        hint: #"export it with "jrnl --export json > journal.json" and import that file"#,
        exitCode: .usage)
    case .sessionsDamaged(let ids):
      let named =
        ids.prefix(5).map { #""\#($0)""# } + (ids.count > 5 ? ["\(ids.count - 5) more"] : [])
      return Diagnosis(
        message: (ids.count == 1 ? "session " : "sessions ") + Prose.list(named)
          + (ids.count == 1 ? " is" : " are") + " damaged and cannot be read",
        hint: "the other sessions are unaffected; restore the damaged ones from a backup",
        exitCode: .damaged)
    case .fileStructureDamaged(let report):
      return Diagnosis(
        message: "the vault file's structure is damaged (SQLite: \(Quoted.data(report)))",
        hint: "restore the vault from a backup; \"journal export\" may still read what opens",
        exitCode: .damaged)
    case .declined(let what):
      return Diagnosis(message: what, exitCode: .cancelled)
    case .notificationNotShown:
      return Diagnosis(
        message: "the reminder's notification could not be shown",
        hint: "check JOURNAL_NOTIFY_COMMAND, or the desktop's notification service",
        exitCode: .ioError)
    case .remindersNotDelivered(let reason):
      return Diagnosis(message: reason, exitCode: .ioError)
    case .noTerminalProgram(let id):
      return Diagnosis(
        message: "there is no terminal program to open",
        hint: #"set TERMINAL, or run "journal reflect \#(id)""#, exitCode: .notFound)
    case .terminalProgramFailed(let id):
      return Diagnosis(
        message: "the terminal program did not start",
        hint: #"run "journal reflect \#(id)""#, exitCode: .ioError)
    case .savedNotShown(let id, let code):
      return Diagnosis(
        message: #"session "\#(id)" was saved, but standard output could not be written: "#
          + String(cString: strerror(code)),
        hint: #"run "journal show \#(id)" to see it"#, exitCode: .ioError)
    case .outputExists(let path):
      return Diagnosis(
        message: #""\#(path)" already exists"#,
        hint: "choose a new file name; journal does not overwrite files", exitCode: .notAllowed)
    case .outputUnwritable(let path, let code) where code == ENOENT || code == ENOTDIR:
      // The path given names no directory: a value to correct, not a failing disk.
      return Diagnosis(
        message: #"cannot write "\#(path)": its directory does not exist"#,
        hint: "make the directory first, or give a path in one that exists", exitCode: .usage)
    case .outputUnwritable(let path, let code):
      return Diagnosis(
        message: #"cannot write "\#(path)": \#(String(cString: strerror(code)))"#,
        hint: "nothing was left behind; check the directory and free space", exitCode: .ioError)
    case .plannedReminder:
      return Diagnosis(
        message: "a session dated ahead is planned, and gets no reminder before it happens",
        hint: #"leave out --remind; "journal remind ID --at …" can set one for after it"#,
        exitCode: .usage)
    case .nothingToUndo:
      return Diagnosis(
        message: "nothing to undo",
        hint:
          "a deletion can be undone only within its window (10 s unless JOURNAL_UNDO_WINDOW says otherwise)",
        exitCode: .notFound)
    case .confirmationNeeded(let what):
      return Diagnosis(
        message: "\(what) needs a confirmation and there is no terminal to ask",
        hint: "add --yes to go ahead without asking", exitCode: .usage)
    case .editorTextUnreadable:
      return Diagnosis(
        message: "the editor's text could not be read as UTF-8; it was not used",
        hint: "save the text as UTF-8 in the editor and try again", exitCode: .usage)
    case .editorCancelled(let status):
      return Diagnosis(
        message: "the editor was closed without saving (status \(status)); its text was not used",
        hint: "what you answered before it is kept; run the command again to go on",
        exitCode: .cancelled)
    case .searchWordsTooLong(let maximumBytes):
      return Diagnosis(
        message: "the words to search for are more than \(maximumBytes / 1024) KB",
        hint: "search for a few words or a phrase", exitCode: .usage)
    case .noSearchWords:
      return Diagnosis(
        message: "no words to search for",
        hint:
          #"give them after "journal search", or "journal search -" to read them from standard input"#,
        exitCode: .usage)
    case .emptyDateRange:
      return Diagnosis(
        message: "the dates after --since and --until make an empty range: --since is later",
        hint: "give the earlier date to --since and the later one to --until", exitCode: .usage)
    case .badLimit:
      return Diagnosis(
        message: "the count after -n (--limit) is below 1",
        hint: "give a whole number of 1 or more, such as -n 10 for the newest ten",
        exitCode: .usage)
    case .reminderInPast:
      return Diagnosis(
        message: "that time has already passed",
        hint: "choose a time ahead: --at with a later date, --in 3h, or --tomorrow",
        exitCode: .usage)
    case .editorNotFound(let name):
      return Diagnosis(
        message: #"the editor "\#(name)" was not found"#,
        hint: "set $VISUAL or $EDITOR to an installed editor, or unset both for \"editor\" or vi",
        exitCode: .usage)
    case .editorFailed(let status):
      return Diagnosis(
        message: "the editor ended with status \(status); its text was not used",
        hint: "check $VISUAL or $EDITOR", exitCode: .ioError)
    case .badSetting(let name, let expected):
      return Diagnosis(
        message: "\(name) cannot be read", hint: "set it to \(expected)", exitCode: .usage)
    case .configLine(let path, let line, let problem):
      return Diagnosis(
        message: #"line \#(line) of the settings file "\#(path)" cannot be used: \#(problem)"#,
        hint: "the settings are listed in \(Manual.pointer); fix or remove that line",
        exitCode: .usage)
    case .configUnreadable(let path, let code):
      return Diagnosis(
        message:
          #"the settings file "\#(path)" cannot be read: "#
          + (code == EINVAL ? "it is not a regular file" : String(cString: strerror(code))),
        hint: "make it a regular file you can read, or remove it", exitCode: .ioError)
    case .configUnsafe(let path):
      return Diagnosis(
        message: #"the settings file "\#(path)" could be changed by another user"#,
        hint:
          #"keep it a regular file of yours in a directory of yours, and run "chmod 600 \#(path)""#,
        exitCode: .unsafeFiles)
    case .internalError(let detail):
      return internalError(detail)
    case .recoveryCodeMistyped:
      return Diagnosis(
        message: "that is not a recovery code: a character is missing, extra or mistyped",
        hint: "a code is 32 letters and digits in 8 groups of 4; nothing was changed",
        exitCode: .usage)
    case .noRecoveryCodeSource:
      return Diagnosis(
        message: "no recovery code could be read: there is no terminal to ask at",
        hint: "give --recovery-code-file with the code on its first line (0600)",
        exitCode: .passphraseUnavailable)
    case .recoveryCodeReplaceNeedsYes:
      return Diagnosis(
        message: "this journal has a recovery code already, and there is no terminal to ask",
        hint: "add --yes to make a new one; the old code then stops working",
        exitCode: .usage)
    case .noRecoveryCode:
      return Diagnosis(
        message: "this journal has no recovery code",
        hint: #"it opens only with its passphrase; "journal recovery-code" makes one"#,
        exitCode: .notFound)
    case .ageMissing:
      return Diagnosis(
        message: "encrypting to a recipient needs age, which is not installed",
        hint: #"install Debian's age package ("apt-get install age"); nothing was written"#,
        exitCode: .notAllowed)
    case .ageRecipientRefused(let given, let flag):
      return Diagnosis(
        message: #"age did not accept the recipient "\#(given)" (\#(flag))"#,
        hint: flag == "--to"
          ? "give an age public key (age1…) or an SSH public key; nothing was written"
          : "give a file of age or SSH public keys, one a line; nothing was written",
        exitCode: .usage)
    case .ageFailed(let status):
      return Diagnosis(
        message: "age stopped while encrypting (exit status \(status))",
        hint: "run the command again; a file given with --output is removed", exitCode: .ioError)
    case .shareNeedsRecipients:
      return Diagnosis(
        message: "sharing needs someone to share with",
        hint:
          #"give --to with their age public key (age1…), or --to-file; "journal export" writes plaintext"#,
        exitCode: .usage)
    case .sealingKeyChanged:
      return Diagnosis(
        message:
          "the key this journal seals new writing to is not the one this computer knows",
        hint:
          #"nothing was written; run "journal unlock" to check the journal with its passphrase"#,
        exitCode: .tampered)
    case .syncJoinRefused(let cause):
      return Diagnosis(
        message: cause.message,
        hint: cause.exitCode == .tampered
          ? "nothing was kept on this device; a device that has the journal can send it to a "
            + #"server you trust ("journal sync leave", then "journal sync setup URL"), and "#
            + "this one join it there"
          : cause.hint.map { "nothing was kept on this device; " + $0 }
            ?? "nothing was kept on this device",
        exitCode: cause.exitCode)
    case .syncJoinUnfinished(let cause, let path):
      return Diagnosis(
        message: cause.message,
        hint: #"what arrived is kept in the journal made at "\#(path)"; run "journal sync" "#
          + "to fetch the rest",
        exitCode: cause.exitCode)
    case .syncAddressChanged:
      return Diagnosis(
        message: "the sync server's address in this journal's file was changed outside "
          + "journal; that server was not contacted",
        hint: #"nothing was changed; if you moved servers, run "journal sync leave", then "#
          + #""journal sync setup URL""#,
        exitCode: .tampered)
    case .keyChangeUnfinished(let cause):
      return Diagnosis(
        message: "the new key is begun but not finished: " + cause.message,
        hint: (cause.hint.map { $0 + "; then " } ?? "")
          + "run any command with the new passphrase to finish it",
        exitCode: cause.exitCode)
    case .syncNewKeyNotSent(let cause):
      return Diagnosis(
        message: "the key was not changed: " + cause.message,
        hint: (cause.hint.map { $0 + "; " } ?? "")
          + #"nothing changed here or on the server: run "journal passwd --new-key" again"#,
        exitCode: cause.exitCode)
    case .noConflicts(let id):
      return Diagnosis(
        message: #"session "\#(id)" has no conflicts to resolve"#,
        hint: #"run "journal show \#(id)" to read it"#, exitCode: .notFound)
    case .sealingUnavailable:
      return Diagnosis(
        message: "writing without the passphrase is not available for this journal",
        hint: #"it needs a journal that can be written; run "journal capture" to see its state"#,
        exitCode: .notAllowed)
    case .wrongPassphrases(let tries):
      return Diagnosis(
        message: "the passphrase does not open this vault (after \(tries) tries)",
        hint: "nothing was changed; run the command again to try once more",
        exitCode: .wrongPassphrase)
    case .notSavedDraftKept(let cause, let kept, let sealed):
      return Diagnosis(
        message: "the session was not saved: " + cause.message,
        hint: #"your answers are safe in the draft (\#(kept)); once that is fixed, "#
          + DraftWords.resume(sealed: sealed), exitCode: cause.exitCode)
    }
  }
}

/// An error journal can put into words: every module's error enum conforms, each through an
/// exhaustive `switch` (no `default:`), so a new case does not build until it has words and
/// an exit code. An error that is not `Diagnosable` is reported as a bug.
public protocol Diagnosable: Error {
  var diagnosis: Diagnosis { get }
}

extension FieldError: Diagnosable {
  public var diagnosis: Diagnosis { .validation(self) }
}

extension LifecycleError: Diagnosable {
  public var diagnosis: Diagnosis { .lifecycle(self, id: nil) }
}

extension NoteError: Diagnosable {
  public var diagnosis: Diagnosis { .note(self, id: nil) }
}

extension CryptoError: Diagnosable {
  public var diagnosis: Diagnosis { .crypto(self) }
}

extension StoreError: Diagnosable {
  public var diagnosis: Diagnosis { .store(self) }
}

extension SystemError: Diagnosable {
  public var diagnosis: Diagnosis { .system(self) }
}

extension TerminalError: Diagnosable {
  public var diagnosis: Diagnosis { .terminal(self) }
}

extension AgentError: Diagnosable {
  public var diagnosis: Diagnosis { .agent(self) }
}

extension DraftError: Diagnosable {
  public var diagnosis: Diagnosis { .draft(self) }
}

extension SyncError: Diagnosable {
  public var diagnosis: Diagnosis { .sync(self) }
}

extension AppError: Diagnosable {
  public var diagnosis: Diagnosis { .app(self) }
}

/// A size in the unit that fits: "250 bytes", "64 KiB", "1.5 MiB".
func byteSize(_ bytes: Int) -> String {
  func scaled(_ unit: Int, _ name: String) -> String {
    bytes % unit == 0
      ? "\(bytes / unit) \(name)"
      : String(format: "%.1f \(name)", Double(bytes) / Double(unit))
  }
  if bytes < 1024 { return counted(bytes, "byte") }
  return bytes < 1 << 20 ? scaled(1024, "KiB") : scaled(1 << 20, "MiB")
}

private func octal(_ mode: UInt32) -> String { String(mode, radix: 8).leftPadded(4) }

extension String {
  fileprivate func leftPadded(_ width: Int) -> String {
    count >= width ? self : String(repeating: "0", count: width - count) + self
  }
}
