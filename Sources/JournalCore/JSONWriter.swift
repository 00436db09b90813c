/// JSON written a value at a time, byte for byte as `SessionDocument.text` (Foundation's
/// JSONEncoder: pretty-printed with two-space indents and " : ", keys sorted, "/" unescaped)
/// writes the same document: commands that stream every session (`list --json`, `export`)
/// write each as it is read instead of encoding the whole journal at once, and the output
/// is the documented schema unchanged. `JSONWriterTests` holds the two to the same bytes.
public struct JSONWriter {
  /// The bytes written so far; the caller takes them (and empties it) when it likes.
  public var bytes: [UInt8] = []
  /// Per open container: whether it has a value yet.
  private var filled: [Bool] = []

  public init() {}

  /// Opens an object, as a value (of an array or of the key just written) or at the top.
  public mutating func beginObject() { open(UInt8(ascii: "{")) }
  public mutating func endObject() { close(UInt8(ascii: "}")) }
  public mutating func beginArray() { open(UInt8(ascii: "[")) }
  public mutating func endArray() { close(UInt8(ascii: "]")) }

  /// The bytes written since the last take, handed over and forgotten (the writer keeps
  /// its capacity): how a streamed document is written a piece at a time.
  public mutating func take() -> [UInt8] {
    defer { bytes.removeAll(keepingCapacity: true) }
    return bytes
  }

  /// Closes the top-level object and ends the document with a newline, as
  /// `SessionDocument.text` does.
  public mutating func endDocument() {
    endObject()
    bytes.append(0x0A)
  }

  /// A value that is an array of session ids, as 32 hex digits each.
  public mutating func value(ids: [SessionID]) {
    beginArray()
    for id in ids { value(id.hex) }
    endArray()
  }

  /// Writes a key of the open object; its value comes next.
  public mutating func key(_ name: String) {
    separate()
    string(name)
    bytes.append(contentsOf: [0x20, 0x3A, 0x20])  // " : "
    pendingValue = true
  }

  /// A string value.
  public mutating func value(_ text: String?) {
    prepareValue()
    if let text { string(text) } else { bytes.append(contentsOf: "null".utf8) }
  }

  /// A whole-number value.
  public mutating func value(_ number: Int?) {
    prepareValue()
    bytes.append(contentsOf: (number.map(String.init) ?? "null").utf8)
  }

  /// A boolean value.
  public mutating func value(_ flag: Bool) {
    prepareValue()
    bytes.append(contentsOf: (flag ? "true" : "false").utf8)
  }

  /// Whether a key was just written, so the next value follows it on the same line.
  private var pendingValue = false

  private mutating func open(_ bracket: UInt8) {
    prepareValue()
    bytes.append(bracket)
    filled.append(false)
  }

  private mutating func close(_ bracket: UInt8) {
    let hadValues = filled.removeLast()
    // An empty container is written "[\n\n<indent>]", as JSONEncoder writes it.
    bytes.append(0x0A)
    if !hadValues { bytes.append(0x0A) }
    indent(filled.count)
    bytes.append(bracket)
  }

  /// Before a value: after a key, nothing; in an array, the separator and indent.
  private mutating func prepareValue() {
    if pendingValue {
      pendingValue = false
      return
    }
    separate()
  }

  /// The comma after the previous value of the open container, a newline and the indent.
  private mutating func separate() {
    guard let last = filled.indices.last else { return }
    if filled[last] { bytes.append(0x2C) }
    filled[last] = true
    bytes.append(0x0A)
    indent(filled.count)
  }

  private mutating func indent(_ depth: Int) {
    bytes.append(contentsOf: repeatElement(0x20, count: 2 * depth))
  }

  private static let hex = Array("0123456789abcdef".utf8)

  /// A JSON string: `"` and `\` escaped, control characters as \b \t \n \f \r or \u00xx,
  /// everything else (slashes and all of Unicode) as its UTF-8.
  private mutating func string(_ text: String) {
    bytes.append(0x22)
    var text = text
    text.withUTF8 { utf8 in
      var start = 0
      for index in utf8.indices {
        let byte = utf8[index]
        guard byte < 0x20 || byte == 0x22 || byte == 0x5C else { continue }
        bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<index]))
        start = index + 1
        switch byte {
        case 0x22: bytes.append(contentsOf: [0x5C, 0x22])
        case 0x5C: bytes.append(contentsOf: [0x5C, 0x5C])
        case 0x08: bytes.append(contentsOf: [0x5C, UInt8(ascii: "b")])
        case 0x09: bytes.append(contentsOf: [0x5C, UInt8(ascii: "t")])
        case 0x0A: bytes.append(contentsOf: [0x5C, UInt8(ascii: "n")])
        case 0x0C: bytes.append(contentsOf: [0x5C, UInt8(ascii: "f")])
        case 0x0D: bytes.append(contentsOf: [0x5C, UInt8(ascii: "r")])
        default:
          bytes.append(contentsOf: "\\u00".utf8)
          bytes.append(Self.hex[Int(byte >> 4)])
          bytes.append(Self.hex[Int(byte & 0x0F)])
        }
      }
      bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start...]))
    }
    bytes.append(0x22)
  }
}

extension SessionDocument {
  /// Writes this document as the next value of `writer`, keys in the order `text` sorts
  /// them, null where it writes null.
  public func write(to writer: inout JSONWriter) {
    writer.beginObject()
    if let addedWithoutPassphrase {
      writer.key(Key.addedWithoutPassphrase.rawValue)
      writer.value(addedWithoutPassphrase)
    }
    if let conflicts = body?.conflicts, !conflicts.isEmpty {
      writer.key(Key.conflicts.rawValue)
      writer.beginArray()
      for conflict in conflicts {
        writer.beginObject()
        writer.key("field")
        writer.value(conflict.field)
        writer.key("text")
        writer.value(conflict.text)
        writer.key("written")
        writer.value(conflict.written)
        writer.endObject()
      }
      writer.endArray()
    }
    writer.key(Key.created.rawValue)
    writer.value(created)
    writer.key(Key.date.rawValue)
    writer.value(date)
    if let body {
      writer.key(Key.dose.rawValue)
      writer.value(body.dose)
      writer.key(Key.environment.rawValue)
      writer.value(body.environment)
    }
    writer.key(Key.id.rawValue)
    writer.value(id)
    if let body {
      writer.key(Key.intention.rawValue)
      writer.value(body.intention)
    }
    if let laterWithoutPassphrase {
      writer.key(Key.laterWithoutPassphrase.rawValue)
      writer.value(laterWithoutPassphrase)
    }
    writer.key(Key.moodAfter.rawValue)
    writer.value(moodAfter)
    writer.key(Key.moodBefore.rawValue)
    writer.value(moodBefore)
    if let body {
      writer.key(Key.music.rawValue)
      writer.value(body.music)
      if !body.notes.isEmpty {
        writer.key(Key.notes.rawValue)
        writer.beginArray()
        for note in body.notes { note.write(to: &writer) }
        writer.endArray()
      }
      writer.key(Key.reflection.rawValue)
      writer.value(body.reflection)
    }
    if let shortID {
      writer.key(Key.shortID.rawValue)
      writer.value(shortID)
    }
    writer.key(Key.status.rawValue)
    writer.value(status)
    if !tags.isEmpty {
      writer.key(Key.tags.rawValue)
      writer.beginArray()
      for tag in tags { writer.value(tag) }
      writer.endArray()
    }
    writer.key(Key.treatment.rawValue)
    writer.value(treatment)
    writer.key(Key.treatmentName.rawValue)
    writer.value(treatmentName)
    writer.key(Key.updated.rawValue)
    writer.value(updated)
    writer.endObject()
  }
}

extension SessionDocument.NoteDocument {
  /// Writes this note as the next value of `writer`, keys sorted as `text` sorts them.
  public func write(to writer: inout JSONWriter) {
    writer.beginObject()
    if let addedWithoutPassphrase {
      writer.key(CodingKeys.addedWithoutPassphrase.rawValue)
      writer.value(addedWithoutPassphrase)
    }
    if let edited {
      writer.key(CodingKeys.edited.rawValue)
      writer.value(edited)
    }
    writer.key(CodingKeys.id.rawValue)
    writer.value(id)
    if let keptFrom {
      writer.key(CodingKeys.keptFrom.rawValue)
      writer.value(keptFrom)
    }
    writer.key(CodingKeys.mood.rawValue)
    writer.value(mood)
    writer.key(CodingKeys.text.rawValue)
    writer.value(text)
    writer.key(CodingKeys.version.rawValue)
    writer.value(version)
    writer.key(CodingKeys.written.rawValue)
    writer.value(written)
    writer.endObject()
  }
}
