import Foundation
import Glibc
import JournalCore
import JournalCrypto
import JournalSystem

/// The unlock agent's wire format (SECURITY.md, "The unlock agent"), version 1.
///
/// request  = "JRNA" ‖ version (1) ‖ command (1) ‖ length (2, little-endian) ‖ payload
/// response = "JRNA" ‖ version (1) ‖ code (1)    ‖ length (2, little-endian) ‖ payload
///
/// Payloads are at most 64 bytes; anything longer, shorter, or of another version is
/// answered with an error code and the connection closed.
public enum AgentProtocol {
  public static let magic: [UInt8] = Array("JRNA".utf8)
  public static let version: UInt8 = 1
  public static let headerBytes = 8
  public static let maximumPayload = 64

  public enum Command: UInt8 {
    /// Payload: the vault id (16). Answer: the data key (32).
    case keys = 1
    /// No payload. Answer: idle seconds left (4, LE) ‖ lifetime seconds left (4, LE).
    case status = 2
    /// No payload. The agent wipes its key and exits.
    case lock = 3
    /// Payload: a ledger's generation (8, LE) ‖ tag (32), as a journal just found the vault.
    /// Answer: the latest the agent has been told of (the same 40 bytes), after taking this
    /// one if it is later.
    case witness = 4
  }

  /// Bytes of a witness payload: generation (8) ‖ tag (32).
  public static let witnessBytes = 40

  /// What `journal agent-serve` says to `unlock` on standard output once its socket is
  /// bound; or, six bytes too, that another agent of the vault did not stop (AgentError
  /// .stillRunning).
  public static let readyLine = "ready\n"
  public static let stillRunningLine = "other\n"

  public enum Code: UInt8, Sendable {
    case ok = 0
    /// The agent holds the key of another vault.
    case otherVault = 1
    case malformed = 2
    case unsupportedVersion = 3
    /// The peer is not the agent's user.
    case refused = 4
  }

  public static func frame(_ kind: UInt8, _ payload: [UInt8]) -> [UInt8] {
    header(kind, count: payload.count) + payload
  }

  /// A frame's 8 header bytes, for a payload of `count` bytes (at most `maximumPayload`).
  public static func header(_ kind: UInt8, count: Int) -> [UInt8] {
    var out = magic + [version, kind]
    out.append(littleEndian: UInt16(truncatingIfNeeded: count))
    return out
  }

  /// The payload length a frame's header names (its last 2 bytes, little-endian); 0 for a
  /// header that is not 8 bytes.
  public static func payloadLength(_ header: [UInt8]) -> Int {
    header.withUnsafeBytes { raw in
      var reader = ByteReader(raw, from: 6)
      guard header.count == headerBytes, let length = try? reader.littleEndian(UInt16.self)
      else { return 0 }
      return Int(length)
    }
  }

  /// Sends an answer whose payload is a secret: the header, then the secret straight from
  /// guarded memory (SecureBytes), never through an ordinary buffer.
  public static func send(_ fd: Int32, code: Code, secret: SecureBytes) {
    write(fd, header(code.rawValue, count: secret.count))
    secret.withUnsafeBytes { sendAll(fd, $0) }
  }

  /// Reads a payload of exactly `count` bytes within `timeout` seconds straight into guarded
  /// memory; nil on timeout, EOF or error (the partial secret is wiped with its buffer).
  public static func receiveSecret(_ fd: Int32, count: Int, timeout: Double) -> SecureBytes? {
    guard let secret = try? SecureBytes(count: count) else { return nil }
    let complete = secret.withUnsafeMutableBytes { readExactly(fd, into: $0, timeout: timeout) }
    return complete ? secret : nil
  }

  /// The socket of the agent holding the key of the vault `vaultID`, in the private runtime
  /// directory: one agent per unlocked vault, so unlocking one never locks another.
  public static func socketPath(environment: [String: String], vaultID: [UInt8]) throws -> String {
    try RuntimeDirectory.resolve(environment: environment) + "/" + socketName(vaultID: vaultID)
  }

  /// `agent-<vault id in hex>.sock`.
  public static func socketName(vaultID: [UInt8]) -> String {
    "agent-" + Hex.lowercase(vaultID) + ".sock"
  }

  /// Every agent socket in the runtime directory: each unlocked vault's, and the single
  /// `agent.sock` of journal versions that held one vault at a time.
  public static func socketPaths(environment: [String: String]) throws -> [String] {
    socketPaths(in: try RuntimeDirectory.resolve(environment: environment))
  }

  /// Every agent socket in `directory`, as `socketPaths(environment:)`.
  public static func socketPaths(in directory: String) -> [String] {
    let names = (try? FileSafety.names(in: directory)) ?? []
    return names.filter {
      $0 == legacySocketName || ($0.hasPrefix("agent-") && $0.hasSuffix(".sock"))
    }
    .sorted().map { directory + "/" + $0 }
  }

  /// The one socket of journal versions that held one vault at a time: its agent may hold
  /// any vault's key.
  public static let legacySocketName = "agent.sock"

  // MARK: - Sockets

  public static func address(_ path: String) -> sockaddr_un? {
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return nil }
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
      raw.copyBytes(from: bytes)
      raw[bytes.count] = 0
    }
    return address
  }

  /// Reads exactly `count` bytes within `timeout` seconds; nil on timeout, EOF or error.
  public static func read(_ fd: Int32, count: Int, timeout: Double) -> [UInt8]? {
    var buffer = [UInt8](repeating: 0, count: count)
    let complete = buffer.withUnsafeMutableBytes { readExactly(fd, into: $0, timeout: timeout) }
    return complete ? buffer : nil
  }

  /// Fills `buffer` from `fd` within `timeout` seconds; false on timeout, EOF or error.
  static func readExactly(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, timeout: Double)
    -> Bool
  {
    var offset = 0
    let deadline = Deadline(in: timeout)
    while offset < buffer.count {
      // A wait with a deadline, so not Descriptor's: poll again after a signal, but only for
      // what is left of the same deadline (millisecondsLeft), so signals cannot stretch it.
      var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
      let ready = poll(&descriptor, 1, deadline.millisecondsLeft)
      if ready < 0 && errno == EINTR { continue }
      guard ready > 0,
        let got = try? Descriptor(fd).read(
          into: UnsafeMutableRawBufferPointer(rebasing: buffer[offset...])),
        got > 0
      else { return false }
      offset += got
    }
    return true
  }

  /// Writes all of `bytes` to a pipe or file.
  public static func writeAll(_ fd: Int32, _ bytes: [UInt8]) {
    bytes.withUnsafeBytes { writeAll(fd, $0) }
  }

  /// Writes all of a buffer (guarded memory included, without copying it) to a pipe or file.
  public static func writeAll(_ fd: Int32, _ buffer: UnsafeRawBufferPointer) {
    try? Descriptor(fd).writeAll(buffer)
  }

  /// Sends all of `bytes` on a socket (no SIGPIPE if the peer has gone).
  public static func write(_ fd: Int32, _ bytes: [UInt8]) {
    bytes.withUnsafeBytes { sendAll(fd, $0) }
  }

  static func sendAll(_ fd: Int32, _ buffer: UnsafeRawBufferPointer) {
    try? Descriptor(fd).sendAll(buffer)
  }
}
