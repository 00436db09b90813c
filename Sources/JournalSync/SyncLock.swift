import Foundation
import Glibc
import JournalSystem

/// The lock that keeps two syncs of one vault on this computer apart (`<vault>.sync-lock`,
/// flock), and what another sync can learn of whoever holds it: the process (from
/// /proc/locks, never from the file alone, which a holder that died leaves behind), whether it
/// runs in the background (its command line), when it began (the file, when its process
/// matches), and when it last made progress (the file's modification time, touched after
/// every answer from the server).
///
/// Every wait of a sync is bounded (SyncBounds), so a holder that makes no progress for
/// longer than the longest of them is stuck: stopped with SIGSTOP, a laptop suspended half
/// way, or a journal older than those bounds. A foreground sync that finds a background one
/// stuck says so, ends it (a sync cut anywhere loses nothing) and takes over; one that finds
/// another foreground sync stuck, a person's own process in another terminal, leaves it and
/// says which it is (exit 13). A background sync never waits: it gives way.
final class SyncLock {
  private let descriptor: Int32

  private init(_ descriptor: Int32) {
    self.descriptor = descriptor
  }

  deinit {
    // Emptied before it is let go: what the file says is of a holder that holds it.
    _ = ftruncate(descriptor, 0)
    close(descriptor)
  }

  /// Notes progress: the file's modification time, read by a sync that waits.
  func beat() { _ = futimens(descriptor, nil) }

  /// Who holds a vault's sync lock, as another process sees it.
  struct Holder: Equatable {
    let pid: Int32
    let background: Bool
    /// When it took the lock (nil when the file does not name this process).
    let started: Date?
    /// When it last made progress.
    let progress: Date
  }

  /// Takes the lock at `path`. A background sync gives way (nil) to any holder. A foreground
  /// one waits while the holder makes progress; a holder with none for `stuckAfter`
  /// milliseconds is ended, when it is a background sync, or reported (exit 13).
  static func take(
    _ path: String, background: Bool, stuckAfter: Int, now: () -> Date,
    note: (String) -> Void
  ) throws -> SyncLock? {
    var announced = false
    while true {
      if let descriptor = try FileSafety.exclusiveLock(path, wait: false) {
        let lock = SyncLock(descriptor)
        lock.record(background: background, at: now())
        return lock
      }
      if background { return nil }
      guard let holder = holder(path) else {
        // Let go between the two looks: try again.
        usleep(20_000)
        continue
      }
      let quiet = Int(now().timeIntervalSince(holder.progress) * 1000)
      if quiet > stuckAfter {
        guard holder.background else {
          throw SyncError.lockStuck(pid: holder.pid, seconds: quiet / 1000)
        }
        note(
          "a background sync on this device (process \(holder.pid)) made no progress for "
            + "\(Self.seconds(quiet)); it was stopped, and this sync takes over"
        )
        kill(holder.pid, SIGKILL)
        // It lets go as it ends: a few milliseconds.
        for _ in 0..<500 {
          if let descriptor = try FileSafety.exclusiveLock(path, wait: false) {
            let lock = SyncLock(descriptor)
            lock.record(background: false, at: now())
            return lock
          }
          usleep(10_000)
        }
        throw SyncError.lockStuck(pid: holder.pid, seconds: quiet / 1000)
      }
      if !announced {
        announced = true
        note(
          (holder.background
            ? "a background sync on this device (process \(holder.pid)) is running"
            : "another journal sync on this device (process \(holder.pid)) is running")
            + "; waiting for it")
      }
      usleep(50_000)
    }
  }

  /// Writes who holds the lock: this process, whether in the background, since when.
  private func record(background: Bool, at date: Date) {
    let text =
      "journal-sync 1\n\(getpid())\n\(background ? "background" : "foreground")\n"
      + "\(Int64(date.timeIntervalSince1970 * 1000))\n"
    _ = ftruncate(descriptor, 0)
    _ = text.withCString { pwrite(descriptor, $0, strlen($0), 0) }
  }

  /// Who holds the lock at `path`, if anyone does.
  static func holder(_ path: String) -> Holder? {
    var info = stat()
    guard stat(path, &info) == 0,
      let pid = flockHolder(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    else { return nil }
    let progress = Date(
      timeIntervalSince1970: Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9)
    let lines = ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").split(
      separator: "\n")
    var started: Date?
    if lines.count >= 4, lines[0] == "journal-sync 1", Int32(lines[1]) == pid,
      let milliseconds = Int64(lines[3])
    {
      started = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }
    // The command line tells a background sync, whatever wrote the file.
    let arguments =
      ((try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/cmdline"))) ?? Data())
      .split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
    return Holder(
      pid: pid, background: arguments.contains("--background"), started: started,
      progress: progress)
  }

  /// The process holding a flock on the file (device, inode), from /proc/locks
  /// (`1: FLOCK  ADVISORY  WRITE 4242 08:01:1234 0 EOF`, the device's numbers in hex).
  private static func flockHolder(device: UInt64, inode: UInt64) -> Int32? {
    guard let text = try? String(contentsOfFile: "/proc/locks", encoding: .utf8) else {
      return nil
    }
    let major = (device >> 8) & 0xfff | (device >> 32) & ~0xfff
    let minor = device & 0xff | (device >> 12) & ~0xff
    for line in text.split(separator: "\n") where !line.contains("->") {
      let fields = line.split(separator: " ", omittingEmptySubsequences: true)
      guard fields.count >= 6, fields[1] == "FLOCK" else { continue }
      let place = fields[5].split(separator: ":")
      guard place.count == 3, UInt64(place[0], radix: 16) == major,
        UInt64(place[1], radix: 16) == minor, UInt64(place[2]) == inode
      else { continue }
      return Int32(fields[4])
    }
    return nil
  }

  /// A wait in whole seconds, as said to a person ("1 second", "40 seconds").
  static func seconds(_ milliseconds: Int) -> String {
    let seconds = max(milliseconds / 1000, 1)
    return "\(seconds) second" + (seconds == 1 ? "" : "s")
  }
}
