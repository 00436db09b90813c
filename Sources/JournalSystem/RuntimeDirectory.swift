import CJournalSystem
import Glibc

/// journal's private, memory-backed directory for things that must never touch a disk:
/// the editor's buffer and the unlock agent's socket. `$XDG_RUNTIME_DIR/journal` when that
/// is a private tmpfs, else `/dev/shm/journal-<uid>`; created 0700 and checked every time.
public enum RuntimeDirectory {
  public static func resolve(environment: [String: String]) throws -> String {
    if let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/"),
      (try? FileSafety.privateDirectory(runtime, create: false)) != nil, isTmpfs(runtime)
    {
      try FileSafety.privateDirectory(runtime + "/journal", create: true)
      return runtime + "/journal"
    }
    if isTmpfs("/dev/shm") {
      let base = "/dev/shm/journal-\(getuid())"
      try FileSafety.privateDirectory(base, create: true)
      return base
    }
    throw SystemError.noPrivateMemoryDirectory
  }

  /// Every directory `resolve` gives this user under some environment, that is there (and
  /// the user's, though no longer private: for finding agents, never for writing): the
  /// one this environment names first (made, as every command makes it), then the login
  /// session's (`/run/user/<uid>/journal`) and `/dev/shm/journal-<uid>`, each once however
  /// its path is written. An agent started in another session (a desktop's, an ssh login's
  /// without XDG_RUNTIME_DIR) listens in one of them. In a debug build,
  /// JOURNAL_DEBUG_OTHER_RUNTIME_DIRECTORIES (paths joined by ":"; none when empty) stands for
  /// the last two: a test's own, so that no test reaches a person's agents or another test's.
  /// With `othersOnly`, this environment's own is left out (however another path names it).
  public static func everyExisting(environment: [String: String], othersOnly: Bool = false)
    -> [String]
  {
    var found: [(path: String, identity: FileIdentity)] = []
    let own = try? resolve(environment: environment)
    var others = ["/run/user/\(getuid())/journal", "/dev/shm/journal-\(getuid())"]
    #if DEBUG
      if let named = environment["JOURNAL_DEBUG_OTHER_RUNTIME_DIRECTORIES"] {
        others = named.split(separator: ":").map(String.init)
      }
    #endif
    for candidate in [own] + others {
      guard let candidate, isOwnDirectory(candidate), let identity = FileIdentity(path: candidate),
        !found.contains(where: { $0.identity == identity })
      else { continue }
      found.append((candidate, identity))
    }
    return found.map(\.path).filter { !othersOnly || $0 != own }
  }

  public static func isTmpfs(_ path: String) -> Bool { journal_is_tmpfs(path) == 1 }

  /// A directory (not a symbolic link) of this user's, whatever its mode: an agent started
  /// there still listens after its mode was changed, and asking one to lock, or for its
  /// status, hands it nothing (its socket must be the user's too: `AgentClient`).
  static func isOwnDirectory(_ path: String) -> Bool {
    var info = stat()
    return lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR && info.st_uid == getuid()
  }
}
