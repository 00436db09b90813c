import Foundation

/// The one TLV layout of every sealed plaintext (SECURITY.md, "Record layout" and "Draft
/// files"): a version byte, then fields as tag (1 byte) ‖ length (4 bytes, little-endian) ‖
/// value. Times are milliseconds since 1970-01-01 UTC as signed 64-bit little-endian; moods
/// one byte; texts UTF-8. Tags strictly ascend. Unknown tags, tags a layout does not allow,
/// tags out of order (a repeated one among them) and lengths past the end are errors: a
/// reader must not guess.
///
/// The session's two columns (RecordCodec) and a draft (DraftCodec) are layouts over it:
/// which tags each holds, and which are required.
public enum FieldCodec {
  /// The tags, one numbering for every layout (a draft's "started" is the record's created).
  public enum Tag: UInt8, Sendable {
    case date = 1, treatment = 2, treatmentName = 3, moodBefore = 4, moodAfter = 5
    case status = 6, created = 7, updated = 8
    /// The same two marks as 21 and 22, in the summary since format 11, so that `list`
    /// shows them from the summaries it reads.
    case addedMark = 9, laterMark = 10
    /// The session's tags, in the summary so that `list --tag` reads no body (format 14).
    case tags = 11
    /// The moods of its notes with the days since the session, in the summary so that
    /// `trends` reads no body (format 14): the body's notes say the same.
    case noteMoods = 12
    case dose = 16, intention = 17, environment = 18, music = 19, reflection = 20
    /// When the session was added, and when later fields were last added, without the
    /// passphrase (sealed additions, format 7): marks kept for good, in the body of rows
    /// written before format 11 (read, never written).
    case addedSealed = 21, laterSealed = 22
    /// Texts another device wrote at the same time, kept by sync (format 10).
    case conflicts = 23
    /// The session's integration notes (format 14).
    case notes = 24
  }

  /// A plaintext that does not follow the layout. Carries nothing of its content.
  public struct Malformed: Error, Equatable {
    public init() {}
  }

  /// The tags a layout may hold, one bit a tag (a set without hashing per field).
  public struct Tags: Sendable {
    let bits: UInt32

    public init(_ tags: [Tag]) { bits = tags.reduce(0) { $0 | 1 << $1.rawValue } }

    public func contains(_ tag: Tag) -> Bool { bits & 1 << tag.rawValue != 0 }
  }

  /// The fields of a plaintext, by tag: slices of the bytes split. A flat table rather than
  /// a dictionary: `list` splits one summary per session.
  public struct Fields {
    private var slots = InlineArray<25, UnsafeRawBufferPointer?>(repeating: nil)

    public subscript(tag: Tag) -> UnsafeRawBufferPointer? {
      get { slots[Int(tag.rawValue)] }
      set { slots[Int(tag.rawValue)] = newValue }
    }
  }

  // MARK: - Writing

  public static func put(_ tag: Tag, bytes: some Collection<UInt8>, into out: inout [UInt8]) {
    out.append(tag.rawValue)
    out.append(littleEndian: UInt32(bytes.count))
    out.append(contentsOf: bytes)
  }

  public static func put(_ tag: Tag, text: String, into out: inout [UInt8]) {
    put(tag, bytes: text.utf8, into: &out)
  }

  public static func put(_ tag: Tag, time: Date, into out: inout [UInt8]) {
    out.append(tag.rawValue)
    out.append(littleEndian: UInt32(8))
    out.append(littleEndian: StoredRange.millis(time))
  }

  public static func put(_ tag: Tag, mood: Mood, into out: inout [UInt8]) {
    put(tag, bytes: [UInt8(mood.value)], into: &out)
  }

  // MARK: - Reading

  /// Splits `bytes` (which must start with `version`) into fields, allowing only `allowed`.
  public static func split(
    _ bytes: UnsafeRawBufferPointer, version: UInt8, allowed: Tags
  ) throws(Malformed) -> Fields {
    guard bytes.first == version else { throw Malformed() }
    var fields = Fields()
    var reader = ByteReader(bytes, from: 1)
    var previous: UInt8 = 0
    while !reader.isAtEnd {
      guard let tag = (try? reader.byte()).flatMap(Tag.init(rawValue:)), allowed.contains(tag),
        tag.rawValue > previous, let length = try? reader.littleEndian(UInt32.self),
        let value = try? reader.bytes(Int(length))
      else { throw Malformed() }
      previous = tag.rawValue
      fields[tag] = value
    }
    return fields
  }

  /// A text field: valid UTF-8, or an error.
  public static func text(_ slice: UnsafeRawBufferPointer?) throws(Malformed) -> String? {
    guard let slice else { return nil }
    guard let text = String(validating: slice, as: UTF8.self) else { throw Malformed() }
    return text
  }

  /// A time field: exactly 8 bytes, an instant within `StoredRange.millis`.
  public static func time(_ slice: UnsafeRawBufferPointer?) throws(Malformed) -> Date? {
    guard let slice else { return nil }
    var reader = ByteReader(slice)
    guard slice.count == 8, let millis = try? reader.littleEndian(Int64.self),
      let date = StoredRange.date(millis: millis)
    else { throw Malformed() }
    return date
  }

  /// The kept conflicts as one field's value: for each, the field's tag (1), the stamp (28),
  /// the text's length (4, little-endian) and the text.
  public static func put(_ tag: Tag, conflicts: [Conflict], into out: inout [UInt8]) {
    var value: [UInt8] = []
    for conflict in conflicts {
      value.append(conflict.field.tag.rawValue)
      value += conflict.stamp.encoded
      value.append(littleEndian: UInt32(conflict.text.utf8.count))
      value += Array(conflict.text.utf8)
    }
    put(tag, bytes: value, into: &out)
  }

  /// The kept conflicts of a field written by `put(_:conflicts:into:)`: only texts, and never
  /// an empty list.
  public static func conflicts(_ slice: UnsafeRawBufferPointer?) throws(Malformed) -> [Conflict] {
    guard let slice else { return [] }
    var conflicts: [Conflict] = []
    var reader = ByteReader(slice)
    while !reader.isAtEnd {
      guard let tag = (try? reader.byte()).flatMap(Tag.init(rawValue:)),
        let field = Field.allCases.first(where: { $0.tag == tag }),
        SyncField(field)?.keepsLoser == true,
        let stamp = try? SyncStamp(reading: &reader),
        stamp.time <= UInt64(StoredRange.millis.upperBound),
        let length = try? reader.littleEndian(UInt32.self),
        let text = (try? reader.bytes(Int(length))).flatMap({
          String(validating: $0, as: UTF8.self)
        })
      else { throw Malformed() }
      conflicts.append(Conflict(field: field, text: text, stamp: stamp))
    }
    guard !conflicts.isEmpty else { throw Malformed() }
    return conflicts
  }

  /// A mood field: exactly one byte, 1 to 10.
  public static func mood(_ slice: UnsafeRawBufferPointer?) throws(Malformed) -> Mood? {
    guard let slice else { return nil }
    guard slice.count == 1, let mood = Mood(Int(slice[0])) else { throw Malformed() }
    return mood
  }

  /// Tags as one field's value: for each, its length (1) and its UTF-8.
  public static func put(_ tag: Tag, tags: [String], into out: inout [UInt8]) {
    var value: [UInt8] = []
    for name in tags {
      value.append(UInt8(name.utf8.count))
      value += Array(name.utf8)
    }
    put(tag, bytes: value, into: &out)
  }

  /// The tags of a field written by `put(_:tags:into:)`: never an empty list, each as
  /// `JournalCore.Tag` stores it.
  public static func tags(_ slice: UnsafeRawBufferPointer?) throws(Malformed) -> [String] {
    guard let slice else { return [] }
    var tags: [String] = []
    var reader = ByteReader(slice)
    while !reader.isAtEnd {
      guard let length = try? reader.byte(), let bytes = try? reader.bytes(Int(length)),
        let name = String(validating: bytes, as: UTF8.self)
      else { throw Malformed() }
      tags.append(name)
    }
    guard !tags.isEmpty, JournalCore.Tag.isStored(tags) else { throw Malformed() }
    return tags
  }

  /// Notes as one field's value (SECURITY.md, "Record layout"): for each, flags (1: bit 0 a
  /// mood, 1 edited, 2 deleted, 3 a window to purge, 4 added without the passphrase, 5 kept
  /// from another note) ‖ id (8) ‖ written (8) ‖ edited, deleted, purge after, kept from (8
  /// each, when flagged) ‖ mood (1, when flagged) ‖ versions (1, 1 to 8) ‖ each version (8)
  /// ‖ the text's length (4) ‖ the text. Integers and times little-endian.
  public static func put(_ tag: Tag, notes: [Note], into out: inout [UInt8]) {
    var value: [UInt8] = []
    for note in notes {
      var flags: UInt8 = 0
      if note.mood != nil { flags |= 1 }
      if note.edited != nil { flags |= 2 }
      if note.deleted != nil { flags |= 4 }
      if note.purgeAfter != nil { flags |= 8 }
      if note.addedSealed { flags |= 16 }
      if note.keptFrom != nil { flags |= 32 }
      value.append(flags)
      value.append(littleEndian: note.id.value)
      value.append(littleEndian: StoredRange.millis(note.written))
      for time in [note.edited, note.deleted, note.purgeAfter].compactMap({ $0 }) {
        value.append(littleEndian: StoredRange.millis(time))
      }
      if let kept = note.keptFrom { value.append(littleEndian: kept.value) }
      if let mood = note.mood { value.append(UInt8(mood.value)) }
      value.append(UInt8(note.versions.count))
      for version in note.versions { value.append(littleEndian: version) }
      value.append(littleEndian: UInt32(note.text.utf8.count))
      value += Array(note.text.utf8)
    }
    put(tag, bytes: value, into: &out)
  }

  /// The notes of a field written by `put(_:notes:into:)`: never an empty list, in the order
  /// written (by time, then id), each id once.
  public static func notes(_ slice: UnsafeRawBufferPointer?) throws(Malformed) -> [Note] {
    guard let slice else { return [] }
    var notes: [Note] = []
    var reader = ByteReader(slice)
    func time(_ reader: inout ByteReader) throws(Malformed) -> Date {
      guard let millis = try? reader.littleEndian(Int64.self),
        let date = StoredRange.date(millis: millis)
      else { throw Malformed() }
      return date
    }
    func id(_ reader: inout ByteReader) throws(Malformed) -> Note.ID {
      guard let value = try? reader.littleEndian(UInt64.self) else { throw Malformed() }
      return Note.ID(value)
    }
    while !reader.isAtEnd {
      guard let flags = try? reader.byte(), flags < 64,
        // A window to purge only on a deleted note.
        flags & 8 == 0 || flags & 4 != 0
      else { throw Malformed() }
      let noteID = try id(&reader)
      let written = try time(&reader)
      let edited = flags & 2 != 0 ? try time(&reader) : nil
      let deleted = flags & 4 != 0 ? try time(&reader) : nil
      let purgeAfter = flags & 8 != 0 ? try time(&reader) : nil
      let keptFrom = flags & 32 != 0 ? try id(&reader) : nil
      var mood: Mood?
      if flags & 1 != 0 {
        guard let byte = try? reader.byte(), let value = Mood(Int(byte)) else { throw Malformed() }
        mood = value
      }
      guard let count = try? reader.byte(), (1...Note.remembered).contains(Int(count))
      else { throw Malformed() }
      var versions: [UInt64] = []
      for _ in 0..<count {
        guard let version = try? reader.littleEndian(UInt64.self) else { throw Malformed() }
        versions.append(version)
      }
      guard let length = try? reader.littleEndian(UInt32.self), length <= Note.maximumBytes,
        let bytes = try? reader.bytes(Int(length)),
        let text = String(validating: bytes, as: UTF8.self)
      else { throw Malformed() }
      let note = Note(
        id: noteID, written: written, edited: edited, mood: mood, text: text, deleted: deleted,
        purgeAfter: purgeAfter, addedSealed: flags & 16 != 0, keptFrom: keptFrom,
        versions: versions)
      if let last = notes.last, (last.written, last.id) >= (written, noteID) { throw Malformed() }
      notes.append(note)
    }
    guard !notes.isEmpty, notes.count <= Note.readableCount,
      notes.reduce(0, { $0 + $1.text.utf8.count }) <= Note.readableTotalBytes,
      Set(notes.map(\.id)).count == notes.count
    else { throw Malformed() }
    return notes
  }

  /// Note moods as one field's value: for each, the days (2, little-endian) and the mood (1).
  public static func put(_ tag: Tag, noteMoods: [NoteMood], into out: inout [UInt8]) {
    var value: [UInt8] = []
    for item in noteMoods {
      value.append(littleEndian: item.days)
      value.append(UInt8(item.mood.value))
    }
    put(tag, bytes: value, into: &out)
  }

  /// The note moods of a field written by `put(_:noteMoods:into:)`: never an empty list.
  public static func noteMoods(_ slice: UnsafeRawBufferPointer?) throws(Malformed) -> [NoteMood] {
    guard let slice else { return [] }
    guard !slice.isEmpty, slice.count % 3 == 0 else { throw Malformed() }
    var out: [NoteMood] = []
    var reader = ByteReader(slice)
    while !reader.isAtEnd {
      guard let days = try? reader.littleEndian(UInt16.self), let byte = try? reader.byte(),
        let mood = Mood(Int(byte))
      else { throw Malformed() }
      out.append(NoteMood(days: days, mood: mood))
    }
    return out
  }
}
