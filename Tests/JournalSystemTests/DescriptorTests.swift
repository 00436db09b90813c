import Foundation
import Glibc
import JournalSystem
import Synchronization
import Testing

/// The one descriptor API: whole buffers in and out, a limit that stops a long input, a
/// failure named by its errno, and a signal that interrupts a read is not a failure.
struct DescriptorTests {
  /// A pipe's two ends, closed at the end of `body`.
  /// An end `body` closes with `closeEnd` is not closed again: in a test process whose
  /// other tests open files meanwhile, a second close could close one of theirs.
  func withPipe(
    _ body: (Descriptor, Descriptor, _ closeEnd: (Descriptor) -> Void) throws -> Void
  ) throws {
    var fds: [Int32] = [0, 0]
    try #require(pipe(&fds) == 0)
    var open = Set(fds)
    defer { for fd in open { close(fd) } }
    try body(Descriptor(fds[0]), Descriptor(fds[1])) { end in
      if open.remove(end.raw) != nil { close(end.raw) }
    }
  }

  /// What is written whole is read whole; `readAll` stops once more than its limit came, and
  /// `readFully` at the end of the input.
  @Test func wholeBuffers() throws {
    try withPipe { reader, writer, closeEnd in
      try writer.writeAll(Array("0123456789".utf8))
      var four = [UInt8](repeating: 0, count: 4)
      #expect(try four.withUnsafeMutableBytes { try reader.readFully(into: $0) } == 4)
      #expect(four == Array("0123".utf8))
      closeEnd(writer)
      let rest = try reader.readAll(limit: 100)
      #expect(rest == Array("456789".utf8))
    }
    try withPipe { reader, writer, _ in
      try writer.writeAll([UInt8](repeating: 7, count: 5000))
      let bytes = try reader.readAll(limit: 1000)
      #expect(bytes.count > 1000)
    }
  }

  /// A write to a pipe nobody reads fails with EPIPE, as a value, not a signal (SIGPIPE is
  /// ignored here as journal ignores it while it writes to another program); a send to a
  /// socket whose peer has gone fails the same way with no SIGPIPE at all.
  @Test func failuresAreTheirErrno() throws {
    let previous = signal(SIGPIPE, SIG_IGN)
    defer { signal(SIGPIPE, previous) }
    try withPipe { reader, writer, closeEnd in
      closeEnd(reader)
      #expect(throws: Descriptor.Failure(errno: EPIPE)) { try writer.writeAll([1, 2, 3]) }
    }
    var pair: [Int32] = [0, 0]
    try #require(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0)
    close(pair[1])
    defer { close(pair[0]) }
    #expect(throws: Descriptor.Failure(errno: EPIPE)) {
      try [UInt8](repeating: 1, count: 8).withUnsafeBytes { try Descriptor(pair[0]).sendAll($0) }
    }
  }

  /// Whether the thread `task` ("PID/task/TID") is waiting in read(2) now (the kernel's own
  /// word: its /proc syscall file starts with the call's number).
  static func waitingInRead(_ task: String) -> Bool {
    #if arch(x86_64)
      let read = "0 "
    #else
      let read = "63 "  // arm64's (and riscv64's) generic numbering
    #endif
    let text = try? String(contentsOfFile: "/proc/\(task)/syscall", encoding: .utf8)
    return text?.hasPrefix(read) == true
  }

  /// A read blocked when a signal with a handler arrives (no SA_RESTART) goes on reading:
  /// the bytes written after the signal are what it returns, not EINTR.
  @Test func signalsInterruptNothing() throws {
    var action = sigaction()
    action.__sigaction_handler.sa_handler = { _ in }
    sigemptyset(&action.sa_mask)
    action.sa_flags = 0
    var previous = sigaction()
    sigaction(SIGUSR2, &action, &previous)
    defer { sigaction(SIGUSR2, &previous, nil) }
    try withPipe { reader, writer, _ in
      let result = Mutex<Result<[UInt8], Descriptor.Failure>?>(nil)
      let started = Mutex<(pthread_t, String)?>(nil)
      let thread = Thread {
        // Made from a test's thread, which (a dispatch worker) blocks signals: let this one in.
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGUSR2)
        pthread_sigmask(SIG_UNBLOCK, &signals, nil)
        let task = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self"))
        started.withLock { $0 = (pthread_self(), task ?? "") }
        var buffer = [UInt8](repeating: 0, count: 3)
        let read = buffer.withUnsafeMutableBytes { raw in
          Result { () throws(Descriptor.Failure) in try reader.readFully(into: raw) }
        }
        result.withLock { $0 = read.map { Array(buffer.prefix($0)) } }
      }
      thread.start()
      var reader: (pthread_t, String)?
      while reader == nil { reader = started.withLock { $0 } }
      let (target, tid) = try #require(reader)
      try #require(!tid.isEmpty)
      // When the reader waits in read(2), a signal lands there; it waits there again after.
      while !Self.waitingInRead(tid) { sched_yield() }
      pthread_kill(target, SIGUSR2)
      while !Self.waitingInRead(tid) && result.withLock({ $0 == nil }) { sched_yield() }
      try writer.writeAll([4, 5, 6])
      var got: Result<[UInt8], Descriptor.Failure>?
      while got == nil {
        got = result.withLock { $0 }
        sched_yield()
      }
      #expect(try got?.get() == [4, 5, 6])
    }
  }
}
