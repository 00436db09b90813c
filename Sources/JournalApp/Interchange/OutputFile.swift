import Glibc
import JournalDiagnostics
import JournalSystem

/// Where a streamed export goes: standard output, or a file the person names (created new,
/// 0600, never through a symbolic link, never over an existing file), in plaintext or, with
/// age recipients, encrypted by age on the way (the plaintext only ever in a pipe). Bytes
/// are gathered into 64 KiB and written; the buffer is wiped after each write. The file is
/// made without a name (O_TMPFILE) and named only once finished and on disk, so no half
/// export is left behind, whatever ends the export: an error, Ctrl-C, a closed terminal, a
/// kill. On a file system that makes no unnamed files (FAT, some network ones) it is made
/// by its name, and removed when an error ends the export (not when a signal does).
public final class OutputFile {
  /// Standard output, or the path of a new file.
  public enum Destination: Sendable {
    case standardOutput
    case file(String)
  }

  private let destination: Destination
  private let fd: Int32
  /// age encrypting on the way, when there are recipients: the buffer goes into its pipe.
  private let encryption: AgeRecipients.Encryption?
  private var buffer: [UInt8] = []
  /// Whether the file this made is to be removed when it goes (not finished). False until
  /// the file is made: a file that was already there is never touched.
  private var removeFile = false
  /// Whether the file was made without a name, to be named `path` once finished.
  private var unnamed = false
  private let environment: [String: String]
  private static let chunk = 64 * 1024

  public init(
    _ destination: Destination, encryptingTo recipients: AgeRecipients? = nil,
    environment: [String: String] = [:]
  ) throws {
    self.destination = destination
    self.environment = environment
    switch destination {
    case .standardOutput:
      fd = -1
    case .file(let path):
      // Said at once, before anything is exported (the name is taken only at the end).
      var info = stat()
      if lstat(path, &info) == 0 { throw AppError.outputExists(path: path) }
      var made = FileSafety.openUnnamed(in: FileSafety.parentDirectory(of: path))
      // It is named through /proc/self/fd at the end: without /proc (a bare chroot), the
      // export would fail only then, whole. Made by its name instead.
      var code = errno
      if made >= 0, access("/proc/self/fd/\(made)", F_OK) != 0 {
        close(made)
        made = -1
        code = EOPNOTSUPP
      }
      if made >= 0 {
        fd = made
        unnamed = true
      } else if FileSafety.noUnnamedFiles(code) {
        fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
          if errno == EEXIST { throw AppError.outputExists(path: path) }
          throw AppError.outputUnwritable(path: path, errno: errno)
        }
        removeFile = true
      } else {
        throw AppError.outputUnwritable(path: path, errno: code)
      }
    }
    if let recipients, !recipients.isEmpty {
      // age going first would break the pipe mid-write: that ends the export, not journal.
      previousPipeHandler = signal(SIGPIPE, SIG_IGN)
      do {
        encryption = try recipients.start(
          writingTo: fd >= 0 ? fd : STDOUT_FILENO, environment: environment)
      } catch {
        // deinit does not run for an init that throws: the file made is removed here.
        signal(SIGPIPE, previousPipeHandler)
        if case .file(let path) = destination {
          close(fd)
          if removeFile { unlink(path) }
        }
        throw error
      }
    } else {
      encryption = nil
    }
    buffer.reserveCapacity(Self.chunk)
  }

  /// SIGPIPE's handler before age was started, put back when done.
  private var previousPipeHandler: __sighandler_t?

  /// Writes `bytes` (once 64 KiB have gathered).
  public func write(_ bytes: [UInt8]) throws {
    buffer.append(contentsOf: bytes)
    if buffer.count >= Self.chunk { try flush() }
  }

  /// Writes what is left and, for a file, makes it durable and closes it.
  public func finish() throws {
    try flush()
    try encryption?.finish()
    restorePipeHandler()
    guard case .file(let path) = destination else { return }
    let named = unnamed
    removeFile = false
    unnamed = false
    defer { close(fd) }
    guard fsync(fd) == 0 else {
      let code = errno
      if !named { unlink(path) }
      throw AppError.outputUnwritable(path: path, errno: code)
    }
    guard named else { return }
    CrashPoint.reached("output-before-name", environment: environment)
    // Named only now, whole and on disk; never over what came to the name meanwhile.
    let code = FileSafety.name(fd, as: path)
    if code == EEXIST { throw AppError.outputExists(path: path) }
    if code != 0 { throw AppError.outputUnwritable(path: path, errno: code) }
  }

  deinit {
    wipe()
    encryption?.abandon()
    restorePipeHandler()
    guard case .file(let path) = destination, removeFile || unnamed else { return }
    close(fd)
    // An unnamed file goes with its descriptor.
    if removeFile { unlink(path) }
  }

  private func flush() throws {
    defer { wipe() }
    if let encryption {
      guard (try? Descriptor(encryption.input).writeAll(buffer)) != nil else {
        // age stopped reading: its own exit status says why (141 if it left none).
        try encryption.finish()
        throw AppError.ageFailed(status: 141)
      }
      return
    }
    switch destination {
    case .standardOutput:
      try Runtime.output(buffer)
    case .file(let path):
      do throws(Descriptor.Failure) {
        try Descriptor(fd).writeAll(buffer)
      } catch {
        throw AppError.outputUnwritable(path: path, errno: error.errno)
      }
    }
  }

  private func restorePipeHandler() {
    guard let previous = previousPipeHandler else { return }
    signal(SIGPIPE, previous)
    previousPipeHandler = nil
  }

  /// Zeros the buffer (it held plaintext) and empties it, keeping its capacity.
  private func wipe() {
    for index in buffer.indices { buffer[index] = 0 }
    buffer.removeAll(keepingCapacity: true)
  }
}
