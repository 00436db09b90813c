/// The exit codes of `journal`, stable and documented in the man page (Docs/journal.1, EXIT
/// STATUS) and Docs/USER-GUIDE.md.
public enum JournalExit: Int32, Sendable, CaseIterable {
  /// Done.
  case success = 0
  /// A bug in journal; the message asks for a report.
  case internalError = 1
  /// A flag, argument or value that is not accepted.
  case usage = 2
  /// No vault at the location (run "journal init").
  case noVault = 3
  /// The passphrase does not open the vault.
  case wrongPassphrase = 4
  /// The vault or a record is damaged or has been tampered with.
  case damaged = 5
  /// No session matches the id, or several do; or there is nothing to undo.
  case notFound = 6
  /// The action does not fit the current state (a vault already there, a session already
  /// complete).
  case notAllowed = 7
  /// A file or directory with unsafe permissions, owner, or a symbolic link.
  case unsafeFiles = 8
  /// No passphrase could be obtained (no terminal, and no file, descriptor or command).
  case passphraseUnavailable = 9
  /// The vault was written by a newer journal.
  case newerFormat = 10
  /// The disk or database failed (I/O error, full disk, vault busy too long).
  case ioError = 11
  /// The vault is not as journal last left it: a session removed or put back, an older
  /// version of one, or the whole vault older than this computer last saw. Nothing was
  /// changed.
  case tampered = 12
  /// The sync server could not be reached, refused, or kept changing; nothing here was lost
  /// and `journal sync` can be run again.
  case syncUnavailable = 13
  /// Stopped by the person (Ctrl-C, Ctrl-D) before finishing; nothing further was changed.
  case cancelled = 130
}
