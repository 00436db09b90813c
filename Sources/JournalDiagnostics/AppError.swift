import JournalCore

/// Failures of the application layer: how the journal is reached and driven.
public enum AppError: Error, Equatable, Sendable {
  /// A passphrase is needed, but there is no terminal and no file, descriptor or command.
  case noPassphraseSource
  /// A file holding a secret (a passphrase, a new passphrase, a recovery code) cannot be
  /// read; the messages name the file, not what it holds, as one reader serves them all.
  case passphraseFileUnreadable(path: String, errno: Int32)
  /// A file holding a secret can be read by other users.
  case passphraseFileUnsafe(path: String, mode: UInt32)
  /// The passphrase descriptor cannot be read.
  case passphraseDescriptorUnreadable(fd: Int32)
  /// The passphrase command could not start or exited with a failure.
  case passphraseCommandFailed(status: Int32)
  /// The passphrase source gave nothing.
  case emptyPassphrase
  /// The passphrase is longer than we accept (a file of the wrong kind, most likely).
  case passphraseTooLong(maximum: Int)
  /// A new passphrase shorter than the minimum.
  case passphraseTooShort(minimum: Int)
  /// The two entries of a new passphrase differ.
  case passphraseMismatch
  /// `passwd` without a terminal needs the new passphrase from a file.
  case noNewPassphraseSource
  /// Required fields are missing and there is no terminal to ask for them.
  case missingFlags([String])
  /// `edit` was given nothing to change and there is no terminal to ask.
  case nothingToChange
  /// `--editor` (`edit`, with or without tags; `note`) and there is no terminal for it.
  case editorNeedsTerminal
  /// More than one field asked to read standard input ("-").
  case stdinUsedTwice
  /// Standard input could not be read, or was not UTF-8.
  case stdinUnreadable
  /// Neither HOME nor XDG_DATA_HOME is set, so there is no default vault location.
  case noHome
  /// The session's lifecycle does not allow the change (for the session with this short id).
  case lifecycle(LifecycleError, id: String)
  /// A session's notes do not allow what was asked (for the session with this short id).
  case note(NoteError, id: String)
  /// `reflect` on a complete session was given a later field that already holds a value
  /// (reflect only fills; `edit` changes).
  case laterFieldFilled(Field, id: String)
  /// The vault is older than the one this computer last saw (VaultWitness): its ledger's
  /// generation is below the one recorded here.
  case olderThanSeen(seen: UInt64, found: UInt64)
  /// The vault has the generation this computer last saw, but another history behind it.
  case otherThanSeen(generation: UInt64)
  /// This computer's record of the vault does not check out.
  case witnessDamaged(path: String)
  /// The editor's buffer did not hold UTF-8 text; nothing was taken from it.
  case editorTextUnreadable
  /// The editor could not start; nothing was taken from it.
  /// $VISUAL or $EDITOR names a program that is not there (it was never started).
  case editorNotFound(name: String)
  case editorFailed(status: Int32)
  /// The editor ended without saving (a non-zero status, as vim's `:cq`): a cancellation;
  /// its text was not used.
  case editorCancelled(status: Int32)
  /// `remind --at` names a moment already past.
  case reminderInPast
  /// `-n`/`--limit` below 1.
  case badLimit
  /// --since is after --until: no session could be in between.
  case emptyDateRange
  /// `search` without words (none given, none read, or only spaces).
  case noSearchWords
  /// The words `journal search -` read from standard input are more than it takes.
  case searchWordsTooLong(maximumBytes: Int)
  /// `undo` found no deletion whose window is still open.
  case nothingToUndo
  /// A deletion needs a confirmation, and there is no terminal to ask (and no --yes).
  case confirmationNeeded(what: String)
  /// An import file was refused whole: what is wrong, and where.
  case importRefused(place: String, reason: String)
  /// An import file from a newer journal.
  case importVersion(found: Int, supported: Int)
  /// An import file that is jrnl's own plain-text journal, not its JSON export.
  case importJrnlJournal
  /// A session was saved (its short id), and then standard output, where its id was to go,
  /// could not be written.
  case savedNotShown(id: String, errno: Int32)
  /// The passphrase file is not a regular file (a FIFO, a device, a directory).
  case passphraseFileNotRegular(path: String)
  /// The passphrase command printed no line within its time.
  case passphraseCommandTimedOut(seconds: Int)
  /// A new passphrase that is not valid UTF-8 (SECURITY.md, "Key header").
  case passphraseNotUTF8
  /// The recovery code's file has an empty first line.
  case emptyRecoveryCode
  /// Sessions a command could not read while it went on with the others (short ids): the
  /// command's result, after its output, with exit 5.
  case sessionsDamaged(ids: [String])
  /// SQLite's own check found the vault file's structure damaged (its first report).
  case fileStructureDamaged(report: String)
  /// The person said no at a confirmation: nothing was done (`what` says what).
  case declined(what: String)
  /// A reminder was asked for a session dated ahead (planned): none comes before it happens.
  case plannedReminder
  /// A reminder's notification could not be shown (no notifier, or it failed).
  case notificationNotShown
  /// `reminders run` could not deliver a reminder that is due (`reason`: the notifier's own
  /// words, which name no content); the reminder stays due.
  case remindersNotDelivered(reason: String)
  /// No terminal program to open for "Reflect now" (`id`: the session's short id).
  case noTerminalProgram(id: String)
  /// The terminal program for "Reflect now" did not start.
  case terminalProgramFailed(id: String)
  /// An export or backup target already exists.
  case outputExists(path: String)
  /// An output file could not be written (removed again, so no partial export is left).
  case outputUnwritable(path: String, errno: Int32)
  /// An environment setting holds a value that cannot be read.
  case badSetting(name: String, expected: String)
  /// A line of the settings file cannot be read.
  case configLine(path: String, line: Int, problem: String)
  /// The settings file exists but cannot be opened or is not a regular file.
  case configUnreadable(path: String, errno: Int32)
  /// The settings file could have been written by another user.
  case configUnsafe(path: String)
  /// A person at a terminal typed a passphrase that does not open the vault `tries` times.
  case wrongPassphrases(tries: Int)
  /// What was typed or read as a recovery code is not one: its check does not hold.
  case recoveryCodeMistyped
  /// A recovery code was asked for with no terminal and no file to read it from.
  case noRecoveryCodeSource
  /// A recovery code is there and would be replaced, and there is no terminal to ask.
  case recoveryCodeReplaceNeedsYes
  /// A recovery code was given for a journal that has none (or it was removed).
  case noRecoveryCode
  /// Encrypting to age recipients was asked for, and `age` is not on PATH.
  case ageMissing
  /// age did not accept a recipient (`--to`) or a file of them (`--to-file`): the first
  /// characters of what was given (public keys, not content), and the flag.
  case ageRecipientRefused(given: String, flag: String)
  /// age stopped with this exit status while encrypting; nothing was left behind.
  case ageFailed(status: Int32)
  /// `share` was asked to share in plaintext: it needs recipients.
  case shareNeedsRecipients
  /// The public key the vault asks additions to be sealed to is not the one this computer
  /// pinned when the journal was last unlocked here: someone may have swapped it in.
  case sealingKeyChanged
  /// Sealed capture was asked for (`journal capture on`) of a vault that cannot be written.
  case sealingUnavailable
  /// A key change has begun (only the new passphrase opens the vault) and cannot go on:
  /// `cause`, an unlock agent that holds the old key and did not stop.
  case keyChangeUnfinished(cause: Diagnosis)
  /// `passwd --new-key` on a vault that syncs: the server did not take the new key
  /// (`cause`), so nothing changed, here or there.
  case syncNewKeyNotSent(cause: Diagnosis)
  /// The sync server's address in the vault file is not the one journal wrote there (its
  /// tag under the key, or this computer's record, says so); it was not contacted.
  case syncAddressChanged
  /// `sync join` refused what the server holds (`cause`); nothing was kept on this device.
  case syncJoinRefused(cause: Diagnosis)
  /// `sync join` was cut short (`cause`, exit 13); what arrived is kept in the journal made
  /// at `path`, for `journal sync` to finish.
  case syncJoinUnfinished(cause: Diagnosis, path: String)
  /// `journal resolve` on a session with no conflicts.
  case noConflicts(id: String)
  /// A bug: something that should not happen did. The text is for the report.
  case internalError(String)
  /// A guided `new` could not save its session (`cause` says why), and its answers are safe
  /// in the draft file: `kept` names what it holds ("the date and 2 lines of the intention");
  /// `sealed`: written without the passphrase, it opens only with it.
  case notSavedDraftKept(cause: Diagnosis, kept: String, sealed: Bool)
}
