import CJournalSystem
import Foundation
import Glibc
import JournalCore
import JournalCrypto
import JournalSystem

/// Asks the unlock agent for a vault's keys, its status, or to lock. For a key, every
/// failure (no agent, a stale socket, another vault, a refusal) is simply "no answer": the
/// caller falls back to the passphrase, silently. A lock or a status tells an agent that is
/// there and does not answer (it may hold its key) from none.
public struct AgentClient {
  public let socketPath: String

  /// A client of the agent of the vault `vaultID`, if there is a private runtime directory.
  public init?(environment: [String: String], vaultID: [UInt8]) {
    guard let path = try? AgentProtocol.socketPath(environment: environment, vaultID: vaultID)
    else { return nil }
    socketPath = path
  }

  /// A client of the agent listening at `socketPath`.
  public init(socketPath: String) {
    self.socketPath = socketPath
  }

  /// The vault's keys, if the agent holds them.
  public func keys(vaultID: [UInt8]) -> VaultKeys? {
    // The key is read from the socket straight into guarded memory: no ordinary buffer,
    // so nothing to wipe afterwards and no copy left behind.
    guard
      let secret = exchange(
        .keys, vaultID,
        answer: { fd, code, length -> SecureBytes? in
          guard code == .ok, length == SecretBox.keyBytes else { return nil }
          return AgentProtocol.receiveSecret(fd, count: length, timeout: 2)
        })
    else { return nil }
    return try? VaultKeys.restore(vaultID: vaultID, dataKey: secret)
  }

  /// Seconds until the idle timeout and until the end of the agent's life; nil when locked.
  /// `whenSilent` is told of an agent that took the request and said nothing within two
  /// seconds (stopped, or hung; it may still hold its key), with its process id if known.
  public func status(whenSilent: (Int32?) -> Void = { _ in }) -> (idle: Int, lifetime: Int)? {
    guard let (code, payload) = request(.status, [], whenSilent: whenSilent), code == .ok,
      payload.count == 8
    else {
      return nil
    }
    return payload.withUnsafeBytes { raw in
      var reader = ByteReader(raw)
      guard let idle = try? reader.littleEndian(UInt32.self),
        let lifetime = try? reader.littleEndian(UInt32.self)
      else { return nil }
      return (Int(idle), Int(lifetime))
    }
  }

  /// Tells the agent the vault's ledger stamp as just found, and returns the latest stamp it
  /// has been told of (this one, or a later one); nil when there is no answer.
  public func witness(generation: UInt64, tag: [UInt8]) -> (generation: UInt64, tag: [UInt8])? {
    var payload: [UInt8] = []
    payload.append(littleEndian: generation)
    payload += tag
    guard payload.count == AgentProtocol.witnessBytes,
      let (code, answer) = request(.witness, payload), code == .ok,
      answer.count == AgentProtocol.witnessBytes
    else { return nil }
    return (Agent.generation(answer), Array(answer[8...]))
  }

  /// What asking an agent to lock found.
  public enum LockAnswer: Sendable, Equatable {
    /// It wiped its key and stopped.
    case locked
    /// Nothing there: no socket, a stale one, or an agent that ended as it was asked.
    case nobody
    /// An agent took the request, or its queue is full, and did not stop: it said nothing
    /// within two seconds (stopped, or hung), or answered with an error. It may still hold
    /// its key. `process`: its id, when the kernel could say (not for a full queue).
    case notStopped(process: Int32?)
  }

  /// Asks the vault's agents in every runtime directory of this user
  /// (`RuntimeDirectory.everyExisting`), not only this environment's, to wipe the key and
  /// stop, and the single agent of an earlier journal version in each (it may hold this
  /// vault's key); throws `AgentError.notAnswering` naming those that did not. One that does
  /// not answer may only be busy for a moment (with a client it waits on): asked again for
  /// some 5 s, as a new agent asks an old one. For what must leave no copy of a key anywhere
  /// (a key change).
  public static func stopEverywhere(environment: [String: String], vaultID: [UInt8]) throws {
    let names = [AgentProtocol.socketName(vaultID: vaultID), AgentProtocol.legacySocketName]
    var asked = RuntimeDirectory.everyExisting(environment: environment).flatMap { directory in
      names.map { directory + "/" + $0 }
    }
    let deadline = Deadline(in: 5)
    while true {
      let notStopped = asked.compactMap { path -> (path: String, process: Int32?)? in
        guard case .notStopped(let process) = AgentClient(socketPath: path).lockAnswer()
        else { return nil }
        return (path, process)
      }
      if notStopped.isEmpty { return }
      guard !deadline.hasPassed else {
        throw AgentError.notAnswering(
          count: notStopped.count, processes: notStopped.compactMap(\.process))
      }
      asked = notStopped.map(\.path)
      usleep(100_000)
    }
  }

  /// Asks every agent of this environment's runtime directory (each unlocked vault's) to
  /// wipe its key and stop: the vaults whose agent did (their socket names), and the
  /// processes of those that did not (`LockAnswer.notStopped`), nil where the kernel did not
  /// say.
  public static func lockAll(environment: [String: String]) -> (
    locked: Set<String>, notStopped: [Int32?]
  ) {
    lock((try? AgentProtocol.socketPaths(environment: environment)) ?? [])
  }

  /// Asks every agent in each of the user's other runtime directories
  /// (`RuntimeDirectory.everyExisting`, this environment's left out) to wipe its key and
  /// stop, as `lockAll` asks in this one: one started in another session (a desktop's, while
  /// this runs over ssh) holds its vault's key too.
  public static func lockElsewhere(environment: [String: String]) -> (
    locked: Set<String>, notStopped: [Int32?]
  ) {
    lock(
      RuntimeDirectory.everyExisting(environment: environment, othersOnly: true).flatMap {
        AgentProtocol.socketPaths(in: $0)
      })
  }

  /// Asks the agent of `vaultID` in every runtime directory of this user, this environment's
  /// among them, to wipe its key and stop, as `lockAll` asks (`journal lock --vault`).
  public static func lockVault(environment: [String: String], vaultID: [UInt8]) -> (
    locked: Set<String>, notStopped: [Int32?]
  ) {
    let name = AgentProtocol.socketName(vaultID: vaultID)
    return lock(RuntimeDirectory.everyExisting(environment: environment).map { $0 + "/" + name })
  }

  /// What the agent of `vaultID` in the user's other runtime directories says of its time
  /// left, as `status` asks (the one that locks last, should there be more); nil when none
  /// holds the key. `whenSilent` is told of each that took the request and said nothing.
  public static func statusElsewhere(
    environment: [String: String], vaultID: [UInt8], whenSilent: (Int32?) -> Void
  ) -> (idle: Int, lifetime: Int)? {
    let name = AgentProtocol.socketName(vaultID: vaultID)
    return RuntimeDirectory.everyExisting(environment: environment, othersOnly: true)
      .compactMap { AgentClient(socketPath: $0 + "/" + name).status(whenSilent: whenSilent) }
      .max { $0.idle < $1.idle }
  }

  /// Asks the agent at each of `paths` to lock: the socket names of those that did, the
  /// processes of those that did not.
  private static func lock(_ paths: [String]) -> (locked: Set<String>, notStopped: [Int32?]) {
    var locked: Set<String> = []
    var notStopped: [Int32?] = []
    for path in paths {
      switch AgentClient(socketPath: path).lockAnswer() {
      case .locked: locked.insert(String(path.split(separator: "/").last ?? ""))
      case .nobody: break
      case .notStopped(let process): notStopped.append(process)
      }
    }
    return (locked, notStopped)
  }

  /// Asks the agent to wipe its key and stop. Returns whether one was running.
  @discardableResult
  public func lock() -> Bool { lockAnswer() == .locked }

  /// Asks the agent to wipe its key and stop, and throws `AgentError.notAnswering` for one
  /// that did not (it may still hold its key). Returns whether one was running.
  @discardableResult
  public func stop() throws -> Bool {
    switch lockAnswer() {
    case .locked: return true
    case .nobody: return false
    case .notStopped(let process): throw AgentError.notAnswering(process: process)
    }
  }

  /// Asks the agent to wipe its key and stop, telling an agent that did not from none at
  /// all.
  public func lockAnswer() -> LockAnswer {
    var there: LockAnswer = .nobody
    let code = exchange(.lock, [], whenSilent: { there = .notStopped(process: $0) }) {
      fd, code, _ in
      if code != .ok { there = .notStopped(process: Self.peerProcess(fd)) }
      return code
    }
    return code == .ok ? .locked : there
  }

  /// The process at the other end of a connected socket (SO_PEERCRED), if the kernel says.
  static func peerProcess(_ fd: Int32) -> Int32? {
    var pid: Int32 = 0
    return journal_peer_pid(fd, &pid) == 0 && pid > 0 ? pid : nil
  }

  func request(
    _ command: AgentProtocol.Command, _ payload: [UInt8],
    whenSilent: (Int32?) -> Void = { _ in }
  ) -> (AgentProtocol.Code, [UInt8])? {
    exchange(command, payload, whenSilent: whenSilent) { fd, code, length in
      guard length > 0 else { return (code, []) }
      guard let body = AgentProtocol.read(fd, count: length, timeout: 2) else { return nil }
      return (code, body)
    }
  }

  /// Sends one request and reads the answer's header; `answer` reads the payload.
  /// `whenSilent` is called, with the agent's process id when the kernel says it, when an
  /// agent is there and does not answer: nothing within two seconds (the connect, or the
  /// answer's first byte), or something that is not an answer of this version; not when it
  /// ends without an answer.
  func exchange<Answer>(
    _ command: AgentProtocol.Command, _ payload: [UInt8], whenSilent: (Int32?) -> Void = { _ in },
    answer: (Int32, AgentProtocol.Code, Int) -> Answer?
  ) -> Answer? {
    // The socket must be ours: in our private directory, owned by us, a socket.
    var info = stat()
    guard lstat(socketPath, &info) == 0, info.st_mode & S_IFMT == S_IFSOCK, info.st_uid == getuid(),
      var address = AgentProtocol.address(socketPath)
    else { return nil }
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    // A connect to an agent whose queue is full (one stopped, or hung, with clients that
    // gave up still queued) waits for room: two seconds at most, as the answer does.
    var timeout = timeval(tv_sec: 2, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
      }
    }
    guard connected == 0 else {
      if errno == EAGAIN { whenSilent(nil) }
      return nil
    }
    AgentProtocol.write(fd, AgentProtocol.frame(command.rawValue, payload))
    // The first byte of the answer, or the agent's end (it ended as it was asked, or did
    // not take the request), within two seconds; nothing at all is a silent agent.
    let deadline = Deadline(in: 2)
    var ready: Int32
    repeat {
      var readable = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
      ready = poll(&readable, 1, deadline.millisecondsLeft)
    } while ready < 0 && errno == EINTR
    guard ready > 0 else {
      whenSilent(Self.peerProcess(fd))
      return nil
    }
    // An agent that ended closed the connection: nothing to read. One that sent anything
    // is there, and anything but a whole answer of this version is not an answer.
    var first: UInt8 = 0
    guard recv(fd, &first, 1, Int32(MSG_PEEK)) == 1 else { return nil }
    guard let header = AgentProtocol.read(fd, count: AgentProtocol.headerBytes, timeout: 2),
      Array(header[0..<4]) == AgentProtocol.magic, header[4] == AgentProtocol.version,
      let code = AgentProtocol.Code(rawValue: header[5]),
      AgentProtocol.payloadLength(header) <= AgentProtocol.maximumPayload
    else {
      whenSilent(Self.peerProcess(fd))
      return nil
    }
    return answer(fd, code, AgentProtocol.payloadLength(header))
  }
}
