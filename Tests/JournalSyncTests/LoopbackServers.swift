import Foundation
import Glibc

/// A TCP listener on 127.0.0.1 with a port of its own, handing each connection to a thread of
/// its own; closing it closes every connection it made.
final class Loopback: @unchecked Sendable {
  // @unchecked: `sockets` and `closed` are guarded by `lock`.
  let port: UInt16
  private let listener: Int32
  private let lock = NSLock()
  private var sockets: [Int32] = []
  private var closed = false

  init(_ serve: @escaping @Sendable (Int32, Loopback) -> Void) {
    let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = Self.loopback(port: 0)
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        _ = bind(listener, $0, length)
        _ = getsockname(listener, $0, &length)
      }
    }
    _ = Glibc.listen(listener, 16)
    self.listener = listener
    port = UInt16(bigEndian: address.sin_port)
    Thread.detachNewThread { [self] in
      while true {
        let client = accept(listener, nil, nil)
        guard client >= 0, track(client) else { return }
        Thread.detachNewThread { serve(client, self) }
      }
    }
  }

  deinit { close() }

  static func loopback(port: UInt16) -> sockaddr_in {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = port.bigEndian
    return address
  }

  /// A connection to 127.0.0.1:`port`, closed with this listener (nil if refused).
  func connect(to port: UInt16) -> Int32? {
    let server = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = Self.loopback(port: port)
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        Glibc.connect(server, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard connected == 0, track(server) else {
      Glibc.close(server)
      return nil
    }
    return server
  }

  /// Keeps a socket to close with the listener; false (and closed) once it is closed.
  private func track(_ socket: Int32) -> Bool {
    lock.lock()
    defer { lock.unlock() }
    if closed {
      Glibc.close(socket)
      return false
    }
    sockets.append(socket)
    return true
  }

  /// Stops listening and closes every connection.
  func close() {
    lock.lock()
    let all = sockets
    let wasClosed = closed
    closed = true
    sockets = []
    lock.unlock()
    guard !wasClosed else { return }
    shutdown(listener, Int32(SHUT_RDWR))
    Glibc.close(listener)
    for socket in all {
      shutdown(socket, Int32(SHUT_RDWR))
      Glibc.close(socket)
    }
  }

  /// Reads exactly `count` bytes (nil at the end or on an error).
  static func read(_ socket: Int32, _ count: Int) -> [UInt8]? {
    var bytes = [UInt8](repeating: 0, count: count)
    var done = 0
    while done < count {
      let n = bytes.withUnsafeMutableBytes { buffer -> Int in
        guard let base = buffer.baseAddress else { return -1 }
        return recv(socket, base + done, count - done, 0)
      }
      guard n > 0 else { return nil }
      done += n
    }
    return bytes
  }

  /// Reads what comes (nil at the end or on an error).
  static func readSome(_ socket: Int32) -> [UInt8]? {
    var bytes = [UInt8](repeating: 0, count: 65536)
    let n = bytes.withUnsafeMutableBytes { buffer -> Int in
      guard let base = buffer.baseAddress else { return -1 }
      return recv(socket, base, buffer.count, 0)
    }
    return n > 0 ? Array(bytes[0..<n]) : nil
  }

  static func write(_ socket: Int32, _ bytes: [UInt8]) {
    var done = 0
    while done < bytes.count {
      let n = bytes.withUnsafeBytes { buffer -> Int in
        guard let base = buffer.baseAddress else { return -1 }
        return send(socket, base + done, bytes.count - done, Int32(MSG_NOSIGNAL))
      }
      guard n > 0 else { return }
      done += n
    }
  }
}

/// A proxy in front of the test PostgreSQL, as a network or a middlebox between a device and
/// its server would be: it forwards (`forward`); or forwards a connection until the server is
/// ready for its first statement, then goes silent with the connection left open
/// (`stallAfterHandshake`); or takes connections and never says a word (`silent`). The mode
/// a connection gets is the one set when it came.
final class StallingProxy: @unchecked Sendable {
  enum Mode { case forward, stallAfterHandshake, silent }

  /// The mode, shared with the listener's threads.
  private final class State: @unchecked Sendable {
    // @unchecked: `mode` is guarded by `lock`.
    let lock = NSLock()
    var mode = Mode.forward
    var current: Mode {
      lock.lock()
      defer { lock.unlock() }
      return mode
    }
  }

  /// Set by one thread, read by another: a connection gone silent.
  private final class Flag: @unchecked Sendable {
    // @unchecked: a plain flag, written once from false to true.
    var raised = false
  }

  private let state = State()
  private let loopback: Loopback
  var port: UInt16 { loopback.port }

  init(to target: UInt16) {
    let state = self.state
    loopback = Loopback { client, loopback in
      let mode = state.current
      guard mode != .silent, let server = loopback.connect(to: target) else {
        while Loopback.readSome(client) != nil {}
        return
      }
      let stalled = Flag()
      Thread.detachNewThread {
        // Device to server: forwarded until the connection stalls, then read and dropped.
        while let bytes = Loopback.readSome(client) {
          if !stalled.raised { Loopback.write(server, bytes) }
        }
      }
      // Server to device, message by message: after the first ReadyForQuery, silence.
      while !stalled.raised {
        guard let head = Loopback.read(server, 5) else { return }
        let length = Int(head[1]) << 24 | Int(head[2]) << 16 | Int(head[3]) << 8 | Int(head[4])
        guard length >= 4, let body = Loopback.read(server, length - 4) else { return }
        Loopback.write(client, head + body)
        if mode == .stallAfterHandshake && head[0] == UInt8(ascii: "Z") { stalled.raised = true }
      }
      while Loopback.readSome(server) != nil {}
    }
  }

  /// The mode new connections get.
  func set(_ mode: Mode) {
    state.lock.lock()
    state.mode = mode
    state.lock.unlock()
  }

  func close() { loopback.close() }
}

/// A PostgreSQL server of its own making on loopback, as a hostile one would be: it answers
/// the connection with `duringConnection` (notices, an error: any messages), and, if it let
/// the device in, every statement with `perStatement` and ReadyForQuery.
final class FakePostgres: @unchecked Sendable {
  private let loopback: Loopback
  var port: UInt16 { loopback.port }

  init(duringConnection: [UInt8], perStatement: [UInt8] = []) {
    loopback = Loopback { client, _ in
      // SSLRequest and GSSENCRequest are declined; then the startup message.
      while true {
        guard let head = Loopback.read(client, 8) else { return }
        let length = Int(head[0]) << 24 | Int(head[1]) << 16 | Int(head[2]) << 8 | Int(head[3])
        let code = Int(head[4]) << 24 | Int(head[5]) << 16 | Int(head[6]) << 8 | Int(head[7])
        if code == 80_877_103 || code == 80_877_104 {
          Loopback.write(client, [UInt8(ascii: "N")])
          continue
        }
        guard length >= 8, Loopback.read(client, length - 8) != nil else { return }
        break
      }
      Loopback.write(client, duringConnection)
      while let head = Loopback.read(client, 5) {
        let length = Int(head[1]) << 24 | Int(head[2]) << 16 | Int(head[3]) << 8 | Int(head[4])
        guard length >= 4, Loopback.read(client, length - 4) != nil else { return }
        if head[0] == UInt8(ascii: "X") { return }
        Loopback.write(client, perStatement + Self.message("Z", [UInt8(ascii: "I")]))
      }
    }
  }

  func close() { loopback.close() }

  /// One message: its type, its length, its body.
  static func message(_ type: Character, _ body: [UInt8]) -> [UInt8] {
    let length = UInt32(body.count + 4)
    return [UInt8(ascii: type.unicodeScalars.first ?? "?")]
      + withUnsafeBytes(of: length.bigEndian) { Array($0) } + body
  }

  /// A NoticeResponse ("N") or ErrorResponse ("E") with these fields (code: value).
  static func fields(_ type: Character, _ fields: [(Character, String)]) -> [UInt8] {
    var body: [UInt8] = []
    for (code, value) in fields {
      body += [UInt8(ascii: code.unicodeScalars.first ?? "M")] + Array(value.utf8) + [0]
    }
    return message(type, body + [0])
  }

  /// AuthenticationOk: libpq takes notices from here on.
  static let authenticated = message("R", [0, 0, 0, 0])

  /// The parameters libpq reads, a BackendKeyData and ReadyForQuery: the device is in.
  static let ready =
    [
      ("server_version", "15.0"), ("client_encoding", "UTF8"),
      ("standard_conforming_strings", "on"),
    ]
    .flatMap { message("S", Array($0.0.utf8) + [0] + Array($0.1.utf8) + [0]) }
    + message("K", [0, 0, 0, 1, 0, 0, 0, 2]) + message("Z", [UInt8(ascii: "I")])
}
