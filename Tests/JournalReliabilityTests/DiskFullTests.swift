import Foundation
import Glibc
import JournalTestSupport
import Testing

/// A full disk and a file-size limit: each write fails with a clear message and a
/// documented exit code, and what was saved before stays intact.
@Suite(.serialized) struct DiskFullTests {
  /// Runs `journal arguments…` under a file-size limit of `bytes` (RLIMIT_FSIZE, via
  /// prlimit): a write past it fails (EFBIG) instead of filling the disk.
  func limited(_ f: ReliabilityFixture, bytes: Int, _ arguments: [String], stdin: String = "")
    -> CLI.Result
  {
    // Under a coverage run (Scripts/coverage) the binary's profile is a file too, written at
    // exit: past the limit, it would fail and say so on stderr. It goes to /dev/null, which no
    // file-size limit applies to; these runs are not counted.
    var environment = f.cli.environment
    if environment["LLVM_PROFILE_FILE"] != nil { environment["LLVM_PROFILE_FILE"] = "/dev/null" }
    let process = Spawned(
      arguments: ["/usr/bin/prlimit", "--fsize=\(bytes):\(bytes)", CLI.binary] + arguments,
      environment: environment, terminal: false)
    process.write(stdin)
    process.closeInput()
    return process.wait()
  }

  static let hasPrlimit = FileManager.default.isExecutableFile(atPath: "/usr/bin/prlimit")

  /// A save that would grow the vault past the file-size limit fails with exit 11 and a
  /// message; the sessions saved before are all there and verify passes.
  @Test(.enabled(if: hasPrlimit, "needs prlimit (util-linux)")) func fileSizeLimit() throws {
    let f = ReliabilityFixture().initialise()
    let before = (0..<3).compactMap { f.new(intention: "before \($0)") }
    #expect(before.count == 3)
    let size =
      (try FileManager.default.attributesOfItem(atPath: f.vaultPath)[.size] as? Int) ?? 0
    let walSize =
      (try? FileManager.default.attributesOfItem(atPath: f.vaultPath + "-wal")[.size] as? Int) ?? 0
    let big = String(repeating: "a long reflection that does not fit ", count: 8000)
    var tried = 0
    var clean = 0
    for command in [
      ["new", "--intention", "-", "--mood-before", "5"],
      ["reflect", before[0], "--reflection", "-"],
      ["edit", before[1], "--intention", "-"],
    ] {
      let result = limited(f, bytes: max(size, walSize) + 4096, command, stdin: big)
      tried += 1
      let ok = isCleanFailure(result, [11])
      #expect(ok, "\(command[0]): \(result)")
      if ok { clean += 1 }
    }
    #expect(f.run("verify").status == 0)
    #expect(Set(f.ids()) == Set(before))
    #expect(f.show(before[0])?["reflection"] is NSNull)
    Torture.report("disk: file-size limit", ["writes refused": tried, "clean failures": clean])
  }

  static let canMount: Bool =
    getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/bin/mount")

  /// A vault on a tiny filesystem (a 1 MiB tmpfs, where mounting is allowed): sessions are
  /// saved until the disk is full; the one that does not fit fails cleanly, and every one
  /// reported saved is still there.
  @Test(.enabled(if: canMount, "needs root to mount a small tmpfs")) func fullDisk() throws {
    let f = ReliabilityFixture()
    let mountPoint = f.root.file("small")
    mkdir(mountPoint, 0o700)
    guard run("/bin/mount", ["-t", "tmpfs", "-o", "size=1m,mode=0700", "tmpfs", mountPoint]) == 0
    else {
      Issue.record("mount failed")
      return
    }
    defer { _ = run("/bin/umount", ["-l", mountPoint]) }
    let vault = mountPoint + "/journal/vault.db"
    let extra = ["JOURNAL_VAULT": vault]
    #expect(f.run("init", "--kdf", "interactive", extra: extra).status == 0)
    var saved: [String] = []
    var failure: CLI.Result?
    let text = String(repeating: "words that fill the disk ", count: 4000)
    for index in 0..<40 {
      let result = f.run(
        "new", "--intention", "-", "--mood-before", "5", "--remind", "none",
        stdin: "\(index) " + text,
        extra: extra)
      if result.status == 0 {
        saved.append(result.stdout.trimmingCharacters(in: .newlines))
      } else {
        failure = result
        break
      }
    }
    let result = try #require(failure, "the disk never filled")
    #expect(isCleanFailure(result, [11]), "\(result)")
    #expect(result.stderr.contains("disk") || result.stderr.contains("full"), "\(result)")
    let verify = f.run("verify", extra: extra)
    #expect(verify.status == 0, "\(verify)")
    let list = f.run("list", "--json", extra: extra)
    for id in saved { #expect(list.stdout.contains(id)) }
    Torture.report(
      "disk: full filesystem",
      [
        "saved before full": saved.count,
        "losses": saved.filter { !list.stdout.contains($0) }.count,
      ])
  }

  func run(_ path: String, _ arguments: [String]) -> Int32 {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    process.standardError = FileHandle.nullDevice
    guard (try? process.run()) != nil else { return -1 }
    process.waitUntilExit()
    return process.terminationStatus
  }
}

/// The disk fills while a guided `new` is being answered: the save fails naming the full disk
/// and saying exactly what the draft keeps safe; once there is room, `journal new` resumes it.
@Suite(.serialized) struct DiskFullDuringFormTests {
  @Test(.enabled(if: DiskFullTests.canMount, "needs root to mount a small tmpfs"))
  func draftIsSafe() throws {
    let f = ReliabilityFixture()
    let mountPoint = f.root.file("small")
    mkdir(mountPoint, 0o700)
    let tests = DiskFullTests()
    guard
      tests.run("/bin/mount", ["-t", "tmpfs", "-o", "size=1m,mode=0700", "tmpfs", mountPoint])
        == 0
    else {
      Issue.record("mount failed")
      return
    }
    defer { _ = tests.run("/bin/umount", ["-l", mountPoint]) }
    let extra = ["JOURNAL_VAULT": mountPoint + "/journal/vault.db", "TERM": "xterm-256color"]
    #expect(f.run("init", "--kdf", "interactive", extra: extra).status == 0)
    let process = f.cli.interactive(["new"], extra: extra)
    #expect(process.expect("When was it? [now] "))
    process.write("2026-11-20 19:00\r")
    #expect(process.expect("Treatment [psilocybin] "))
    process.write("\r")
    #expect(process.expect("Dose (optional) "))
    process.write("\r")
    #expect(process.expect("Intention — what you bring to this session"))
    // The disk fills up (a file takes every free byte), then the intention is typed
    let filler = mountPoint + "/filler"
    let fd = open(filler, O_WRONLY | O_CREAT | O_EXCL, 0o600)
    let block = [UInt8](repeating: 0, count: 4096)
    while write(fd, block, block.count) > 0 {}
    close(fd)
    process.write("to rest\r.\r")
    #expect(process.expect("5 😐 neutral"))
    process.write("\r")
    let result = process.wait()
    #expect(result.status == 11, "\(result)")
    #expect(result.stderr.contains("the session was not saved: the disk holding"), "\(result)")
    #expect(
      result.stderr.contains(
        "your answers are safe in the draft (the date, the treatment, the intention "
          + #"and the mood before); once that is fixed, "journal new" offers it again"#),
      "\(result)")
    unlink(filler)
    let drafts = f.run("drafts", extra: extra)
    #expect(drafts.stdout.split(separator: "\n").count == 1, "\(drafts)")
  }
}
