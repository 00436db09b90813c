import CJournalSystem
import Glibc

/// Process-wide protections, applied first thing in `main`.
public enum Hardening {
  /// Files and directories are created private (umask 077), core dumps are off, and the
  /// process is not dumpable (which also refuses ptrace from other processes of the user),
  /// and a file-size limit is an error to report rather than a signal that kills.
  public static func apply() {
    umask(0o077)
    _ = journal_harden_process()
    // A parent may have started us with signals blocked; Ctrl-C must still end a prompt
    // (and restore the terminal).
    var signals = sigset_t()
    sigemptyset(&signals)
    for number in [SIGINT, SIGTERM, SIGHUP, SIGQUIT] { sigaddset(&signals, number) }
    sigprocmask(SIG_UNBLOCK, &signals, nil)
    // A write past the file-size limit (RLIMIT_FSIZE) would kill us with SIGXFSZ, mid-save
    // and without a word; ignored, the write fails with EFBIG and is reported like a full
    // disk, with nothing half-saved.
    signal(SIGXFSZ, SIG_IGN)
  }
}
