import Foundation
import Glibc
import JournalStore
import JournalSystem

/// Sync in the background (`journal sync background on`): after a command wrote to the
/// vault, `journal sync now` runs as a process of its own, in a new session with nothing on
/// its standard streams. The command does not wait for it and cannot be failed by it. It
/// syncs only when the key comes without asking (the unlock agent, a passphrase file or
/// command); otherwise it ends at once, and the next `journal sync` sends everything.
enum BackgroundSync {
  static func start(vault: Vault, path: String) {
    guard let settings = try? vault.syncSettings(), settings.background else { return }
    let binary = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
    _ = Subprocess.start(
      [binary, "sync", "now", "--background", "--vault", path],
      redirects: [
        .open("/dev/null", flags: O_RDONLY, onto: STDIN_FILENO),
        .open("/dev/null", flags: O_WRONLY, onto: STDOUT_FILENO),
        .open("/dev/null", flags: O_WRONLY, onto: STDERR_FILENO),
      ],
      newSession: true)
  }
}
