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
    case dose = 16, intention = 17, environment = 18, music = 19, reflection = 20
    /// When the session was added, and when later fields were last added, without the
    /// passphrase (sealed additions, format 7): marks kept for good, in the body of rows
    /// written before format 11 (read, never written).
    case addedSealed = 21, laterSealed = 22
    /// Texts another device wrote at the same time, kept by sync (format 10).
    case conflicts = 23
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
    private var slots = InlineArray<24, UnsafeRawBufferPointer?>(repeating: nil)

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
}
