import Glibc

/// Named places in a long write where a test can have the process killed, as a power cut or
/// `kill -9` would end it (`JOURNAL_DEBUG_KILL_AT=<name>`), to prove the write resumes. In
/// debug builds only: a release build does not read the variable, the code is not compiled
/// in.
public enum CrashPoint {
  /// Ends the process with SIGKILL here when the environment names this point; or, when
  /// `JOURNAL_DEBUG_PAUSE_AT` names it, the first time it is reached, makes the file
  /// `JOURNAL_DEBUG_PAUSE_FILE`.paused and waits (up to a minute) for
  /// `JOURNAL_DEBUG_PAUSE_FILE` to exist: a test then does something in between.
  public static func reached(_ name: String, environment: [String: String]) {
    #if DEBUG
      if environment["JOURNAL_DEBUG_KILL_AT"] == name { kill(getpid(), SIGKILL) }
      if environment["JOURNAL_DEBUG_PAUSE_AT"] == name,
        let file = environment["JOURNAL_DEBUG_PAUSE_FILE"],
        access(file + ".paused", F_OK) != 0
      {
        close(open(file + ".paused", O_WRONLY | O_CREAT | O_CLOEXEC, 0o600))
        for _ in 0..<6000 where access(file, F_OK) != 0 { usleep(10_000) }
      }
    #endif
  }
}
