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
  /// More than one field asked to read standard input ("-").
  case stdinUsedTwice
  /// Standard input could not be read, or was not UTF-8.
  case stdinUnreadable
  /// Neither HOME nor XDG_DATA_HOME is set, so there is no default vault location.
  case noHome
  /// The session's lifecycle does not allow the change (for the session with this short id).
  case lifecycle(LifecycleError, id: String)
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
  /// `undo` found no deletion whose window is still open.
  case nothingToUndo
  /// A deletion needs a confirmation, and there is no terminal to ask (and no --yes).
  case confirmationNeeded
  /// An import file was refused whole: what is wrong, and where.
  case importRefused(place: String, reason: String)
  /// An import file from a newer journal.
  case importVersion(found: Int, supported: Int)
  /// An import file that is jrnl's own plain-text journal, not its JSON export.
  case importJrnlJournal
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
  /// A sync command on a vault that does not sync.
  case syncNotSetUp
  /// `sync setup`: the server holds another journal for this role.
  case syncServerHasOther
  /// `sync join`: the server holds no journal for this role, or several.
  case syncServerEmpty
  case syncServerSeveral(count: Int)
  /// The server's schema is newer than this journal reads.
  case syncServerNewer(found: Int, supported: Int)
  /// Another device wrote sync data in a later layout than this journal reads.
  case syncNewerData(found: Int, supported: Int)
  /// The sync server's copy is not as this journal's devices left it; nothing was applied.
  case syncTampered(SyncTamper)
  /// Other devices kept writing while this one tried to; nothing was lost.
  case syncKeptMoving
  /// `passwd --new-key` on a vault that syncs: the other devices could not follow.
  case syncNewKey
  /// `journal resolve` on a session with no conflicts.
  case noConflicts(id: String)
  /// A bug: something that should not happen did. The text is for the report.
  case internalError(String)
  /// A guided `new` could not save its session (`cause` says why), and its answers are safe
  /// in the draft file: `kept` names what it holds ("the date and 2 lines of the intention");
  /// `sealed`: written without the passphrase, it opens only with it.
  case notSavedDraftKept(cause: Diagnosis, kept: String, sealed: Bool)
}

/// What a sync found wrong with the server's copy (SECURITY.md, "Sync", what the server
/// cannot do unnoticed). Names ids and change numbers only.
public enum SyncTamper: Equatable, Sendable {
  /// The server shows fewer changes than this device has already read: rolled back.
  case rolledBack(seen: Int64, shown: Int64)
  /// The change this device last read is not the one the server shows there: another
  /// history was shown to another device (a fork), or the server rewrote it.
  case forked(seq: Int64)
  /// A change is missing, out of order, or does not authenticate.
  case brokenChain(seq: Int64)
  /// A session's row is not the one its change wrote (altered, replayed, or another vault's).
  case changedRow(id: String)
  /// A change's row is missing.
  case droppedChange(id: String)
  /// The key header is not the one the last change that set it wrote.
  case changedHeader
  /// The server no longer holds this journal at all.
  case vaultGone
}
