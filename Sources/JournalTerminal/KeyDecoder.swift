/// Turns the bytes a terminal delivers into keys, one at a time, whatever the reads were.
///
/// A terminal delivers bytes, not lines: a paste arrives in one read, a key and Enter
/// together, an arrow key as three bytes that a slow link may split. The decoder keeps what
/// it has not finished (half an escape sequence, a paste still arriving) across reads, so
/// every byte is handled once and in order. A pure value: tests feed it bytes directly.
///
/// Bracketed paste (the terminal wraps pasted text in `ESC [ 200 ~` … `ESC [ 201 ~`) makes a
/// paste one `.paste` key, newlines and all: pasted text never answers a question by itself.
public struct KeyDecoder: Sendable {
  /// One key, or one paste.
  public enum Key: Equatable, Sendable {
    /// Printable text: one character's UTF-8 bytes (or a byte of a broken sequence).
    case text([UInt8])
    /// Enter (CR or LF).
    case enter
    case tab
    case backspace
    /// Ctrl-U: clear the line.
    case clearLine
    /// Ctrl-W: erase the word before the cursor.
    case eraseWord
    /// Ctrl-D: end of input.
    case endOfInput
    /// Ctrl-C read as a byte (only when the terminal does not turn it into a signal).
    case interrupt
    /// Esc on its own.
    case escape
    case up, down, left, right
    /// Everything between the paste markers, as pasted.
    case paste([UInt8])
    /// Any other control byte or escape sequence, ignored by every prompt.
    case other
  }

  private enum State: Equatable, Sendable {
    case ground
    /// After ESC.
    case escape
    /// After ESC [ or ESC O, collecting parameter bytes.
    case sequence([UInt8])
    /// Inside a bracketed paste, collecting its bytes.
    case paste
  }

  private var state = State.ground
  private var pasted: [UInt8] = []
  private var pending: [UInt8] = []
  /// The most a paste may hold before it is handed on in parts: far above any field's limit,
  /// far below memory. A paste larger than this arrives as several `.paste` keys.
  static let maximumPaste = 1 << 20
  private static let pasteStart = Array("[200~".utf8)
  private static let pasteEnd = Array("\u{1B}[201~".utf8)

  public init() {}

  /// Whether the decoder holds the start of something not yet finished (a paste, an
  /// escape sequence, half a character).
  public var isMidway: Bool { state != .ground || !pending.isEmpty }

  /// Decodes `bytes`, appending finished keys to `keys`.
  public mutating func feed(_ bytes: some Sequence<UInt8>, into keys: inout [Key]) {
    for byte in bytes { step(byte, &keys) }
  }

  /// Ends a lone Esc (or an unfinished sequence) that no more bytes followed.
  public mutating func flush(into keys: inout [Key]) {
    switch state {
    case .escape, .sequence:
      state = .ground
      keys.append(.escape)
    case .ground, .paste:
      break
    }
    if !pending.isEmpty {
      keys.append(.text(pending))
      pending = []
    }
  }

  private mutating func step(_ byte: UInt8, _ keys: inout [Key]) {
    switch state {
    case .paste:
      pasted.append(byte)
      if pasted.count >= Self.pasteEnd.count,
        pasted.suffix(Self.pasteEnd.count).elementsEqual(Self.pasteEnd)
      {
        pasted.removeLast(Self.pasteEnd.count)
        keys.append(.paste(pasted))
        pasted = []
        state = .ground
      } else if pasted.count >= Self.maximumPaste {
        keys.append(.paste(pasted))
        pasted = []
      }
    case .escape:
      if byte == 0x5B || byte == 0x4F {
        state = .sequence([byte])
      } else {
        state = .ground
        keys.append(.escape)
        step(byte, &keys)
      }
    case .sequence(var collected):
      collected.append(byte)
      // A sequence ends with a byte in 0x40–0x7E (after the introducer), or runs too long.
      let final = collected.count > 1 && (0x40...0x7E).contains(byte)
      guard final || collected.count > 16 else {
        state = .sequence(collected)
        return
      }
      if collected == Self.pasteStart {
        state = .paste
      } else {
        state = .ground
        keys.append(key(forSequence: collected))
      }
    case .ground:
      ground(byte, &keys)
    }
  }

  private mutating func ground(_ byte: UInt8, _ keys: inout [Key]) {
    if !pending.isEmpty {
      // The rest of a multi-byte character.
      if byte & 0xC0 == 0x80 {
        pending.append(byte)
        if pending.count == expectedLength(pending[0]) {
          keys.append(.text(pending))
          pending = []
        }
        return
      }
      keys.append(.text(pending))
      pending = []
    }
    switch byte {
    case 0x0D, 0x0A: keys.append(.enter)
    case 0x09: keys.append(.tab)
    case 0x7F, 0x08: keys.append(.backspace)
    case 0x15: keys.append(.clearLine)
    case 0x17: keys.append(.eraseWord)
    case 0x04: keys.append(.endOfInput)
    case 0x03: keys.append(.interrupt)
    case 0x1B: state = .escape
    case 0x20...0x7E: keys.append(.text([byte]))
    case 0xC2...0xF4:
      pending = [byte]
    case 0x80...0xFF: keys.append(.text([byte]))
    default: keys.append(.other)
    }
  }

  private func key(forSequence bytes: [UInt8]) -> Key {
    switch bytes.last {
    case 0x41: .up
    case 0x42: .down
    case 0x43: .right
    case 0x44: .left
    default: .other
    }
  }

  private func expectedLength(_ lead: UInt8) -> Int {
    lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : 2
  }
}
