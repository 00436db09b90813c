import Glibc

/// Named places in a long write where a test can have the process killed, as a power cut or
/// `kill -9` would end it (`JOURNAL_DEBUG_KILL_AT=<name>`), to prove the write resumes. In
/// debug builds only: a release build does not read the variable, the code is not compiled
/// in.
enum CrashPoint {
  /// Ends the process with SIGKILL here when the environment names this point.
  static func reached(_ name: String, environment: [String: String]) {
    #if DEBUG
      if environment["JOURNAL_DEBUG_KILL_AT"] == name { kill(getpid(), SIGKILL) }
    #endif
  }
}
