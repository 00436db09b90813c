import Glibc
import JournalCrypto

/// The controlling terminal, opened as /dev/tty so that prompts never mix with stdout and
/// answers never come from a pipe. Falls back to standard input when that is a terminal but
/// the process has no controlling one (started with setsid).
///
/// Whenever the terminal's mode is changed (no echo for a passphrase, character-at-a-time
/// for long texts), SIGINT, SIGTERM, SIGHUP and SIGQUIT restore it before the process ends,
/// as do a closed output pipe (SIGPIPE) and a crash; Ctrl-Z gives the shell the terminal as
/// it was, and continuing gives journal its mode again.
///
/// One owner for the whole run: the terminal is opened once, by the first `open`, and its
/// descriptor stays open until the process ends, so that the flush of unread input at every
/// exit (`discardPendingInput`, and the signal handlers) always reaches it. Closed early,
/// the flush failed (EBADF) and a line pasted behind the passphrase ran in the shell.
public final class TTY: Terminal {
  private let fd: Int32
  public let presentation: Presentation

  /// The most bytes a passphrase may have. Generous for diceware; bounded for guarded memory.
  public static let maximumSecretBytes = 1024

  /// The terminal of this run, once opened.
  nonisolated(unsafe) private static var opened: TTY?

  private init(fd: Int32, presentation: Presentation) {
    self.fd = fd
    self.presentation = presentation
  }

  // No deinit closing `fd`: it belongs to the whole run (see above); exit closes it.

  /// The terminal, or nil when there is none (a pipe, cron, CI). Opened once per run: later
  /// calls get the same one.
  public static func open(environment: [String: String], plain: Bool, spoken: Bool = false)
    -> TTY?
  {
    if let opened { return opened }
    var fd = Glibc.open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)
    if fd < 0, isatty(STDIN_FILENO) != 0, let name = ttyname(STDIN_FILENO) {
      // No O_NOCTTY: a session leader without a terminal (started with setsid) takes this
      // one as its controlling terminal, so Ctrl-C reaches it as SIGINT.
      fd = Glibc.open(name, O_RDWR | O_CLOEXEC)
    }
    guard fd >= 0 else { return nil }
    let presentation = Presentation(
      plain: plain, colour: Presentation.colourAllowed(environment: environment),
      width: Presentation.width(of: fd, environment: environment), spoken: spoken)
    TerminalRestore.terminalFD = fd
    TerminalRestore.installHandlers()
    let tty = TTY(fd: fd, presentation: presentation)
    opened = tty
    return tty
  }

  /// Drops whatever was typed or pasted into the terminal and not read: called as journal
  /// ends, so that none of it reaches the shell (where a pasted line would run, and land in
  /// its history).
  public static func discardPendingInput() {
    TerminalRestore.discardPendingInput()
  }

  /// The terminal's file descriptor, for a program that takes it over (the editor).
  public var descriptor: Int32 { fd }

  /// Drops everything typed or pasted and not read yet, the kernel's queue and journal's
  /// own: before a question whose answer destroys something, so that a line typed ahead, or
  /// pasted behind a passphrase, never answers it.
  public func discardTypedAhead() {
    tcflush(fd, TCIFLUSH)
    keys.removeAll()
    bursts.removeAll()
    decoder = KeyDecoder()
  }

  /// Whether a question has been drawn in this run yet.
  private var questionDrawn = false

  /// Before the run's first question is drawn, what was typed or pasted before it is dropped,
  /// never taken as its answer (a passphrase typed ahead for a prompt that never came would
  /// otherwise be shown in the date field and kept in the scrollback), and the person is
  /// told. (A passphrase prompt drops what was typed before it every time: `readSecret`.)
  private func beforeFirstQuestion() {
    guard !questionDrawn else { return }
    questionDrawn = true
    dropTypedBeforePrompt()
  }

  /// Drops what was typed before a prompt is drawn, saying so when there was any. Always
  /// dropped: in line mode (the passphrase's) the kernel counts a line only once it is
  /// ended, and a part typed without Enter would otherwise begin the answer unseen.
  private func dropTypedBeforePrompt() {
    var waiting: Int32 = 0
    let kernel = ioctl(fd, UInt(FIONREAD), &waiting) == 0 && waiting > 0
    let known = kernel || !keys.isEmpty || decoder.isMidway
    discardTypedAhead()
    guard known else { return }
    write("  (what was typed before this question was left out)\n")
  }

  /// A line to show if a signal ends the process from here on (nil: none).
  public func setInterruptNote(_ text: String?) {
    note = text
    TerminalRestore.setNote(
      text.map { text in presentation.width.map { Wrap.prose(text, width: $0) } ?? text },
      fd: fd)
  }

  /// Runs `body`, a save and the note that says it, with the signals that end journal held:
  /// one that comes meanwhile (Ctrl-C while the save is written) ends journal once `body` is
  /// done, with the note it left, so a stop never says less than was saved.
  public func holdingSignals<R>(_ body: () throws -> R) throws -> R {
    TerminalRestore.installHandlers()
    let holding = TerminalRestore.catching
    TerminalRestore.catching = true
    func meet() {
      TerminalRestore.catching = holding
      // Inside a reader that holds them too, the reader meets it.
      if !holding, let caught = TerminalRestore.takeCaught() { TerminalRestore.reraise(caught) }
    }
    let result: R
    do {
      result = try body()
    } catch {
      meet()
      throw error
    }
    meet()
    return result
  }

  public func write(_ text: String) {
    var bytes = Array(text.utf8)
    writeAll(&bytes)
  }

  public func readLine(prompt: String) throws -> String {
    beforeFirstQuestion()
    return try endingOnSignal {
      try withMode(keys: true) { try lineInMode(prompt: prompt) }
    }
  }

  private func lineInMode(prompt: String) throws -> String {
    // The prompt only once the mode is set: text typed or pasted as soon as it shows is
    // read by us, not by the kernel's line editor. A long one is wrapped: the answer goes
    // on its last line.
    let shown = presentation.width.map { Wrap.prose(prompt, width: $0) } ?? prompt
    write(shown)
    var line: [UInt8] = []
    let last = shown.split(separator: "\n", omittingEmptySubsequences: false).last ?? ""
    reading: while true {
      guard let key = try nextKey() else { continue }
      switch key {
      case .enter:
        // Enter answers, even with more typed ahead behind it (answers typed while journal
        // was busy are each their own). A paste is marked by the terminal (bracketed
        // paste) and comes as one key; without that, nothing pasted reaches the shell at
        // least: input left at the end is discarded.
        guard String(validating: line, as: UTF8.self) != nil else {
          // Bytes that are not UTF-8 text (a paste from a file in another encoding) are
          // refused, as the same bytes on standard input are, never kept as U+FFFD.
          write("\n  that was not text journal can keep (not UTF-8); type it again\n" + last)
          line.removeAll()
          continue
        }
        break reading
      case .paste(let bytes):
        let (text, lines) = Self.oneLine(bytes)
        line += text
        if lines > 1 {
          // Said as the paste arrives, while the answer can still be changed, not after
          // Enter has kept it; then the prompt's last line and the answer so far again.
          write("\n  (the pasted lines were joined into one)\n" + last)
          echoPasted(line)
        } else {
          echoPasted(text)
        }
      case .text(let bytes):
        line += bytes
        echo(String(decoding: bytes, as: UTF8.self))
      case .tab:
        line.append(0x20)
        echo(" ")
      case .backspace:
        if removeLastCharacter(&line, from: 0) { echo("\u{08} \u{08}") }
      case .eraseWord:
        eraseWord(&line, from: 0)
      case .clearLine:
        if !line.isEmpty { echoClear() }
        line.removeAll()
      case .endOfInput, .interrupt:
        write("\n")
        throw TerminalError.stopped
      case .escape, .up, .down, .left, .right, .other:
        continue
      }
    }
    write("\n")
    if line.last == 0x0D { line.removeLast() }
    return String(decoding: line, as: UTF8.self)
  }

  public func readSecret(prompt: String) throws -> SecureBytes {
    // A secret never passes through the key queue (ordinary memory): it is read byte by byte
    // into guarded memory, with the kernel's own line editing and no echo.
    let secret = try SecureBytes(count: Self.maximumSecretBytes)
    var length = 0
    try endingOnSignal {
      try readSecret(prompt: prompt, into: secret, length: &length)
    }
    return try secret.prefix(length)
  }

  private func readSecret(prompt: String, into secret: SecureBytes, length: inout Int) throws {
    try withMode({
      $0.c_lflag &= ~tcflag_t(ECHO); $0.c_lflag |= tcflag_t(ECHONL)
    }) {
      // Keys typed before the prompt is drawn are dropped, in journal's queue and the
      // kernel's, so none of them becomes part of the passphrase (or answers the next
      // question); the prompt only once echo is off, so nothing typed after it is shown.
      dropTypedBeforePrompt()
      // Set before it is drawn: a Ctrl-Z as soon as it shows finds it.
      TerminalRestore.setResumePrompt(prompt)
      defer { TerminalRestore.setResumePrompt(nil) }
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
  }

  /// Reads text over several lines, ended by Ctrl-D or a line holding only "." (Enter
  /// before any text ends it empty: the field is skipped), handing
  /// `keep` the text so far after every line, and once more, with the unfinished line, when
  /// a signal (Ctrl-C, a closed terminal, SIGTERM) ends the process: whatever `keep` saves
  /// is all that was typed. Pasted text (bracketed) is text: its newlines and a pasted line
  /// holding only "." never end the field.
  public func readText(prompt: String, initial: String, keep: (String) -> Void) throws -> String {
    beforeFirstQuestion()
    let noted = noteUnlessSet()
    defer { if noted { clearDefaultNote() } }
    var text = Array(initial.utf8)
    var lineStart = (text.lastIndex(of: 0x0A) ?? -1) + 1
    do {
      // Signals are held from the first key to the last, not only while a key is awaited:
      // one that comes while a key is used (its echo, which waits on a terminal that is slow
      // to show it; the sealed, fsynced draft) must not end the process before what was
      // read is kept. It is met before the next key, or after the last, and everything
      // typed is kept then, still held; the signal then ends journal from here (`reraise`
      // gives the terminal its mode back), not after a write that can wait.
      try withMode(keys: true) {
        try TerminalRestore.catchingSignals {
          do {
            write(prompt)
            if !text.isEmpty { echo(initial.replacingOccurrences(of: "\n", with: "\r\n")) }
            try readTextKeys(&text, lineStart: &lineStart, keep: keep)
            if let caught = TerminalRestore.takeCaught() { throw Interrupted(signal: caught) }
          } catch let interrupted as Interrupted {
            // A second signal while the text is kept (a closed window sends SIGHUP to the
            // shell and, as it ends, to us, just after our reads fail) only waits its turn.
            keep(String(decoding: text, as: UTF8.self))
            TerminalRestore.reraise(interrupted.signal)
          }
        }
      }
    } catch let interrupted as Interrupted {
      // One that came as the mode was given back: what was typed is kept, then it ends us.
      TerminalRestore.catching = true
      keep(String(decoding: text, as: UTF8.self))
      TerminalRestore.reraise(interrupted.signal)
    }
    write("\n")
    return String(decoding: text, as: UTF8.self)
  }

  /// The keys of `readText`, up to the one that ends the text, with signals held: one that
  /// came is thrown as `Interrupted` before the next key is used.
  private func readTextKeys(
    _ text: inout [UInt8], lineStart: inout Int, keep: (String) -> Void
  ) throws {
    reading: while true {
      if let caught = TerminalRestore.takeCaught() { throw Interrupted(signal: caught) }
      guard let key = try nextKey() else { continue }
      switch key {
      case .endOfInput:
        break reading
      case .interrupt:
        throw Interrupted(signal: SIGINT)
      case .enter:
        if String(validating: text[lineStart...], as: UTF8.self) == nil {
          // A typed line that is not UTF-8 text is refused, never kept as U+FFFD.
          text.removeLast(text.count - lineStart)
          write("\r\n  (that line was not text journal can keep, not UTF-8: left out)\r\n")
          continue
        }
        // Enter before any text skips the field (an optional one stays empty), as the
        // forms say; a pasted empty first line on a plain terminal is text.
        if text.isEmpty, pasteMarked || !hasMoreWaiting {
          echo("\r\n")
          break reading
        }
        if text.count - lineStart == 1, text.last == 0x2E {  // a line holding only "."
          if (!pasteMarked && hasMoreWaiting) || inBurst {
            // Without bracketed paste, a pasted "." line looks typed; with more pasted
            // text behind it, it is part of the paste, and the field goes on. So too on a
            // terminal said to mark pastes that did not mark this one (the Linux console,
            // some serial and web terminals): more text behind it in the same read.
            write("\r\n  (a line holding only \".\" inside pasted text was kept as text)\r\n")
          } else {
            text.removeLast()
            echo("\r\n")
            break reading
          }
        }
        text.append(0x0A)
        lineStart = text.count
        echo("\r\n")
        // Kept after every typed line. Where a paste is not marked (plain terminals, and
        // terminals that do not do what they were asked), its lines arrive as typed ones:
        // those are kept at the last line ending of what was read, not line by line (a
        // 20,000-line paste would be 20,000 sealed, fsynced draft writes); an
        // interruption hands over everything anyway.
        let pasted = inBurst || (!pasteMarked && hasMoreWaiting)
        if !pasted || !keys.contains(.enter) { keep(String(decoding: text, as: UTF8.self)) }
      case .paste(let bytes):
        let clean = Self.printable(bytes)
        guard String(validating: clean, as: UTF8.self) != nil else {
          // Refused as on standard input: never kept as U+FFFD.
          write("\r\n  (that paste was not text journal can keep, not UTF-8: left out)\r\n")
          continue
        }
        text += clean
        if let last = clean.lastIndex(of: 0x0A) {
          lineStart = text.count - (clean.count - last - 1)
        }
        echo(
          String(decoding: clean, as: UTF8.self).replacingOccurrences(of: "\n", with: "\r\n"))
        keep(String(decoding: text, as: UTF8.self))
      case .text(let bytes):
        text += bytes
        echo(String(decoding: bytes, as: UTF8.self))
      case .tab:
        text.append(0x09)
        echo("\t")
      case .backspace:
        if removeLastCharacter(&text, from: lineStart) { echo("\u{08} \u{08}") }
      case .eraseWord:
        eraseWord(&text, from: lineStart)
      case .clearLine:
        let removed = text.count - lineStart
        text.removeLast(removed)
        // Plain mode moves no cursor: the cleared line stays on screen, marked, and
        // typing goes on below it.
        if removed > 0 {
          if presentation.plain { echo(" ^U\r\n") } else { echoClear() }
        }
      case .escape, .up, .down, .left, .right, .other:
        continue
      }
    }
  }

  /// The slider: ← → (or h l, ↑ ↓) move, a digit jumps (0 is 10), Enter or Tab chooses,
  /// Backspace or "-" clears an optional mood. One line, redrawn in place. Plain mode gets
  /// the numbered prompt instead.
  public func readMood(_ question: MoodQuestion) throws -> String {
    guard !presentation.plain else { return try readMoodPlainly(question) }
    beforeFirstQuestion()
    var slider = MoodSlider(question: question)
    return try endingOnSignal {
      try withMode(keys: true) {
        writeWrapped("  " + slider.help, indent: "    ")
        write(slider.line(width: presentation.width ?? 80, colour: presentation.colour))
        while true {
          guard var key = try nextKey() else { continue }
          if lastBurst {
            // More than a key and its Enter in one read: no hand types that fast. It is a
            // paste the terminal did not mark (or keys typed far ahead), and its letters
            // and Enter must not move the slider or choose a mood nobody chose.
            key = .paste(try restOfBurst(after: key))
          }
          var finished = false
          switch key {
          case .endOfInput, .interrupt:
            // End the slider's line, so the message after it starts clean.
            write("\n")
            throw TerminalError.stopped
          case .right, .up: slider.step(1)
          case .left, .down: slider.step(-1)
          case .enter: finished = slider.press(0x0D)
          case .tab: finished = slider.press(0x09)
          case .backspace: finished = slider.press(0x7F)
          case .text(let bytes) where bytes.count == 1: finished = slider.press(bytes[0])
          case .paste(let bytes):
            // A pasted number is taken as typed (Enter still chooses); any other paste is
            // not a mood, and is left out, said so.
            if let number = Self.pastedMood(bytes) {
              for byte in number { _ = slider.press(byte) }
            } else {
              write("\r\u{1B}[K  (pasted text is not a mood; it was left out)\n")
            }
          case .text, .clearLine, .eraseWord, .escape, .other: continue
          }
          write(
            "\r\u{1B}[K" + slider.line(width: presentation.width ?? 80, colour: presentation.colour)
          )
          if finished {
            write("\n")
            return slider.answer
          }
        }
      }
    }
  }

  /// Waits up to `timeout` seconds for one key press, without echo or Enter. Returns the
  /// bytes of one key (an arrow key is several), or nil when the time ran out. Every key of
  /// a read is handed out in turn; an Enter that came in the same read right after the key
  /// belongs to it (a key and Enter typed together) and is used up with it. A paste is
  /// handed out whole, never as the key its first letter is; a key the terminal does not
  /// name, as no bytes.
  public func waitForKey(timeout: Double) throws -> [UInt8]? {
    beforeFirstQuestion()
    return try endingOnSignal {
      try withMode(keys: true) {
        guard let key = try nextKey(timeout: timeout) else { return nil }
        if key != .enter, keys.first == .enter {
          bursts.removeFirst()
          keys.removeFirst()
        }
        switch key {
        case .text(let bytes): return bytes
        case .enter: return [0x0D]
        case .tab: return [0x09]
        case .backspace: return [0x7F]
        case .clearLine: return [0x15]
        case .eraseWord: return [0x17]
        case .endOfInput: return [0x04]
        case .interrupt: throw Interrupted(signal: SIGINT)
        case .escape: return [0x1B]
        case .up: return [0x1B, 0x5B, 0x41]
        case .down: return [0x1B, 0x5B, 0x42]
        case .right: return [0x1B, 0x5B, 0x43]
        case .left: return [0x1B, 0x5B, 0x44]
        case .paste(let bytes): return bytes
        case .other: return []
        }
      }
    }
  }

  /// Runs a reader that keeps nothing of an unfinished answer: a signal ends the process
  /// at once, as it would have without us, with the interrupt note.
  private func endingOnSignal<R>(_ body: () throws -> R) throws -> R {
    let noted = noteUnlessSet()
    defer { if noted { clearDefaultNote() } }
    do {
      return try body()
    } catch let interrupted as Interrupted {
      TerminalRestore.reraise(interrupted.signal)
    }
  }

  /// What a stop at a question says when the command has said nothing else: every stop
  /// says in one line what was kept. Where something was saved or kept before the question,
  /// the command sets its own note (`setInterruptNote`).
  public static let nothingChangedNote = "\njournal: stopped; nothing was changed\n"

  /// The note set last (nil: none).
  private var note: String?

  /// Sets the note for a stop at a question when none is set; whether it did.
  private func noteUnlessSet() -> Bool {
    guard note == nil else { return false }
    setInterruptNote(Self.nothingChangedNote)
    return true
  }

  /// Takes the note `noteUnlessSet` set away again, unless the command has set its own since
  /// (a draft kept while the question was answered).
  private func clearDefaultNote() {
    if note == Self.nothingChangedNote { setInterruptNote(nil) }
  }

  // MARK: - Keys

  /// A signal that arrived while waiting for a key: the reader keeps what it must, then the
  /// signal ends the process as it would have.
  struct Interrupted: Error {
    let signal: Int32
  }

  /// Whether the terminal marks pastes (bracketed paste), as every terminal that is not a
  /// plain one does; a plain terminal gets no escape sequences at all.
  private var pasteMarked: Bool { !presentation.plain }

  /// Keys decoded from earlier reads and not used yet.
  private var keys: [KeyDecoder.Key] = []
  /// For each of `keys`, whether it came in a burst: a read that held more than a key and
  /// its Enter (a paste the terminal did not mark, or keys typed far ahead).
  private var bursts: [Bool] = []
  private var decoder = KeyDecoder()
  /// Whether the key `nextKey` returned last came in a burst.
  private var lastBurst = false

  /// The next key, reading more when none is waiting; nil when `timeout` runs out first.
  private func nextKey(timeout: Double? = nil) throws -> KeyDecoder.Key? {
    while keys.isEmpty {
      guard try fill(timeout: timeout) else { return nil }
    }
    lastBurst = bursts.removeFirst()
    return keys.removeFirst()
  }

  /// Whether the key just used came in a burst with more of it still behind.
  private var inBurst: Bool { lastBurst && !keys.isEmpty }

  /// The bytes of a burst, from `key` (its first key, already taken) to its end, and of any
  /// more that is already here behind it: one paste.
  private func restOfBurst(after key: KeyDecoder.Key) throws -> [UInt8] {
    var bytes = Self.bytes(of: key)
    while true {
      if keys.isEmpty {
        guard try ready(timeout: 0) else { break }
        _ = try fill(timeout: 0)
        continue
      }
      guard bursts.first == true else { break }
      bytes += Self.bytes(of: keys[0])
      bursts.removeFirst()
      keys.removeFirst()
    }
    return bytes
  }

  /// The bytes a key stands for, for a burst taken as a paste.
  private static func bytes(of key: KeyDecoder.Key) -> [UInt8] {
    switch key {
    case .text(let bytes), .paste(let bytes): bytes
    case .enter: [0x0A]
    case .tab: [0x09]
    case .backspace, .clearLine, .eraseWord, .endOfInput, .interrupt, .escape, .up, .down,
      .left, .right,
      .other:
      []
    }
  }

  /// A paste that is a mood, as its digits ("7", " 10\n"); nil for anything else.
  static func pastedMood(_ bytes: [UInt8]) -> [UInt8]? {
    let text = String(decoding: printable(bytes), as: UTF8.self)
      .trimmingCharacters(in: [" ", "\t", "\n"])
    guard let value = Int(text), (1...10).contains(value) else { return nil }
    return value == 10 ? [0x30] : Array(String(value).utf8)
  }

  /// Whether more input is already here behind the key just used: typed ahead, or the rest
  /// of a paste.
  private var hasMoreWaiting: Bool {
    !keys.isEmpty || decoder.isMidway || inputWaiting
  }

  /// Whether the terminal has input now. Unlike `ready`, it leaves a signal caught meanwhile
  /// for the reader to meet.
  private var inputWaiting: Bool {
    var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
    return poll(&descriptor, 1, 0) > 0
      && descriptor.revents & Int16(POLLIN | POLLHUP | POLLERR) != 0
  }

  /// Reads what the terminal has (waiting up to `timeout`, nil: for ever) and decodes it.
  /// False when the time ran out with nothing read.
  private func fill(timeout: Double?) throws -> Bool {
    guard try ready(timeout: timeout) else { return false }
    var chunk = [UInt8](repeating: 0, count: 4096)
    let count = try readChunk(&chunk)
    var decoded: [KeyDecoder.Key] = []
    decoder.feed(chunk[0..<count], into: &decoded)
    // A lone Esc: an arrow key's other bytes come in the same write, so a short wait
    // tells Esc from the start of a sequence.
    if keys.isEmpty, decoded.isEmpty, decoder.isMidway, try !ready(timeout: 0.03) {
      decoder.flush(into: &decoded)
    }
    // A key and Enter typed together come in one read; more keys than that in one read
    // were not typed one by one (a marked paste is one key, and counts once).
    let burst = decoded.count > 2
    keys += decoded
    bursts += Array(repeating: burst, count: decoded.count)
    return true
  }

  /// Waits until the terminal has input (true) or `timeout` runs out (false). A signal that
  /// ends journal (SIGINT, SIGHUP, SIGTERM) wakes it and is thrown as `Interrupted`.
  private func ready(timeout: Double?) throws -> Bool {
    let holding = TerminalRestore.catching
    TerminalRestore.catching = true
    defer { TerminalRestore.catching = holding }
    let milliseconds = timeout.map { Int32(max(0, min($0, 3600)) * 1000) } ?? -1
    while true {
      if let caught = TerminalRestore.takeCaught() { throw Interrupted(signal: caught) }
      var descriptors = [
        pollfd(fd: fd, events: Int16(POLLIN), revents: 0),
        pollfd(fd: TerminalRestore.wakeFD, events: Int16(POLLIN), revents: 0),
      ]
      let count = poll(&descriptors, TerminalRestore.wakeFD >= 0 ? 2 : 1, milliseconds)
      // Not a plain retry (JournalSystem's Descriptor): a signal that ends journal must end
      // this wait, so it is taken first; only another signal's EINTR polls again.
      if let caught = TerminalRestore.takeCaught() { throw Interrupted(signal: caught) }
      if count < 0 && errno == EINTR { continue }
      guard count > 0 else { return false }
      if descriptors[0].revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 { return true }
    }
  }

  /// Ctrl-W, as a shell does it: removes the spaces before the cursor, then the word before
  /// them (back to `start`), and rubs each character out on screen.
  private func eraseWord(_ bytes: inout [UInt8], from start: Int) {
    var erased = 0
    while bytes.count > start, bytes.last == 0x20 || bytes.last == 0x09 {
      bytes.removeLast()
      erased += 1
    }
    while bytes.count > start, let last = bytes.last, last != 0x20, last != 0x09 {
      _ = removeLastCharacter(&bytes, from: start)
      erased += 1
    }
    echo(String(repeating: "\u{08} \u{08}", count: erased))
  }

  /// Removes the last character of `bytes` after `start` (all of a multi-byte one).
  private func removeLastCharacter(_ bytes: inout [UInt8], from start: Int) -> Bool {
    guard bytes.count > start else { return false }
    while let last = bytes.last, bytes.count > start, last & 0xC0 == 0x80 { bytes.removeLast() }
    if bytes.count > start { bytes.removeLast() }
    return true
  }

  /// Pasted bytes for a one-line answer: newlines become spaces, other control bytes go.
  /// Also says how many lines the paste had.
  static func oneLine(_ bytes: [UInt8]) -> ([UInt8], lines: Int) {
    var out: [UInt8] = []
    var lines = 1
    for byte in printable(bytes) {
      if byte == 0x0A {
        lines += 1
        if !out.isEmpty && out.last != 0x20 { out.append(0x20) }
      } else {
        out.append(byte)
      }
    }
    while out.last == 0x20 { out.removeLast() }
    return (out, lines)
  }

  /// Pasted bytes as text: CR LF and CR become LF, tabs stay, other control bytes go.
  static func printable(_ bytes: [UInt8]) -> [UInt8] {
    var out: [UInt8] = []
    out.reserveCapacity(bytes.count)
    var previous: UInt8 = 0
    for byte in bytes {
      defer { previous = byte }
      switch byte {
      case 0x0D: out.append(0x0A)
      case 0x0A: if previous != 0x0D { out.append(0x0A) }
      case 0x09, 0x20...0x7E, 0x80...0xFF: out.append(byte)
      default: continue
      }
    }
    return out
  }

  private func echo(_ text: String) { write(text) }

  /// Echoes a paste into a one-line answer: a long one (100 KB into the dose) as its start
  /// and its length, not a thousand lines of scrolling before the answer is refused.
  private func echoPasted(_ bytes: [UInt8]) {
    let room = max(20, (presentation.width ?? 80) - 30)
    let text = String(decoding: bytes, as: UTF8.self)
    guard text.count > room * 2 else { return echo(text) }
    echo(String(text.prefix(room)) + " … (\(text.count) characters pasted)")
  }

  /// Clears the line being typed on screen (plain mode marks it instead).
  private func echoClear() {
    write(presentation.plain ? " ^U\r\n" : "\r\u{1B}[K")
  }

  // MARK: - Bytes

  private func readByte() throws -> UInt8 {
    var byte: UInt8 = 0
    while true {
      let count = Glibc.read(fd, &byte, 1)
      if count == 1 { return byte }
      try readFailed(count)
    }
  }

  private func readChunk(_ buffer: inout [UInt8]) throws -> Int {
    while true {
      let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
      if count > 0 { return count }
      try readFailed(count)
    }
  }

  /// A read that gave nothing. Interrupted by a signal: read again. Anything else means the
  /// terminal went away (its window closed: reads end, or fail with EIO), whether or not a
  /// SIGHUP comes too (it goes only to the terminal's session leader, often the shell): it
  /// is met as that hangup, so a reader keeps the line being typed, as for the signal.
  private func readFailed(_ count: Int) throws {
    if count < 0 && errno == EINTR { return }
    throw Interrupted(signal: SIGHUP)
  }

  /// JournalTerminal stays below JournalSystem (Docs/DESIGN.md: no files, no processes), so
  /// the terminal's one write loop is its own rather than `Descriptor.writeAll`.
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

  /// Runs `body` with keys read one at a time, unechoed (journal echoes what it keeps), and
  /// bracketed paste on where the terminal is more than a plain one.
  private func withMode<R>(keys: Bool, _ body: () throws -> R) throws -> R {
    let paste = pasteMarked
    return try withMode({
      $0.c_lflag &= ~tcflag_t(ICANON | ECHO); setMinimumRead(&$0)
    }) {
      if paste { write(TerminalRestore.pasteOn) }
      TerminalRestore.pasteActive = paste
      defer {
        TerminalRestore.pasteActive = false
        if paste { write(TerminalRestore.pasteOff) }
      }
      return try body()
    }
  }

  private func withMode<R>(_ change: (inout termios) -> Void, _ body: () throws -> R) throws -> R {
    var original = termios()
    guard tcgetattr(fd, &original) == 0 else { return try body() }
    var changed = original
    change(&changed)
    TerminalRestore.arm(fd: fd, state: original, active: changed)
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

/// What happens to the terminal when a signal (Ctrl-C, a closed window, SIGTERM, SIGQUIT)
/// ends the process: its mode is restored, bracketed paste turned off, input not yet read
/// is discarded (so none of it reaches the shell), and the interrupt note is written; then
/// the signal ends the process as it would have.
///
/// While a key is awaited, and while `readText` uses one (`catching`), the handler only
/// records the signal and wakes the waiting `poll` through a pipe; the reader keeps what was
/// typed, then calls `reraise`.
enum TerminalRestore {
  nonisolated(unsafe) private static var fd: Int32 = -1
  nonisolated(unsafe) private static var state = termios()
  nonisolated(unsafe) private static var armed = false
  nonisolated(unsafe) private static var installed = false
  /// Set while a reader waits for a key, or holds signals while it uses one.
  nonisolated(unsafe) static var catching = false
  nonisolated(unsafe) private static var caught: sig_atomic_t = 0
  nonisolated(unsafe) private static var wakeRead: Int32 = -1
  nonisolated(unsafe) private static var wakeWrite: Int32 = -1
  /// The terminal whose pending input is discarded at the end (the last one opened).
  nonisolated(unsafe) static var terminalFD: Int32 = -1

  static let pasteOn = "\u{1B}[?2004h"
  static let pasteOff = "\u{1B}[?2004l"
  nonisolated(unsafe) private static var pasteOffBytes: [UInt8] = Array(pasteOff.utf8)
  nonisolated(unsafe) private static var pasteOnBytes: [UInt8] = Array(pasteOn.utf8)

  /// Readable once a signal has been caught while `catching`.
  static var wakeFD: Int32 { wakeRead }

  static func arm(fd: Int32, state: termios, active: termios) {
    Self.fd = fd
    Self.state = state
    Self.active = active
    armed = true
    installHandlers()
  }

  /// The mode journal set (`active`), given back when the process is continued after a stop,
  /// and whether bracketed paste is on with it.
  nonisolated(unsafe) private static var active = termios()
  nonisolated(unsafe) static var pasteActive = false

  static func disarm() { armed = false }

  /// Runs `body` with the signals that end journal only recorded, as while a key is
  /// awaited; one that came is thrown as `Interrupted` once `body` is done.
  static func catchingSignals<R>(_ body: () throws -> R) throws -> R {
    let holding = catching
    catching = true
    let result: R
    do {
      result = try body()
    } catch {
      catching = holding
      throw error
    }
    catching = holding
    if let caught = takeCaught() { throw TTY.Interrupted(signal: caught) }
    return result
  }

  /// The signal caught while a reader waited, if any (and forgets it).
  static func takeCaught() -> Int32? {
    guard caught != 0 else { return nil }
    defer { caught = 0 }
    var drain = [UInt8](repeating: 0, count: 8)
    _ = Glibc.read(wakeRead, &drain, drain.count)
    return caught
  }

  /// Ends the process by `signalNumber`, after restoring the terminal and writing the note.
  static func reraise(_ signalNumber: Int32) -> Never {
    restore()
    signal(signalNumber, SIG_DFL)
    raise(signalNumber)
    // A signal that was blocked or ignored by whoever started us: end as if it had ended us.
    exit(128 + signalNumber)
  }

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

  static func installHandlers() {
    guard !installed else { return }
    installed = true
    var fds: [Int32] = [0, 0]
    if pipe(&fds) == 0 {
      for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
      for fd in fds { _ = fcntl(fd, F_SETFL, O_NONBLOCK) }
      wakeRead = fds[0]
      wakeWrite = fds[1]
    }
    for signalNumber in [SIGINT, SIGTERM, SIGHUP, SIGQUIT] {
      signal(signalNumber, handle)
    }
    // What ends journal otherwise restores the terminal too, and drops what was typed
    // (none of it must reach the shell): a closed pipe (`journal list | head`, unless it was
    // ignored by whoever started journal, which then sees EPIPE) and a crash.
    for signalNumber in [SIGPIPE, SIGABRT, SIGBUS, SIGFPE, SIGILL, SIGSEGV, SIGTRAP] {
      let previous = signal(signalNumber, onFatalSignal)
      if signalNumber == SIGPIPE, unsafeBitCast(previous, to: Int.self) == 1 {  // SIG_IGN
        signal(SIGPIPE, SIG_IGN)
      }
    }
    // Ctrl-Z gives the shell its terminal back as it was (echo on), and `fg` journal's
    // (unless whoever started journal ignores it: then Ctrl-Z does nothing, as before).
    if unsafeBitCast(signal(SIGTSTP, onStopSignal), to: Int.self) == 1 {  // SIG_IGN
      signal(SIGTSTP, SIG_IGN)
    }
    signal(SIGCONT, onContinueSignal)
    // Made now: a handler must never be the first to touch (and allocate) them.
    _ = pasteOnBytes.count + pasteOffBytes.count
  }

  /// A signal that ends journal at once, whatever it is doing: the terminal restored and the
  /// input dropped, with no interrupt note (nothing was stopped by the person).
  fileprivate static func handleFatal(_ signalNumber: Int32) {
    restore(withNote: false)
    signal(signalNumber, SIG_DFL)
    raise(signalNumber)
  }

  /// Ctrl-Z: the terminal as it was before journal changed it, then stopped; continued,
  /// journal's mode again.
  fileprivate static func handleStop() {
    let saved = errno
    if armed {
      tcsetattr(fd, TCSANOW, &state)
      if pasteActive {
        _ = pasteOffBytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
      }
    }
    signal(SIGTSTP, SIG_DFL)
    var stop = sigset_t()
    sigemptyset(&stop)
    sigaddset(&stop, SIGTSTP)
    pthread_sigmask(SIG_UNBLOCK, &stop, nil)
    raise(SIGTSTP)
    // Continued (SIGCONT's handler gave journal's mode back), or never stopped: the kernel
    // drops a stop for a process group no shell can continue (journal a session's leader:
    // `ssh -t host journal`, a terminal window's own command). Journal's mode again, either
    // way.
    signal(SIGTSTP, onStopSignal)
    if armed {
      tcsetattr(fd, TCSANOW, &active)
      if pasteActive {
        _ = pasteOnBytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
      }
    }
    errno = saved
  }

  /// Continued (after Ctrl-Z, or a stop from elsewhere): journal's mode again, since the
  /// shell set its own meanwhile, and the passphrase's prompt drawn again below what the
  /// shell wrote.
  fileprivate static func resume() {
    guard armed else { return }
    let saved = errno
    defer { errno = saved }
    tcsetattr(fd, TCSANOW, &active)
    if pasteActive {
      _ = pasteOnBytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
    }
    if let resumePrompt { _ = Glibc.write(fd, resumePrompt, resumePromptLength) }
  }

  /// The prompt drawn again when continued, while a secret is read.
  nonisolated(unsafe) private static var resumePrompt: UnsafeMutablePointer<UInt8>?
  nonisolated(unsafe) private static var resumePromptLength = 0

  static func setResumePrompt(_ text: String?) {
    let old = resumePrompt
    resumePrompt = nil
    old?.deallocate()
    guard let text else { return }
    let bytes = Array(("\n" + text).utf8)
    let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: bytes.count)
    buffer.initialize(from: bytes, count: bytes.count)
    resumePromptLength = bytes.count
    resumePrompt = buffer
  }

  /// Discards input not read yet, so it never reaches the shell.
  static func discardPendingInput() {
    if terminalFD >= 0 { tcflush(terminalFD, TCIFLUSH) }
  }

  fileprivate static func handleSignal(_ signalNumber: Int32) {
    if catching {
      caught = signalNumber
      var byte: UInt8 = 1
      _ = Glibc.write(wakeWrite, &byte, 1)
      return
    }
    restore()
    signal(signalNumber, SIG_DFL)
    raise(signalNumber)
  }

  fileprivate static func restore(withNote: Bool = true) {
    if armed {
      tcsetattr(fd, TCSANOW, &state)
      _ = pasteOffBytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
      var newline: UInt8 = 0x0A
      _ = Glibc.write(fd, &newline, 1)
    }
    discardPendingInput()
    if withNote, let note { _ = Glibc.write(noteFD, note, noteLength) }
  }
}

// Only async-signal-safe calls: tcsetattr, tcflush, write, signal, raise, pthread_sigmask.
private func handle(_ signalNumber: Int32) {
  TerminalRestore.handleSignal(signalNumber)
}

private func onFatalSignal(_ signalNumber: Int32) {
  TerminalRestore.handleFatal(signalNumber)
}

private func onStopSignal(_: Int32) {
  TerminalRestore.handleStop()
}

private func onContinueSignal(_: Int32) {
  TerminalRestore.resume()
}
