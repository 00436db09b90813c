import Glibc
import SystemPackage

/// The one way journal reads and writes a descriptor it holds: swift-system's
/// `FileDescriptor`, whose reads and writes retry when a signal interrupts them (EINTR: the
/// SIGCHLD of a child, a SIGWINCH), with the loops every caller needs on top. A failure is
/// the errno (`Descriptor.Failure`), for each caller to name in its own error.
///
/// Not for a read that a signal must end (the terminal's, which SIGINT or SIGHUP stops) or a
/// wait with a deadline: those wait in `poll` themselves, and say why beside it.
public struct Descriptor: Sendable {
  /// A read or write failed: the errno it failed with (never EINTR).
  public struct Failure: Error, Equatable, Sendable {
    public let errno: Int32

    public init(errno: Int32) { self.errno = errno }
  }

  /// The descriptor's number (not owned: never closed here).
  public let raw: Int32

  public init(_ raw: Int32) { self.raw = raw }

  public static let standardInput = Descriptor(STDIN_FILENO)

  private var descriptor: FileDescriptor { FileDescriptor(rawValue: raw) }

  /// Reads once, what is there, up to `buffer`'s size: how many bytes; 0 at the end.
  public func read(into buffer: UnsafeMutableRawBufferPointer) throws(Failure) -> Int {
    do {
      return try descriptor.read(into: buffer, retryOnInterrupt: true)
    } catch {
      throw Failure(errno: (error as? Errno)?.rawValue ?? EIO)
    }
  }

  /// Reads until `buffer` is full or the input ends: how many bytes.
  public func readFully(into buffer: UnsafeMutableRawBufferPointer) throws(Failure) -> Int {
    var filled = 0
    while filled < buffer.count {
      let count = try read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled...]))
      guard count > 0 else { break }
      filled += count
    }
    return filled
  }

  /// Reads to the end, in chunks, stopping once more than `limit` bytes came (the bytes then
  /// hold `limit` + 1 or more: the caller tells "too long" from "whole").
  public func readAll(limit: Int) throws(Failure) -> [UInt8] {
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: min(max(limit + 1, 1), 65_536))
    while bytes.count <= limit {
      // Array's withUnsafe… rethrow untyped: the Result keeps the error's type.
      let count = try chunk.withUnsafeMutableBytes { buffer in
        Result { () throws(Failure) in try read(into: buffer) }
      }.get()
      guard count > 0 else { break }
      bytes += chunk[0..<count]
    }
    return bytes
  }

  /// Writes all of `bytes`.
  public func writeAll(_ bytes: [UInt8]) throws(Failure) {
    try bytes.withUnsafeBytes { buffer in Result { () throws(Failure) in try writeAll(buffer) } }
      .get()
  }

  /// Writes all of `buffer` (guarded memory included, without copying it).
  public func writeAll(_ buffer: UnsafeRawBufferPointer) throws(Failure) {
    var written = 0
    while written < buffer.count {
      let count: Int
      do {
        count = try descriptor.write(
          UnsafeRawBufferPointer(rebasing: buffer[written...]), retryOnInterrupt: true)
      } catch {
        throw Failure(errno: (error as? Errno)?.rawValue ?? EIO)
      }
      // write(2) never takes nothing of a non-empty buffer; if it did, it would not move.
      guard count > 0 else { throw Failure(errno: EIO) }
      written += count
    }
  }

  /// Sends all of `buffer` on a socket, without SIGPIPE when the peer has gone (EPIPE then).
  public func sendAll(_ buffer: UnsafeRawBufferPointer) throws(Failure) {
    var sent = 0
    while sent < buffer.count {
      let count = SystemCall.retrying {
        Glibc.send(
          raw, buffer.baseAddress.map { $0 + sent }, buffer.count - sent, Int32(MSG_NOSIGNAL))
      }
      guard count >= 0 else { throw Failure(errno: errno) }
      guard count > 0 else { throw Failure(errno: EIO) }
      sent += count
    }
  }
}
