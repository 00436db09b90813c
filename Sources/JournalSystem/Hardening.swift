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
    // The Swift runtime's crash reporter handles these signals by reading this process's
    // memory and registers and printing them (with SWIFT_BACKTRACE's defaults): of a process
    // holding a key and a person's words, on their terminal or in a log. Back to the kernel's
    // default, a crash ends the process with only the runtime's one-line reason; with core
    // dumps off and the process not dumpable, nothing of its memory is written anywhere.
    for number in [SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGABRT, SIGSYS] {
      signal(number, SIG_DFL)
    }
  }
}
