import Foundation
import Glibc
import JournalSystem

/// One JSON document read from a descriptor 64 KiB at a time, for `import`: the top-level
/// object's keys one by one, each value either captured whole (a format name, a version) or,
/// for a long array, element by element, so that memory holds one session's JSON at a time
/// however large the file. Each captured value is checked by Foundation's parser; this reads
/// only the structure (strings, nesting) and keeps the line and column for error messages.
struct JSONStream {
  /// What went wrong, where.
  enum Failure: Error, Equatable {
    /// Not valid JSON at this line and column (UTF-8 characters counted from 1).
    case syntax(line: Int, column: Int)
    /// The file ended inside the document.
    case endOfFile
    /// A value longer than the limit, starting at this line.
    case tooLarge(line: Int)
    /// The file could not be read.
    case unreadable(errno: Int32)
  }

  private let read: (UnsafeMutableRawBufferPointer) -> Int
  private var buffer = [UInt8](repeating: 0, count: 64 * 1024)
  private var position = 0
  private var filled = 0
  private var ended = false
  /// The first bytes of the file (to recognise a jrnl journal), at most 200.
  private(set) var head: [UInt8] = []
  private(set) var line = 1
  private(set) var column = 1

  /// Reads from `fd` (not closed here).
  init(fd: Int32) {
    read = { target in
      do throws(Descriptor.Failure) {
        return try Descriptor(fd).read(into: target)
      } catch {
        return -Int(error.errno)
      }
    }
  }

  /// Reads from bytes in memory.
  init(_ bytes: [UInt8]) {
    var offset = 0
    read = { target in
      let count = min(target.count, bytes.count - offset)
      target.copyBytes(from: bytes[offset..<offset + count])
      offset += count
      return count
    }
  }

  /// The next byte without taking it; nil at the end of the file.
  mutating func peek() throws(Failure) -> UInt8? {
    if position == filled {
      guard !ended else { return nil }
      let count = buffer.withUnsafeMutableBytes { read($0) }
      if count < 0 { throw .unreadable(errno: Int32(-count)) }
      if count == 0 {
        ended = true
        return nil
      }
      if head.count < 200 { head += buffer[0..<min(count, 200 - head.count)] }
      position = 0
      filled = count
    }
    return buffer[position]
  }

  /// Takes the next byte (which `peek` returned).
  private mutating func take() {
    let byte = buffer[position]
    position += 1
    if byte == 0x0A {
      line += 1
      column = 1
    } else if byte & 0xC0 != 0x80 {
      column += 1
    }
  }

  /// Skips a UTF-8 byte order mark at the very start of the file, which some editors write.
  mutating func skipByteOrderMark() throws(Failure) {
    for byte: UInt8 in [0xEF, 0xBB, 0xBF] {
      guard try peek() == byte else { return }
      take()
    }
    column = 1
  }

  /// Skips whitespace; the next byte after it, nil at the end of the file.
  mutating func skipSpace() throws(Failure) -> UInt8? {
    while let byte = try peek() {
      guard byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 else { return byte }
      take()
    }
    return nil
  }

  /// Takes `byte` after any whitespace, or fails where something else is.
  mutating func expect(_ byte: UInt8) throws(Failure) {
    guard let next = try skipSpace() else { throw .endOfFile }
    guard next == byte else { throw .syntax(line: line, column: column) }
    take()
  }

  /// Takes one of `bytes` after any whitespace, returning which, or fails.
  mutating func expectOne(of bytes: [UInt8]) throws(Failure) -> UInt8 {
    guard let next = try skipSpace() else { throw .endOfFile }
    guard bytes.contains(next) else { throw .syntax(line: line, column: column) }
    take()
    return next
  }

  /// Where the next value starts.
  struct Start {
    let line: Int
    let column: Int
  }

  /// The raw bytes of the next value (after whitespace), at most `limit` of them, and where
  /// it started. Only its structure is read here: the caller parses it.
  mutating func value(limit: Int) throws(Failure) -> (bytes: [UInt8], start: Start) {
    guard let first = try skipSpace() else { throw .endOfFile }
    let start = Start(line: line, column: column)
    var bytes: [UInt8] = []
    func keep(_ byte: UInt8) throws(Failure) {
      guard bytes.count < limit else { throw .tooLarge(line: start.line) }
      bytes.append(byte)
    }
    switch first {
    case UInt8(ascii: "{"), UInt8(ascii: "["), UInt8(ascii: "\""):
      // The bytes in the buffer are scanned in one tight loop and kept a run at a time: a
      // byte at a time through `peek`, `take` and `append` was a third of an import.
      var scan = Scan()
      bytes.reserveCapacity(4096)
      while !scan.done {
        guard try peek() != nil else { throw .endOfFile }
        let from = position
        let end = filled
        var (line, column) = (self.line, self.column)
        position = buffer.withUnsafeBufferPointer { buffer in
          scan.run(buffer, from: from, to: end, line: &line, column: &column)
        }
        (self.line, self.column) = (line, column)
        guard bytes.count + (position - from) <= limit else { throw .tooLarge(line: start.line) }
        bytes.append(contentsOf: buffer[from..<position])
      }
    default:
      // A number, true, false or null: up to the next space or delimiter.
      while let byte = try peek(),
        ![0x20, 0x0A, 0x0D, 0x09, UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]")]
          .contains(byte)
      {
        take()
        try keep(byte)
      }
      guard !bytes.isEmpty else { throw .syntax(line: line, column: column) }
      // Checked here, so that a bad one is placed where it ends (as Foundation places it).
      guard
        (try? JSONSerialization.jsonObject(with: Data(bytes), options: .fragmentsAllowed)) != nil
      else { throw .syntax(line: line, column: column) }
    }
    return (bytes, start)
  }

  /// Where a scan of a string, object or array is: inside a string (after a backslash), how
  /// deep in brackets, and whether the value has ended.
  private struct Scan {
    var depth = 0
    var inString = false
    var escaped = false
    var done = false

    /// Reads `buffer[from..<end]` up to the value's last byte (or the end of what is there),
    /// counting lines and columns as `take` does; where it stopped.
    mutating func run(
      _ buffer: UnsafeBufferPointer<UInt8>, from: Int, to end: Int, line: inout Int,
      column: inout Int
    ) -> Int {
      var index = from
      while index < end {
        if inString && !escaped {
          // Inside a string, up to its next quote, backslash or line break: only the columns
          // (UTF-8 characters, not continuation bytes) are counted.
          let run = index
          var continuations = 0
          while index < end {
            let byte = buffer[index]
            if byte == 0x22 || byte == 0x5C || byte == 0x0A { break }
            continuations &+= Int(truncatingIfNeeded: (byte >> 6) == 2 ? 1 : 0)
            index += 1
          }
          column += index - run - continuations
          if index == end { return index }
        }
        let byte = buffer[index]
        index += 1
        if byte == 0x0A {
          line += 1
          column = 1
        } else if byte & 0xC0 != 0x80 {
          column += 1
        }
        if inString {
          if escaped {
            escaped = false
          } else if byte == 0x5C {
            escaped = true
          } else if byte == 0x22 {
            inString = false
          }
        } else if byte == 0x22 {
          inString = true
        } else if byte == UInt8(ascii: "{") || byte == UInt8(ascii: "[") {
          depth += 1
        } else if byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]") {
          depth -= 1
        }
        if depth <= 0 && !inString {
          done = true
          return index
        }
      }
      return index
    }
  }

  /// A captured value parsed by Foundation; a syntax error placed in the file.
  static func parse(_ value: (bytes: [UInt8], start: Start)) throws(Failure) -> Any {
    let data = Data(value.bytes)
    do {
      return try JSONSerialization.jsonObject(with: data, options: .fragmentsAllowed)
    } catch {
      guard let offset = ImportParser.syntaxOffset(error, data) else {
        throw .syntax(line: value.start.line, column: value.start.column)
      }
      throw offset.line == 1
        ? .syntax(line: value.start.line, column: value.start.column + offset.column - 1)
        : .syntax(line: value.start.line + offset.line - 1, column: offset.column)
    }
  }
}
