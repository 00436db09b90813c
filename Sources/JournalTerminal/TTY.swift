import Glibc
import JournalCrypto

/// The controlling terminal, opened as /dev/tty so that prompts never mix with stdout and
/// answers never come from a pipe. Falls back to standard input when that is a terminal but
/// the process has no controlling one (started with setsid).
///
/// Whenever the terminal's mode is changed (no echo for a passphrase, character-at-a-time
/// for long texts), SIGINT, SIGTERM, SIGHUP and SIGQUIT restore it before the process ends.
public final class TTY: Terminal {
  private let fd: Int32
  public let presentation: Presentation

  /// The most bytes a passphrase may have. Generous for diceware; bounded for guarded memory.
  public static let maximumSecretBytes = 1024

  private init(fd: Int32, presentation: Presentation) {
    self.fd = fd
    self.presentation = presentation
  }

  deinit { close(fd) }

  /// The terminal, or nil when there is none (a pipe, cron, CI).
  public static func open(environment: [String: String], plain: Bool) -> TTY? {
    var fd = Glibc.open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)
    if fd < 0, isatty(STDIN_FILENO) != 0, let name = ttyname(STDIN_FILENO) {
      // No O_NOCTTY: a session leader without a terminal (started with setsid) takes this
      // one as its controlling terminal, so Ctrl-C reaches it as SIGINT.
      fd = Glibc.open(name, O_RDWR | O_CLOEXEC)
    }
    guard fd >= 0 else { return nil }
    let presentation = Presentation(
      plain: plain, colour: Presentation.colourAllowed(environment: environment),
      width: Presentation.width(of: fd, environment: environment))
    return TTY(fd: fd, presentation: presentation)
  }

  /// The terminal's file descriptor, for a program that takes it over (the editor).
  public var descriptor: Int32 { fd }

  /// A line to show if a signal ends the process from here on (nil: none).
  public func setInterruptNote(_ text: String?) {
    TerminalRestore.setNote(text, fd: fd)
  }

  public func write(_ text: String) {
    var bytes = Array(text.utf8)
    writeAll(&bytes)
  }

  public func readLine(prompt: String) throws -> String {
    write(prompt)
    var line: [UInt8] = []
    while true {
      let byte = try readByte()
      if byte == 0x0A { break }
      line.append(byte)
    }
    if line.last == 0x0D { line.removeLast() }
    return String(decoding: line, as: UTF8.self)
  }

  public func readSecret(prompt: String) throws -> SecureBytes {
    let secret = try SecureBytes(count: Self.maximumSecretBytes)
    var length = 0
    try withMode({
      $0.c_lflag &= ~tcflag_t(ECHO); $0.c_lflag |= tcflag_t(ECHONL)
    }) {
      // The prompt only once echo is off, so nothing typed ahead of it is ever shown.
      write(prompt)
      try secret.withUnsafeMutableBytes { buffer in
        while true {
          let byte = try readByte()
          if byte == 0x0A { break }
          guard length < buffer.count else {
            // Drain the rest of the line so it is not read as the next answer.
            while try readByte() != 0x0A {}
            throw TerminalError.secretTooLong(maximum: Self.maximumSecretBytes)
          }
          buffer[length] = byte
          length += 1
        }
        if length > 0, buffer[length - 1] == 0x0D { length -= 1 }
      }
    }
    return try secret.prefix(length)
  }

  public func readText(prompt: String) throws -> String {
    var text: [UInt8] = []
    var lineStart = 0
    // Character at a time, our own echo: a canonical-mode line is capped at 4095 bytes by
    // the kernel, and a pasted paragraph can be longer.
    try withMode({
      $0.c_lflag &= ~tcflag_t(ICANON | ECHO); setMinimumRead(&$0)
    }) {
      // The prompt only once the mode is set: text pasted as soon as it shows must not meet
      // the canonical line limit (or be echoed twice).
      write(prompt)
      var chunk = [UInt8](repeating: 0, count: 4096)
      var escape = false
      reading: while true {
        let count = try readChunk(&chunk)
        var echo: [UInt8] = []
        for byte in chunk[0..<count] {
          if escape {
            // Skip escape sequences (arrow keys): ESC [ … final byte in 0x40–0x7E.
            if (0x40...0x7E).contains(byte) && byte != 0x5B { escape = false }
            continue
          }
          switch byte {
          case 0x04:  // Ctrl-D
            break reading
          case 0x0D, 0x0A:
            if text.count - lineStart == 1, text.last == 0x2E {  // a line holding only "."
              text.removeLast()
              echo += [0x0D, 0x0A]
              writeAll(&echo)
              break reading
            }
            text.append(0x0A)
            lineStart = text.count
            echo += [0x0D, 0x0A]
          case 0x7F, 0x08:  // Backspace: remove one character of the current line.
            guard text.count > lineStart else { continue }
            while let last = text.last, text.count > lineStart, last & 0xC0 == 0x80 {
              text.removeLast()
            }
            if text.count > lineStart { text.removeLast() }
            echo += [0x08, 0x20, 0x08]
          case 0x15:  // Ctrl-U: clear the current line.
            let removed = text.count - lineStart
            text.removeLast(removed)
            // Plain mode moves no cursor: the cleared line stays on screen, marked, and
            // typing goes on below it.
            if removed > 0 {
              echo += presentation.plain ? Array(" ^U\r\n".utf8) : [0x0D, 0x1B, 0x5B, 0x4B]
            }
          case 0x1B:
            escape = true
          case 0x09, 0x20...0xFF:
            text.append(byte)
            echo.append(byte)
          default:
            continue
          }
        }
        writeAll(&echo)
      }
    }
    write("\n")
    return String(decoding: text, as: UTF8.self)
  }

  /// The slider: ← → (or h l, ↑ ↓) move, a digit jumps (0 is 10), Enter or Tab chooses,
  /// Backspace or "-" clears an optional mood. One line, redrawn in place. Plain mode gets
  /// the numbered prompt instead.
  public func readMood(_ question: MoodQuestion) throws -> String {
    guard !presentation.plain else { return try readMoodPlainly(question) }
    var slider = MoodSlider(question: question)
    return try withMode({
      $0.c_lflag &= ~tcflag_t(ICANON | ECHO); setMinimumRead(&$0)
    }) {
      writeWrapped("  " + slider.help, indent: "    ")
      write(slider.line(width: presentation.width ?? 80, colour: presentation.colour))
      var buffer = [UInt8](repeating: 0, count: 64)
      while true {
        let count = try readChunk(&buffer)
        var keys = buffer[0..<count].makeIterator()
        var finished = false
        while let key = keys.next(), !finished {
          switch key {
          case 0x04:  // Ctrl-D: end the slider's line, so the message after it starts clean
            write("\n")
            throw TerminalError.stopped
          case 0x1B:  // ESC [ C / D / A / B: the arrow keys
            let intro = keys.next()
            guard intro == 0x5B || intro == 0x4F, let code = keys.next() else { continue }
            switch code {
            case 0x43, 0x41: slider.step(1)
            case 0x44, 0x42: slider.step(-1)
            default: continue
            }
          default: finished = slider.press(key)
          }
        }
        write(
          "\r\u{1B}[K" + slider.line(width: presentation.width ?? 80, colour: presentation.colour))
        if finished {
          write("\n")
          return slider.answer
        }
      }
    }
  }

  /// Waits up to `timeout` seconds for one key press, without echo or Enter. Returns the
  /// bytes of the key (an arrow key is several), or nil when the time ran out.
  public func waitForKey(timeout: Double) throws -> [UInt8]? {
    try withMode({
      $0.c_lflag &= ~tcflag_t(ICANON | ECHO); setMinimumRead(&$0)
    }) {
      var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
      let milliseconds = Int32(max(0, min(timeout, 3600)) * 1000)
      let ready = poll(&descriptor, 1, milliseconds)
      guard ready > 0 else { return nil }
      var buffer = [UInt8](repeating: 0, count: 16)
      let count = try readChunk(&buffer)
      return Array(buffer[0..<count])
    }
  }

  // MARK: - Bytes

  private func readByte() throws -> UInt8 {
    var byte: UInt8 = 0
    while true {
      let count = Glibc.read(fd, &byte, 1)
      if count == 1 { return byte }
      if count == 0 { throw TerminalError.stopped }
      if errno != EINTR { throw TerminalError.stopped }
    }
  }

  private func readChunk(_ buffer: inout [UInt8]) throws -> Int {
    while true {
      let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
      if count > 0 { return count }
      if count == 0 { throw TerminalError.stopped }
      if errno != EINTR { throw TerminalError.stopped }
    }
  }

  private func writeAll(_ bytes: inout [UInt8]) {
    var offset = 0
    while offset < bytes.count {
      let written = bytes.withUnsafeBytes {
        let rest = UnsafeRawBufferPointer(rebasing: $0[offset...])
        return Glibc.write(fd, rest.baseAddress, rest.count)
      }
      if written < 0 && errno == EINTR { continue }
      guard written > 0 else { return }
      offset += written
    }
  }

  // MARK: - Modes

  private func withMode<R>(_ change: (inout termios) -> Void, _ body: () throws -> R) throws -> R {
    var original = termios()
    guard tcgetattr(fd, &original) == 0 else { return try body() }
    var changed = original
    change(&changed)
    TerminalRestore.arm(fd: fd, state: original)
    tcsetattr(fd, TCSANOW, &changed)
    defer {
      tcsetattr(fd, TCSANOW, &original)
      TerminalRestore.disarm()
    }
    return try body()
  }
}

private func setMinimumRead(_ state: inout termios) {
  // VMIN = 1, VTIME = 0: read returns as soon as one byte is there.
  withUnsafeMutableBytes(of: &state.c_cc) { cc in
    cc[Int(VMIN)] = 1
    cc[Int(VTIME)] = 0
  }
}

/// Restores the terminal's mode when a signal ends the process mid-prompt.
enum TerminalRestore {
  nonisolated(unsafe) private static var fd: Int32 = -1
  nonisolated(unsafe) private static var state = termios()
  nonisolated(unsafe) private static var armed = false
  nonisolated(unsafe) private static var installed = false

  static func arm(fd: Int32, state: termios) {
    Self.fd = fd
    Self.state = state
    armed = true
    installHandlers()
  }

  static func disarm() { armed = false }

  nonisolated(unsafe) private static var note: UnsafeMutablePointer<UInt8>?
  nonisolated(unsafe) private static var noteLength = 0
  nonisolated(unsafe) private static var noteFD: Int32 = -1

  static func setNote(_ text: String?, fd: Int32) {
    let old = note
    note = nil
    old?.deallocate()
    guard let text else { return }
    let bytes = Array(text.utf8)
    let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: bytes.count)
    buffer.initialize(from: bytes, count: bytes.count)
    noteLength = bytes.count
    noteFD = fd
    note = buffer
    installHandlers()
  }

  private static func installHandlers() {
    guard !installed else { return }
    installed = true
    for signalNumber in [SIGINT, SIGTERM, SIGHUP, SIGQUIT] {
      signal(signalNumber, restoreAndReraise)
    }
  }

  fileprivate static func restore() {
    if armed {
      tcsetattr(fd, TCSANOW, &state)
      var newline: UInt8 = 0x0A
      _ = Glibc.write(fd, &newline, 1)
    }
    if let note { _ = Glibc.write(noteFD, note, noteLength) }
  }
}

// Only async-signal-safe calls: tcsetattr, write, signal, raise.
private func restoreAndReraise(_ signalNumber: Int32) {
  TerminalRestore.restore()
  signal(signalNumber, SIG_DFL)
  raise(signalNumber)
}
