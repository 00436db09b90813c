import CJournalSystem
import Foundation
import Glibc
import JournalCrypto
import JournalStore
import JournalSystem

/// The unlock agent: one process per user holding one vault's data key in guarded memory,
/// answering only processes of its own user (SO_PEERCRED), until its idle timeout, its
/// maximum lifetime, `journal lock`, or SIGTERM/SIGINT/SIGHUP — each of which wipes the key.
public final class Agent {
  private let vaultID: [UInt8]
  private let dataKey: SecureBytes
  private let idleTimeout: TimeInterval
  private let deadline: Date
  private var idleDeadline: Date
  private let socketPath: String
  private var listener: Int32 = -1

  public init(
    vaultID: [UInt8], dataKey: SecureBytes, idleTimeout: TimeInterval, lifetime: TimeInterval,
    socketPath: String
  ) {
    self.vaultID = vaultID
    self.dataKey = dataKey
    self.idleTimeout = idleTimeout
    self.deadline = Date().addingTimeInterval(lifetime)
    self.idleDeadline = Date().addingTimeInterval(min(idleTimeout, lifetime))
    self.socketPath = socketPath
  }

  /// Binds the socket (0600, in the private runtime directory), replacing a stale one.
  public func bind() throws {
    unlink(socketPath)
    guard var address = AgentProtocol.address(socketPath) else {
      throw AppError.internalError("socket path too long")
    }
    listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard listener >= 0 else { throw StoreError.io(path: socketPath, errno: errno) }
    let previous = umask(0o177)
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        Glibc.bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
      }
    }
    umask(previous)
    guard bound == 0, listen(listener, 16) == 0 else {
      throw StoreError.io(path: socketPath, errno: errno)
    }
    chmod(socketPath, 0o600)
  }

  /// Serves until a timeout, a lock or a signal; then wipes the key and removes the socket.
  public func serve() {
    StopSignal.install()
    defer { shutdown() }
    while !StopSignal.requested {
      let now = Date()
      let end = min(deadline, idleDeadline)
      guard now < end else { return }
      // The signal handler also writes to a pipe watched here, so a signal arriving just
      // before poll still wakes it at once.
      var descriptors = [
        pollfd(fd: listener, events: Int16(POLLIN), revents: 0),
        pollfd(fd: StopSignal.wakeFD, events: Int16(POLLIN), revents: 0),
      ]
      let wait = Int32(min(end.timeIntervalSince(now), 60) * 1000) + 1
      let ready = poll(&descriptors, 2, wait)
      guard ready > 0, descriptors[0].revents & Int16(POLLIN) != 0 else { continue }
      let client = accept(listener, nil, nil)
      guard client >= 0 else { continue }
      _ = fcntl(client, F_SETFD, FD_CLOEXEC)
      let keepGoing = handle(client)
      close(client)
      if !keepGoing { return }
    }
  }

  /// Answers one request. Returns false when the agent should stop (lock).
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
    let length = Int(header[6]) | Int(header[7]) << 8
    guard length <= AgentProtocol.maximumPayload,
      let command = AgentProtocol.Command(rawValue: header[5])
    else {
      AgentProtocol.write(client, AgentProtocol.frame(AgentProtocol.Code.malformed.rawValue, []))
      return true
    }
    let payload = length == 0 ? [] : AgentProtocol.read(client, count: length, timeout: 1)
    guard let payload else {
      AgentProtocol.write(client, AgentProtocol.frame(AgentProtocol.Code.malformed.rawValue, []))
      return true
    }
    switch command {
    case .keys:
      guard payload == vaultID else {
        AgentProtocol.write(client, AgentProtocol.frame(AgentProtocol.Code.otherVault.rawValue, []))
        return true
      }
      idleDeadline = min(deadline, Date().addingTimeInterval(idleTimeout))
      var frame = dataKey.withUnsafeBytes {
        AgentProtocol.frame(AgentProtocol.Code.ok.rawValue, Array($0))
      }
      AgentProtocol.write(client, frame)
      wipe(&frame)
    case .status:
      let now = Date()
      let idle = UInt32(max(0, min(idleDeadline, deadline).timeIntervalSince(now)))
      let life = UInt32(max(0, deadline.timeIntervalSince(now)))
      let bytes =
        (0..<4).map { UInt8(truncatingIfNeeded: idle >> (8 * $0)) }
        + (0..<4).map { UInt8(truncatingIfNeeded: life >> (8 * $0)) }
      AgentProtocol.write(client, AgentProtocol.frame(AgentProtocol.Code.ok.rawValue, bytes))
    case .lock:
      AgentProtocol.write(client, AgentProtocol.frame(AgentProtocol.Code.ok.rawValue, []))
      return false
    }
    return true
  }

  private func shutdown() {
    dataKey.wipe()
    close(listener)
    unlink(socketPath)
  }
}
