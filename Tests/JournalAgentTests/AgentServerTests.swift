import Foundation
import Glibc
import JournalAgent
import JournalCrypto
import JournalTestSupport
import Testing

/// A real agent on a real socket, in this process, living by a clock the test moves: no
/// waiting on the wall clock for its timeouts.
@Suite(.serialized) struct AgentServerTests {
  /// An agent serving on its own thread, with its clock and its client.
  final class Running: @unchecked Sendable {
    let directory = TemporaryDirectory()
    let clock = TestClock(TestClock.reference)
    let vaultID = [UInt8](repeating: 0x42, count: 16)
    let key: [UInt8] = (0..<32).map { UInt8($0) }
    let client: AgentClient
    let socket: String
    /// The agent's own copy of the key, to see it wiped.
    let held: SecureBytes
    /// Whether the agent's key has been wiped (its bytes all zero).
    var wiped: Bool { held.withUnsafeBytes { $0.allSatisfy { $0 == 0 } } }
    private let done = DispatchSemaphore(value: 0)

    /// `socket`: another path than the agent's own directory's; `now`: another clock than
    /// `clock`.
    init(
      idle: TimeInterval, lifetime: TimeInterval, socket: String? = nil,
      now: (@Sendable () -> Date)? = nil
    ) throws {
      self.socket = socket ?? directory.file("agent.sock")
      let clock = self.clock
      held = try SecureBytes(copying: key)
      let agent = Agent(
        vaultID: vaultID, dataKey: held, idleTimeout: idle,
        lifetime: lifetime, socketPath: self.socket, now: now ?? { clock.read() })
      try agent.bind()
      client = AgentClient(socketPath: self.socket)
      let finished = done
      let served = UncheckedBox(agent)
      Thread {
        served.value.serve()
        finished.signal()
      }.start()
    }

    /// The data key the agent hands out, or nil when it does not.
    func askForKey() -> [UInt8]? {
      client.keys(vaultID: vaultID)?.withDataKey { Array($0) }
    }

    /// Whether the agent's thread ended (within a few seconds: it wakes on the next request).
    func ended() -> Bool { done.wait(timeout: .now() + 5) == .success }
  }

  /// The key is handed out while the agent lives, the idle time restarts with each request,
  /// and once it has passed the key is never handed out again: the agent wipes it and ends.
  @Test func idleTimeoutByTheClock() throws {
    let agent = try Running(idle: 600, lifetime: 7200)
    #expect(agent.askForKey() == agent.key)
    agent.clock.advance(by: 599)
    #expect(agent.askForKey() == agent.key)
    agent.clock.advance(by: 599)
    #expect(agent.client.status()?.idle == 1)
    agent.clock.advance(by: 1)
    #expect(agent.askForKey() == nil)
    #expect(agent.ended())
    #expect(!FileManager.default.fileExists(atPath: agent.socket))
  }

  /// However often it is asked, the agent ends at its maximum lifetime.
  @Test func maximumLifetimeByTheClock() throws {
    let agent = try Running(idle: 600, lifetime: 1000)
    for _ in 0..<9 {
      agent.clock.advance(by: 100)
      #expect(agent.askForKey() == agent.key)
    }
    #expect(agent.client.status().map { [$0.idle, $0.lifetime] } == [100, 100])
    agent.clock.advance(by: 100)
    #expect(agent.askForKey() == nil)
    #expect(agent.ended())
  }

  /// Another vault's id gets no key; lock ends the agent at once.
  /// The agent keeps the latest ledger stamp it was told of: an older one is answered with
  /// the later, a later one is taken; a witness request does not count as use (the idle time
  /// runs on), and a tag of the wrong size is not sent.
  @Test func witnessKeepsTheLatestStamp() throws {
    let agent = try Running(idle: 600, lifetime: 7200)
    let five = [UInt8](repeating: 5, count: 32), seven = [UInt8](repeating: 7, count: 32)
    #expect(agent.client.witness(generation: 5, tag: five)?.generation == 5)
    let older = agent.client.witness(generation: 3, tag: seven)
    #expect(older?.generation == 5 && older?.tag == five)
    #expect(agent.client.witness(generation: 7, tag: seven)?.tag == seven)
    agent.clock.advance(by: 599)
    #expect(agent.client.status()?.idle == 1)
    #expect(agent.client.witness(generation: 7, tag: [1, 2]) == nil)
  }

  /// Requests that do not follow the protocol get the error answer, readable before the
  /// connection closes: a keys request whose payload is not 16 bytes is malformed (not
  /// "another vault"), and so is a request longer than 64 bytes, even with its bytes unread.
  @Test func malformedRequestsAreAnswered() throws {
    let agent = try Running(idle: 600, lifetime: 7200)
    func ask(_ bytes: [UInt8]) -> UInt8? {
      guard var address = AgentProtocol.address(agent.socket) else { return nil }
      let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
      defer { close(fd) }
      let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
        }
      }
      guard connected == 0 else { return nil }
      AgentProtocol.write(fd, bytes)
      return AgentProtocol.read(fd, count: AgentProtocol.headerBytes, timeout: 2)?[5]
    }
    let malformed = AgentProtocol.Code.malformed.rawValue
    for count in [0, 15, 17] {
      let request = AgentProtocol.frame(
        AgentProtocol.Command.keys.rawValue, [UInt8](repeating: 0x42, count: count))
      #expect(ask(request) == malformed, "\(count) bytes")
    }
    let oversized =
      AgentProtocol.header(AgentProtocol.Command.status.rawValue, count: 4000)
      + [UInt8](repeating: 7, count: 4000)
    #expect(ask(oversized) == malformed)
    #expect(agent.askForKey() == agent.key)
  }

  @Test func otherVaultAndLock() throws {
    let agent = try Running(idle: 600, lifetime: 7200)
    #expect(agent.client.keys(vaultID: [UInt8](repeating: 1, count: 16)) == nil)
    #expect(agent.client.lock())
    #expect(agent.ended())
    #expect(agent.askForKey() == nil)
  }

  /// When `lock` has its answer the key is wiped and the socket gone, not a moment later:
  /// `journal lock` says "locked" only of what is. Many times over, as the agent's thread
  /// could finish either side of the client's reading.
  @Test func lockAnswersOnlyOnceLocked() throws {
    for _ in 0..<25 {
      let agent = try Running(idle: 600, lifetime: 7200)
      #expect(agent.client.lock())
      #expect(agent.wiped)
      #expect(!FileManager.default.fileExists(atPath: agent.socket))
      #expect(agent.ended())
    }
  }

  /// An agent whose socket is taken from it (moved, or replaced: `journal lock` can no
  /// longer reach it) ends at its next wake without being asked, and leaves the path to
  /// whoever took it.
  @Test func anAgentWhoseSocketIsTakenEnds() throws {
    let first = try Running(idle: 600, lifetime: 7200)
    let moved = first.directory.file("moved.sock")
    #expect(rename(first.socket, moved) == 0)
    let other = try Self.listen(at: first.socket)
    defer { close(other) }
    _ = AgentClient(socketPath: moved).status()  // wakes it, answered or not
    #expect(first.ended())
    #expect(first.wiped)
    #expect(FileManager.default.fileExists(atPath: first.socket))
  }

  /// So does an agent whose lock file is removed (another agent of the vault could start
  /// beside it), removing its own socket.
  @Test func anAgentWhoseLockIsRemovedEnds() throws {
    let first = try Running(idle: 600, lifetime: 7200)
    #expect(unlink(first.socket + ".lock") == 0)
    _ = first.client.status()
    #expect(first.ended())
    #expect(first.wiped)
    #expect(!FileManager.default.fileExists(atPath: first.socket))
  }

  /// A client of an agent that accepts nothing (stopped, or hung) and whose queue is full
  /// gives up within its two seconds: the connect does not wait for room.
  @Test func aFullQueueDoesNotHoldTheClient() throws {
    let directory = TemporaryDirectory()
    let path = directory.file("agent.sock")
    let stuck = try Self.listen(at: path, backlog: 0)
    defer { close(stuck) }
    var queued: [Int32] = []
    defer { queued.forEach { close($0) } }
    // Non-blocking connects until the kernel says the queue is full.
    var address = try #require(AgentProtocol.address(path))
    var full = false
    for _ in 0..<8 where !full {
      let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
      queued.append(fd)
      let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
        }
      }
      full = connected != 0 && errno == EAGAIN
    }
    #expect(full)
    let answer = Box<AgentClient.LockAnswer?>(nil)
    let answered = DispatchSemaphore(value: 0)
    Thread {
      answer.value = AgentClient(socketPath: path).lockAnswer()
      answered.signal()
    }.start()
    #expect(answered.wait(timeout: .now() + 10) == .success)
    // Full: no connection, so no process to name; but not "nobody".
    #expect(answer.value == .notStopped(process: nil))
  }

  /// A value one thread sets and another reads after a semaphore.
  final class Box<Value>: @unchecked Sendable {
    var value: Value
    init(_ value: Value) { self.value = value }
  }

  /// Asked to lock, an agent that takes the request and says nothing (stopped, or hung) is
  /// told from none at all: it may still hold its key.
  @Test func aSilentAgentIsNotLocked() throws {
    let directory = TemporaryDirectory()
    let path = directory.file("agent.sock")
    #expect(AgentClient(socketPath: path).lockAnswer() == .nobody)
    let silent = try Self.listen(at: path)
    defer { close(silent) }
    #expect(AgentClient(socketPath: path).lockAnswer() == .notStopped(process: getpid()))
    let agent = try Running(idle: 600, lifetime: 7200)
    #expect(agent.client.lockAnswer() == .locked)
    #expect(agent.client.lockAnswer() == .nobody)
    // Nor is one that answers with what is not an answer of this version (an agent of
    // another journal version, say), or with an error.
    for reply in [Array("JRNA\u{2}\u{0}\u{0}\u{0}".utf8), AgentProtocol.frame(2, [])] {
      let other = directory.file("other-\(reply[4]).sock")
      let answering = try Self.listen(at: other)
      Thread {
        let client = accept(answering, nil, nil)
        _ = AgentProtocol.read(client, count: AgentProtocol.headerBytes, timeout: 2)
        AgentProtocol.write(client, reply)
        close(client)
        close(answering)
      }.start()
      #expect(AgentClient(socketPath: other).lockAnswer() == .notStopped(process: getpid()))
    }
  }

  /// A listening socket at `path` that is not an agent's.
  static func listen(at path: String, backlog: Int32 = 4) throws -> Int32 {
    let fd = listeningSocket(at: path, backlog: backlog)
    try #require(fd >= 0)
    return fd
  }

  /// A second agent of the same vault (two `journal unlock` at once) asks the first to lock
  /// and binds only once it has: the first's key is wiped, and the one agent left is the
  /// one `journal lock` reaches.
  @Test func aSecondAgentStopsTheFirst() throws {
    let first = try Running(idle: 600, lifetime: 7200)
    let second = try Running(idle: 600, lifetime: 7200, socket: first.socket)
    // Already when the second has bound: not later, as the first would notice by itself
    // that its socket was taken.
    #expect(first.wiped)
    #expect(first.ended())
    #expect(second.askForKey() == second.key)
    #expect(AgentClient(socketPath: first.socket).lock())
    #expect(second.ended())
    #expect(!FileManager.default.fileExists(atPath: first.socket))
  }

  /// Two agents starting at once: the one holding the lock may not answer the other's first
  /// request (it has not bound yet, or is stopping for another). The newcomer asks again
  /// until the holder answers, and binds once it has let go. Here the holder is the test:
  /// it leaves the first request unanswered and answers the second as an agent does.
  @Test func aSecondAgentAsksUntilTheHolderStops() throws {
    let directory = TemporaryDirectory()
    let path = directory.file("agent.sock")
    let holder = open(path + ".lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
    #expect(holder >= 0 && flock(holder, LOCK_EX) == 0)
    let fake = try Self.listen(at: path)
    let asked = Counter()
    Thread {
      for answer in [false, true] {
        let client = accept(fake, nil, nil)
        _ = AgentProtocol.read(client, count: AgentProtocol.headerBytes, timeout: 2)
        _ = asked.next()
        if answer {
          close(holder)
          unlink(path)
          AgentProtocol.write(client, AgentProtocol.frame(AgentProtocol.Code.ok.rawValue, []))
        }
        close(client)
      }
      close(fake)
    }.start()
    let second = try Running(idle: 600, lifetime: 7200, socket: path)
    #expect(asked.next() == 3)
    #expect(second.askForKey() == second.key)
    #expect(second.client.lock())
    #expect(second.ended())
  }

  /// An agent whose vault's agent lock stays taken (an agent that does not answer) binds
  /// nothing and says so, leaving the path as it was; once the lock is free, it binds.
  @Test func aSecondAgentWaitsOnlySoLong() throws {
    let directory = TemporaryDirectory()
    let path = directory.file("agent.sock")
    let holder = open(path + ".lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
    #expect(holder >= 0 && flock(holder, LOCK_EX) == 0)
    #expect(FileManager.default.createFile(atPath: path, contents: Data("kept".utf8)))
    let agent = Agent(
      vaultID: [UInt8](repeating: 0x42, count: 16), dataKey: try SecureBytes(count: 32),
      idleTimeout: 600, lifetime: 7200, socketPath: path)
    #expect(throws: AgentError.stillRunning) { try agent.bind(waitingUpTo: 0.1) }
    #expect(FileManager.default.contents(atPath: path) == Data("kept".utf8))
    close(holder)
    let next = try Running(idle: 600, lifetime: 7200, socket: path)
    #expect(next.askForKey() == next.key)
    #expect(next.client.lock())
    #expect(next.ended())
  }

  /// A key past its time is not handed out even when its time passes while the request is
  /// being read: here the clock passes the lifetime right after the check the agent makes
  /// as it accepts the request (its third reading of the clock, after its start and the
  /// top of its loop).
  @Test func noKeyWhenTimeRunsOutDuringTheRequest() throws {
    let readings = Counter()
    let start = TestClock.reference
    let agent = try Running(idle: 600, lifetime: 7200) {
      readings.next() <= 3 ? start : start + 7201
    }
    #expect(agent.askForKey() == nil)
    // Already when the client finds the agent gone, not later.
    #expect(agent.wiped)
    #expect(!FileManager.default.fileExists(atPath: agent.socket))
    #expect(agent.ended())
  }

  /// So for its status: an agent whose time ran out while the request was read says
  /// nothing (the client finds it locked), never "unlocked, 0 s left".
  @Test func noStatusWhenTimeRunsOutDuringTheRequest() throws {
    let readings = Counter()
    let start = TestClock.reference
    let agent = try Running(idle: 600, lifetime: 7200) {
      readings.next() <= 3 ? start : start + 7201
    }
    #expect(agent.client.status() == nil)
    #expect(agent.wiped)
    #expect(agent.ended())
  }

  /// Counts, from one, across threads.
  final class Counter: @unchecked Sendable {
    private var count = 0
    private let lock = NSLock()
    func next() -> Int {
      lock.lock()
      defer { lock.unlock() }
      count += 1
      return count
    }
  }

  /// A secret crosses the socket from guarded memory into guarded memory: what is sent is
  /// what arrives, as SecureBytes, and a short one is refused.
  @Test func secretFramesStayInGuardedMemory() throws {
    var pair: [Int32] = [0, 0]
    #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0)
    defer { pair.forEach { close($0) } }
    let secret = try SecureBytes(copying: (0..<32).map { UInt8(255 - $0) })
    AgentProtocol.send(pair[0], code: .ok, secret: secret)
    let header = try #require(
      AgentProtocol.read(pair[1], count: AgentProtocol.headerBytes, timeout: 1))
    #expect(header == AgentProtocol.header(AgentProtocol.Code.ok.rawValue, count: 32))
    let received: SecureBytes = try #require(
      AgentProtocol.receiveSecret(pair[1], count: 32, timeout: 1))
    #expect(received.withUnsafeBytes { Array($0) } == (0..<32).map { UInt8(255 - $0) })
    AgentProtocol.writeAll(pair[0], [1, 2, 3])
    #expect(AgentProtocol.receiveSecret(pair[1], count: 32, timeout: 0.2) == nil)
  }
}

/// Hands a value to another thread that alone uses it from then on.
struct UncheckedBox<Value>: @unchecked Sendable {
  let value: Value
  init(_ value: Value) { self.value = value }
}
