import Glibc

/// Failures of the vault file. None carries record content; paths are the user's own.
public enum StoreError: Error, Equatable, Sendable {
  /// No vault at the path: `journal init` has not been run (or --vault points elsewhere).
  case vaultMissing(path: String)
  /// `init` found a vault already there.
  case vaultExists(path: String)
  /// The file is not a journal vault, or its header is damaged.
  case notAVault(path: String)
  /// SQLite found a page of the vault damaged (`SQLITE_CORRUPT`) in a file it opened as a
  /// vault: part of it does not read.
  case damagedFile(path: String)
  /// A vault written by a newer version of journal.
  case newerFormat(found: Int, supported: Int)
  /// The vault's schema was changed outside journal: a table, index or trigger missing, a
  /// migration's record removed, or its format number lowered.
  case damagedStructure(path: String)
  /// A backup was written to `path` and does not pass SQLite's quick check (`report`, its
  /// first line): damage of the vault's file, or of the disk the copy went to. The copy is
  /// kept: it may be all there is.
  case damagedCopy(path: String, report: String)
  /// A session row that does not open: tampered, damaged, or moved. Other rows are fine.
  case damagedRecord(id: String)
  /// An import would leave the session with this short id holding more notes, or more text
  /// in them, than a person may give one (`Note.maximumCount`, `maximumTotalBytes`): its
  /// notes and the file's together. Nothing was imported.
  case importedNotesOverflow(id: String)
  /// A reminder row holds a number out of range (an edited or damaged file): for the session
  /// with this short id.
  case damagedReminder(id: String)
  /// No session has an id starting with the prefix.
  case noMatch(prefix: String)
  /// Several sessions share the prefix.
  case ambiguous(prefix: String, candidates: [String])
  /// The operating system refused a file operation.
  case io(path: String, errno: Int32)
  /// SQLite reported an error (the code only: statements and arguments are never shown).
  case database(code: Int32, message: String)
  /// The vault is held by another process for longer than we wait.
  case busy
  /// A change was asked of a vault that cannot be written; reading it still works.
  case readOnly(path: String, reason: ReadOnlyReason)
  /// The disk (or the file-size limit) left no room for a change; nothing was half-saved.
  case diskFull(path: String)
  /// The vault's key (or its passphrase, or the key additions are sealed to) was changed by
  /// another journal since this one opened it; nothing was changed.
  case keyChanged
  /// `journal sync setup` or `join` on a vault that syncs already.
  case syncAlreadySetUp
  /// The vault is not as journal last left it (see `Tampering`); nothing was changed.
  case tampered(Tampering)
}

/// What the ledger found (SECURITY.md, "The ledger"). Never carries content: short ids only.
public enum Tampering: Equatable, Sendable {
  /// The rows do not add up to the ledger's tag: a session deleted, added, or put back whole
  /// from an older copy, or the trash or the tombstones changed.
  case rows
  /// The ledger row is missing or malformed in a vault whose rows were written under it.
  case ledger
  /// These sessions' rows disagree with each other: a trash, tombstone or reminder row that
  /// does not fit the session's state.
  case inconsistent(ids: [String])
  /// A column of this session is an older version of itself.
  case olderVersion(id: String)
  /// Rows holding clear values journal never writes (an id, revision or status, a trash
  /// row's batch or times), shown by the first characters of their ids: damage of those rows.
  case malformedRows([String])
  /// A setting the ledger covers (whether writing without the passphrase is on, the
  /// recovery slot) was changed in the file, not by journal.
  case settings
  /// The rows differ from what this computer last saw of them, session by session (short
  /// ids): sessions gone, sessions that were not there, sessions at another version.
  case sessions(missing: [String], added: [String], changed: [String])
}

/// Why a vault cannot be written, as the system told it.
public enum ReadOnlyReason: Equatable, Sendable {
  /// The file system is mounted read-only.
  case fileSystem
  /// The vault file itself has no write permission for this user.
  case file
  /// Its directory has no write permission, and SQLite writes its journal files there.
  case directory(path: String)

  /// What stops a change to the vault at `path`, or nil when it can be written. The
  /// effective user's access, as the kernel decides it (root ignores permission bits).
  static func of(vault path: String, directory: String) -> ReadOnlyReason? {
    for (target, reason) in [(path, ReadOnlyReason.file), (directory, .directory(path: directory))]
    where faccessat(AT_FDCWD, target, W_OK, AT_EACCESS) != 0 {
      return errno == EROFS ? .fileSystem : reason
    }
    return nil
  }
}
