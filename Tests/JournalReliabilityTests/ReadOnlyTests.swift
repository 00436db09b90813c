import Foundation
import Glibc
import JournalTestSupport
import Testing

/// A vault that cannot be written: it can still be read (list, show, export, status), and a
/// write names the real cause, not a full disk.
@Suite(.serialized) struct ReadOnlyTests {
  static let canMount: Bool =
    getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/bin/mount")

  /// A copy of a vault on a filesystem mounted read-only (a tmpfs remounted ro).
  @Test(.enabled(if: canMount, "needs root to mount a tmpfs")) func readOnlyFileSystem() throws {
    let f = ReliabilityFixture().initialise()
    let ids = (0..<2).compactMap { f.new(intention: "kept \($0)") }
    #expect(ids.count == 2)
    let mountPoint = f.root.file("ro")
    mkdir(mountPoint, 0o700)
    guard mount(["-t", "tmpfs", "-o", "size=4m,mode=0700", "tmpfs", mountPoint]) == 0 else {
      Issue.record("mount failed")
      return
    }
    defer { _ = mount(["-l", mountPoint], command: "/bin/umount") }
    let directory = mountPoint + "/journal"
    mkdir(directory, 0o700)
    let vault = directory + "/vault.db"
    try FileManager.default.copyItem(atPath: f.vaultPath, toPath: vault)
    chmod(vault, 0o600)
    #expect(mount(["-o", "remount,ro", mountPoint]) == 0)
    let extra = ["JOURNAL_VAULT": vault]

    let list = f.run("list", "--json", extra: extra)
    #expect(list.status == 0, "\(list)")
    for id in ids { #expect(list.stdout.contains(id)) }
    #expect(f.run("show", ids[0], extra: extra).status == 0)
    #expect(f.run("export", "--format", "json", extra: extra).status == 0)
    #expect(f.run("status", extra: extra).stdout.hasPrefix("2 to reflect"))
    #expect(f.run("verify", extra: extra).status == 0)

    for command in [
      ["new", "--intention", "more", "--mood-before", "5"],
      ["reflect", ids[0], "--reflection", "later"],
      ["remind", ids[0], "--in", "3h"],
    ] {
      let result = f.cli.run(command, extra: extra)
      #expect(isCleanFailure(result, [11]), "\(command[0]): \(result)")
      #expect(
        result.stderr.contains("read-only file system"), "\(command[0]): \(result.stderr)")
      #expect(!result.stderr.contains("disk space"), "\(command[0]): \(result.stderr)")
    }
    #expect(f.run("list", "--json", extra: extra).stdout == list.stdout)
  }

  func mount(_ arguments: [String], command: String = "/bin/mount") -> Int32 {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: command)
    process.arguments = arguments
    process.standardError = FileHandle.nullDevice
    guard (try? process.run()) != nil else { return -1 }
    process.waitUntilExit()
    return process.terminationStatus
  }
}
