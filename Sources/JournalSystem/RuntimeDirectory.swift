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

  public static func isTmpfs(_ path: String) -> Bool { journal_is_tmpfs(path) == 1 }
}
