import CSystem
import Glibc

/// Process-wide protections, applied first thing in `main`.
public enum Hardening {
  /// Files and directories are created private (umask 077), core dumps are off, and the
  /// process is not dumpable (which also refuses ptrace from other processes of the user).
  public static func apply() {
    umask(0o077)
    _ = journal_harden_process()
  }
}
