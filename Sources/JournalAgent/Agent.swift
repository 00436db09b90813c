import CJournalSystem
import Foundation
import Glibc
import JournalCore
import JournalCrypto
import JournalSystem

/// The unlock agent: one process per unlocked vault holding its data key in guarded memory,
/// answering only processes of its own user (SO_PEERCRED), until its idle timeout, its
/// maximum lifetime, `journal lock`, or SIGTERM/SIGINT/SIGHUP — each of which wipes the key.
public final class Agent {
  private let vaultID: [UInt8]
  private let dataKey: SecureBytes
  private var lifetime: AgentLifetime
  private let now: @Sendable () -> Date
  private let socketPath: String
  private var listener: Int32 = -1
  /// The vault's agent lock (`<socket>.lock`), held from before the bind until the key is
  /// wiped and the socket gone: one agent per vault at a time.
  private var lockFile: Int32 = -1
  /// The socket file this agent bound (device and inode): the only one it ever removes.
  private var socketFile: FileIdentity?
  /// The latest ledger stamp of the vault a journal reported (`witness`), held in memory only.
  private var seen: [UInt8]?

  /// An agent for `dataKey`, living by `now` (the real clock; tests hand it one they move).
  public init(
    vaultID: [UInt8], dataKey: SecureBytes, idleTimeout: TimeInterval, lifetime: TimeInterval,
    socketPath: String, now: @escaping @Sendable () -> Date = { Date() }
  ) {
    self.vaultID = vaultID
    self.dataKey = dataKey
    self.now = now
    self.lifetime = AgentLifetime(started: now(), idle: idleTimeout, maximum: lifetime)
    self.socketPath = socketPath
  }

  /// `journal agent-serve`: reads the vault id (16 bytes) and the data key (32) from standard
  /// input straight into guarded memory (never argv, never an ordinary buffer), binds the
  /// socket, says "ready" on standard output, lets go of the terminal's descriptors, and
  /// serves until its time is up.
  public static func serveFromStandardInput(
    idle: TimeInterval, lifetime: TimeInterval, environment: [String: String]
  ) throws {
    // A write to a reader that has gone (`unlock`, having given up) fails rather than ends
    // the process: the failure is handled (its socket removed, its key wiped), not skipped.
    signal(SIGPIPE, SIG_IGN)
    let material = try SecureBytes(count: 48)
    let filled = material.withUnsafeMutableBytes { buffer in
      (try? Descriptor.standardInput.readFully(into: buffer)) ?? 0
    }
    guard filled == 48 else { throw AgentError.notStarted }
    let vaultID = material.withUnsafeBytes { Array($0.prefix(16)) }
    let dataKey = try SecureBytes(count: 32)
    dataKey.withUnsafeMutableBytes { out in
      material.withUnsafeBytes {
        out.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[16...]))
      }
    }
    material.wipe()
    let agent = Agent(
      vaultID: vaultID, dataKey: dataKey, idleTimeout: idle, lifetime: lifetime,
      socketPath: try AgentProtocol.socketPath(environment: environment, vaultID: vaultID))
    do {
      try agent.bind()
    } catch AgentError.stillRunning {
      // Said to `unlock`, which waits on this line: its own error, not "did not start".
      dataKey.wipe()
      AgentProtocol.writeAll(STDOUT_FILENO, Array(AgentProtocol.stillRunningLine.utf8))
      throw AgentError.stillRunning
    }
    // `unlock` gone before the line reached it (it gave up waiting) said the journal stays
    // locked: so it does, even where SIGPIPE is ignored and the write merely fails.
    guard (try? Descriptor(STDOUT_FILENO).writeAll(Array(AgentProtocol.readyLine.utf8))) != nil
    else {
      agent.shutdown()
      throw AgentError.notStarted
    }
    let null = open("/dev/null", O_RDWR)
    for fd in [STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO] { dup2(null, fd) }
    close(null)
    agent.serve()
  }

  /// Takes the vault's agent lock, then binds the socket (0600, in the private runtime
  /// directory), replacing a stale one. An agent of the same vault still running (two
  /// `journal unlock` at once, or one busy when `unlock` asked it to lock) is asked to lock
  /// and waited for, up to `wait` seconds: without the lock, this agent's socket would take
  /// the path from under that one, which would go on holding the key out of `journal
  /// lock`'s reach.
  public func bind(waitingUpTo wait: TimeInterval = 5) throws {
    precondition(lockFile < 0 && listener < 0, "an agent binds once")
    guard var address = AgentProtocol.address(socketPath) else {
      throw AgentError.socketPathTooLong(path: socketPath)
    }
    try takeLock(waitingUpTo: wait)
    unlink(socketPath)
    listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard listener >= 0 else { throw notBound(errno) }
    let previous = umask(0o177)
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        Glibc.bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
      }
    }
    umask(previous)
    guard bound == 0, listen(listener, 16) == 0 else { throw notBound(errno) }
    chmod(socketPath, 0o600)
    socketFile = FileIdentity(path: socketPath)
  }

  /// A bind that failed after the agent lock was taken: the lock and the socket let go of.
  private func notBound(_ code: Int32) -> AgentError {
    if listener >= 0 { close(listener) }
    listener = -1
    close(lockFile)
    lockFile = -1
    return AgentError.socket(path: socketPath, errno: code)
  }

  /// The vault's agent lock file, beside its socket.
  static func lockPath(_ socketPath: String) -> String { socketPath + ".lock" }

  /// Checks the agent lock file of the socket `socketPath` as an agent takes it
  /// (FileSafety.exclusiveLock: made if missing, never through a symbolic link, a private
  /// regular file of this user), without keeping it: so that `unlock` says what is wrong
  /// with it (a directory, a link, a file not private) rather than only that the agent,
  /// whose errors reach no one, did not start. Whether it was free: no agent of this vault
  /// holds it.
  @discardableResult
  public static func checkLock(socketPath: String) throws -> Bool {
    guard let fd = try FileSafety.exclusiveLock(lockPath(socketPath), wait: false) else {
      return false
    }
    close(fd)
    return true
  }

  /// The agent lock: a private file beside the socket (FileSafety.exclusiveLock), never
  /// removed (removing it would let a waiting agent and a new one each lock a different
  /// file), locked with `flock` for this agent's life. The system lets go of it however the
  /// process ends.
  private func takeLock(waitingUpTo wait: TimeInterval) throws {
    let path = Self.lockPath(socketPath)
    let deadline = Deadline(in: wait)
    var tries = 0
    while true {
      if let fd = try FileSafety.exclusiveLock(path, wait: false) {
        // Still the file at the path: not one removed or replaced meanwhile, which another
        // agent could lock as well.
        guard FileIdentity(path: path) == FileIdentity(descriptor: fd) else {
          close(fd)
          throw AgentError.socket(path: path, errno: ESTALE)
        }
        lockFile = fd
        return
      }
      guard !deadline.hasPassed else { throw AgentError.stillRunning }
      // Only an agent holding the lock binds, so whatever answers at the path holds it.
      // Asked again every 100 ms: the holder may not have bound yet (two agents starting at
      // once), or another agent's lock may have reached it first. Once it has let go, the
      // lock is taken at once, even past the deadline.
      if tries % 10 == 0, AgentClient(socketPath: socketPath).lock() { continue }
      tries += 1
      usleep(10_000)
    }
  }

  /// Serves until a timeout, a lock or a signal; then wipes the key and removes the socket.
  public func serve() {
    StopSignal.install()
    defer { shutdown() }
    while !StopSignal.requested {
      // Checked at every wake, before any request is answered: a key past its time is never
      // handed out, however late the request or the wake-up.
      let instant = now()
      guard !lifetime.isOver(at: instant), reachable else { return }
      // The signal handler also writes to a pipe watched here, so a signal arriving just
      // before poll still wakes it at once.
      var descriptors = [
        pollfd(fd: listener, events: Int16(POLLIN), revents: 0),
        pollfd(fd: StopSignal.wakeFD, events: Int16(POLLIN), revents: 0),
      ]
      let wait = Int32(min(lifetime.deadline.timeIntervalSince(instant), 2) * 1000) + 1
      let ready = poll(&descriptors, 2, wait)
      guard ready > 0, descriptors[0].revents & Int16(POLLIN) != 0 else { continue }
      guard !lifetime.isOver(at: now()) else { return }
      let client = accept(listener, nil, nil)
      guard client >= 0 else { continue }
      _ = fcntl(client, F_SETFD, FD_CLOEXEC)
      guard handle(client) else {
        // Stopping: the key is wiped and the socket gone before the client sees the end.
        shutdown()
        close(client)
        return
      }
      close(client)
    }
  }

  /// Whether this agent's socket and agent lock are still the files it made. Its socket
  /// removed or replaced (or the whole runtime directory, as at logout) leaves it out of
  /// `journal lock`'s reach; its lock file removed lets another agent of the vault start.
  /// Either way it ends, at its next wake (2 s at most: well within the 5 s a new agent of
  /// the vault waits for it).
  private var reachable: Bool {
    guard let socketFile, FileIdentity(path: socketPath) == socketFile else { return false }
    return FileIdentity(path: Self.lockPath(socketPath)) == FileIdentity(descriptor: lockFile)
  }

  /// Answers one request. Returns false when the agent should stop: a lock (answered after
  /// the shutdown), or any other request read once its time is up or a stop signal came
  /// (not answered).
  private func handle(_ client: Int32) -> Bool {
    var uid: UInt32 = 0
    guard journal_peer_uid(client, &uid) == 0, uid == getuid() else {
      AgentProtocol.write(client, AgentProtocol.frame(AgentProtocol.Code.refused.rawValue, []))
      return true
    }
    // One second to send a request: a stuck client cannot hold the agent.
    guard let header = AgentProtocol.read(client, count: AgentProtocol.headerBytes, timeout: 1),
      Array(header[0..<4]) == AgentProtocol.magic
    else {
      AgentProtocol.write(client, AgentProtocol.frame(AgentProtocol.Code.malformed.rawValue, []))
      return true
    }
    guard header[4] == AgentProtocol.version else {
      AgentProtocol.write(
        client, AgentProtocol.frame(AgentProtocol.Code.unsupportedVersion.rawValue, []))
      return true
    }
    let length = AgentProtocol.payloadLength(header)
    guard length <= AgentProtocol.maximumPayload,
      let command = AgentProtocol.Command(rawValue: header[5])
    else {
      AgentProtocol.write(client, AgentProtocol.frame(AgentProtocol.Code.malformed.rawValue, []))
      Self.drain(client)
      return true
    }
    let payload = length == 0 ? [] : AgentProtocol.read(client, count: length, timeout: 1)
    guard let payload else {
      AgentProtocol.write(client, AgentProtocol.frame(AgentProtocol.Code.malformed.rawValue, []))
      return true
    }
    // Checked again after the request's reads (up to a second each): past its time, or
    // after a stop signal, the agent answers nothing but ends, and the client finds it
    // locked. A key is never handed out then, nor a status that says unlocked.
    let instant = now()
    guard command == .lock || (!StopSignal.requested && !lifetime.isOver(at: instant)) else {
      return false
    }
    switch command {
    case .keys:
      // A vault id is 16 bytes: anything else is a malformed request, not another vault.
      guard payload.count == vaultID.count else {
        AgentProtocol.write(client, AgentProtocol.frame(AgentProtocol.Code.malformed.rawValue, []))
        return true
      }
      guard payload == vaultID else {
        AgentProtocol.write(client, AgentProtocol.frame(AgentProtocol.Code.otherVault.rawValue, []))
        return true
      }
      lifetime.used(at: instant)
      // The key goes from guarded memory to the socket; no ordinary buffer ever holds it.
      AgentProtocol.send(client, code: .ok, secret: dataKey)
    case .status:
      let (idle, life) = lifetime.remaining(at: instant)
      var bytes: [UInt8] = []
      bytes.append(littleEndian: idle)
      bytes.append(littleEndian: life)
      AgentProtocol.write(client, AgentProtocol.frame(AgentProtocol.Code.ok.rawValue, bytes))
    case .lock:
      // The key wiped and the socket gone before the answer: when `journal lock` says
      // locked, it is, however late this process is scheduled after writing.
      shutdown()
      AgentProtocol.write(client, AgentProtocol.frame(AgentProtocol.Code.ok.rawValue, []))
      return false
    case .witness:
      guard payload.count == AgentProtocol.witnessBytes else {
        AgentProtocol.write(client, AgentProtocol.frame(AgentProtocol.Code.malformed.rawValue, []))
        return true
      }
      // The latest state of the vault any journal has told this agent of: a vault put back
      // whole while unlocked is older than it, even if the record on disk went back too.
      if seen.map({ Self.generation($0) < Self.generation(payload) }) ?? true { seen = payload }
      AgentProtocol.write(client, AgentProtocol.frame(AgentProtocol.Code.ok.rawValue, seen ?? []))
    }
    return true
  }

  /// After an error answer to a request whose payload was not read: reads what the client
  /// sent, for at most a second and 64 KiB, so that closing does not reset the connection
  /// (a close with unread data sends a reset, which can discard the answer before the client
  /// reads it).
  static func drain(_ client: Int32) {
    Glibc.shutdown(client, Int32(SHUT_WR))
    var buffer = [UInt8](repeating: 0, count: 4096)
    var total = 0
    let deadline = Deadline(in: 1)
    while total < 65536 {
      var descriptor = pollfd(fd: client, events: Int16(POLLIN), revents: 0)
      guard poll(&descriptor, 1, deadline.millisecondsLeft) > 0 else { return }
      let count = Glibc.read(client, &buffer, buffer.count)
      guard count > 0 else { return }
      total += count
    }
  }

  /// The generation of a witness payload (its first 8 bytes, little-endian; 0 when shorter).
  static func generation(_ payload: [UInt8]) -> UInt64 {
    payload.withUnsafeBytes { raw in
      var reader = ByteReader(raw)
      return (try? reader.littleEndian(UInt64.self)) ?? 0
    }
  }

  /// Wipes the key, removes the socket, stops listening, then lets go of the agent lock: a
  /// client that finds this agent gone finds its path gone too, and the next agent of the
  /// vault binds only then. Only the socket file this agent bound is removed, and only
  /// once: should another process have put its own at the path, `journal lock` must still
  /// reach it.
  private func shutdown() {
    dataKey.wipe()
    guard listener >= 0 else { return }
    if let socketFile, FileIdentity(path: socketPath) == socketFile { unlink(socketPath) }
    close(listener)
    listener = -1
    close(lockFile)
    lockFile = -1
  }
}
