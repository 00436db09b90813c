import Glibc
import JournalCrypto
import JournalDiagnostics
import JournalSystem
import JournalTerminal

/// Where a passphrase comes from. Never the command line: argv is visible to every user on
/// the machine through /proc and ends up in shell history.
public enum PassphraseSource: Sendable, Equatable {
  /// Asked on the terminal without echo.
  case terminal
  /// The first line of a file (0600, owned by the user).
  case file(String)
  /// Everything readable from an open file descriptor, up to its first newline.
  case descriptor(Int32)
  /// The first line a shell command prints (`pass show journal`).
  case command(String)

  /// Picks the source: a flag first, then JOURNAL_PASSPHRASE_FD, JOURNAL_PASSPHRASE_FILE,
  /// JOURNAL_PASSPHRASE_COMMAND, then the terminal if there is one.
  public static func choose(
    file: String?, descriptor: Int32?, environment: [String: String], hasTerminal: Bool
  ) -> PassphraseSource? {
    if let file { return .file(file) }
    if let descriptor { return .descriptor(descriptor) }
    if let text = environment["JOURNAL_PASSPHRASE_FD"], let fd = Int32(text) {
      return .descriptor(fd)
    }
    if let path = environment["JOURNAL_PASSPHRASE_FILE"], !path.isEmpty { return .file(path) }
    if let command = environment["JOURNAL_PASSPHRASE_COMMAND"], !command.isEmpty {
      return .command(command)
    }
    return hasTerminal ? .terminal : nil
  }

  /// Reads the passphrase into guarded memory.
  public func read(prompt: String, terminal: (any Terminal)?) throws -> SecureBytes {
    let secret: SecureBytes
    switch self {
    case .terminal:
      guard let terminal else { throw AppError.noPassphraseSource }
      secret = try terminal.readSecret(prompt: prompt)
    case .file(let path):
      // Opened without blocking: a FIFO (or a device) in its place would otherwise wait for
      // a writer for ever. Only a regular file is read; a pipe is what --passphrase-fd is for.
      let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)
      guard fd >= 0 else { throw AppError.passphraseFileUnreadable(path: path, errno: errno) }
      defer { close(fd) }
      var info = stat()
      guard fstat(fd, &info) == 0 else {
        throw AppError.passphraseFileUnreadable(path: path, errno: errno)
      }
      guard info.st_mode & S_IFMT == S_IFREG else {
        throw AppError.passphraseFileNotRegular(path: path)
      }
      guard info.st_mode & 0o077 == 0 else {
        throw AppError.passphraseFileUnsafe(path: path, mode: info.st_mode & 0o777)
      }
      _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
      secret = try Self.readFirstLine(fd)
    case .descriptor(let fd):
      guard fcntl(fd, F_GETFD) >= 0 else { throw AppError.passphraseDescriptorUnreadable(fd: fd) }
      secret = try Self.readFirstLine(fd)
      // Read: no program journal starts (an editor, the pager, age) inherits it.
      _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
    case .command(let command):
      secret = try Self.run(command, timeout: Self.commandTimeout)
    }
    guard secret.count > 0 else { throw AppError.emptyPassphrase }
    return secret
  }

  /// How long a passphrase command may take to print its line: long enough for a person to
  /// answer the pinentry it may show, short enough that a command that never ends does not
  /// hold journal (and a timer's run) for ever. Debug builds take
  /// JOURNAL_DEBUG_PASSPHRASE_TIMEOUT (seconds), for the tests.
  static var commandTimeout: Double {
    #if DEBUG
      if let text = getenv("JOURNAL_DEBUG_PASSPHRASE_TIMEOUT"),
        let seconds = Double(String(cString: text))
      {
        return seconds
      }
    #endif
    return 120
  }

  /// Reads up to the first newline (or end of file) straight into guarded memory; with a
  /// `timeout` (seconds, on the monotonic clock), gives up when nothing more came by then.
  static func readFirstLine(_ fd: Int32, timeout: Double? = nil) throws -> SecureBytes {
    let buffer = try SecureBytes(count: TTY.maximumSecretBytes + 2)
    var length = 0
    var sawNewline = false
    let deadline = timeout.map { Deadline(in: $0) }
    try buffer.withUnsafeMutableBytes { bytes in
      while length < bytes.count {
        if let deadline {
          // A wait with a deadline, so not Descriptor's: poll again after a signal, but only
          // for what is left of the same deadline, so signals cannot stretch it.
          var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
          let ready = poll(&poller, 1, deadline.millisecondsLeft)
          if ready < 0 && errno == EINTR { continue }
          guard ready > 0 else {
            throw AppError.passphraseCommandTimedOut(seconds: Int(timeout ?? 0))
          }
        }
        let rest = UnsafeMutableRawBufferPointer(rebasing: bytes[length...])
        guard let count = try? Descriptor(fd).read(into: rest) else {
          throw AppError.passphraseDescriptorUnreadable(fd: fd)
        }
        if count == 0 { break }
        if let newline = bytes[length..<(length + count)].firstIndex(of: 0x0A) {
          length = newline
          sawNewline = true
          break
        }
        length += count
      }
      if !sawNewline && length == bytes.count {
        throw AppError.passphraseTooLong(maximum: TTY.maximumSecretBytes)
      }
      if length > 0, bytes[length - 1] == 0x0D { length -= 1 }
    }
    guard length <= TTY.maximumSecretBytes else {
      throw AppError.passphraseTooLong(maximum: TTY.maximumSecretBytes)
    }
    return try buffer.prefix(length)
  }

  /// Runs `/bin/sh -c command` with its stdout on a pipe read into guarded memory. Its stdin
  /// and stderr are ours, so a pinentry or an error message reaches the person.
  static func run(_ command: String, timeout: Double) throws -> SecureBytes {
    var pipeFDs: [Int32] = [0, 0]
    guard pipe(&pipeFDs) == 0 else { throw AppError.passphraseCommandFailed(status: -1) }
    for fd in pipeFDs { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
    let started = Subprocess.start(
      ["/bin/sh", "-c", command], redirects: [.duplicate(pipeFDs[1], onto: STDOUT_FILENO)])
    close(pipeFDs[1])
    defer { close(pipeFDs[0]) }
    guard let pid = started else { throw AppError.passphraseCommandFailed(status: -1) }
    let secret: SecureBytes
    do {
      secret = try readFirstLine(pipeFDs[0], timeout: timeout)
    } catch {
      kill(pid, SIGTERM)
      _ = Subprocess.wait(pid, timeout: 2)
      throw error
    }
    // Drain anything after the first line so the command can finish writing.
    var sink = [UInt8](repeating: 0, count: 512)
    while Glibc.read(pipeFDs[0], &sink, sink.count) > 0 {}
    let exit = Subprocess.wait(pid)
    guard exit == 0 else { throw AppError.passphraseCommandFailed(status: exit) }
    return secret
  }

}
