import Foundation
import JournalCore

/// The plaintext layout of a session's two encrypted columns (SECURITY.md, "Record layout").
///
/// Each is a version byte (1) followed by fields as tag (1 byte) ‖ length (4 bytes,
/// little-endian) ‖ value. Times are milliseconds since 1970-01-01 UTC as signed 64-bit
/// little-endian; moods one byte; texts UTF-8. Unknown tags, repeated tags and trailing
/// bytes are errors: a reader must not guess.
enum RecordCodec {
  static let version: UInt8 = 1

  enum Tag: UInt8 {
    case date = 1, treatment = 2, treatmentName = 3, moodBefore = 4, moodAfter = 5
    case status = 6, created = 7, updated = 8
    case dose = 16, intention = 17, environment = 18, music = 19, reflection = 20
  }

  struct Malformed: Error {}

  /// The tags a column may hold, one bit a tag (a set of tags, without hashing per field).
  struct Tags {
    let bits: UInt32

    init(_ tags: [Tag]) { bits = tags.reduce(0) { $0 | 1 << $1.rawValue } }

    func contains(_ tag: Tag) -> Bool { bits & 1 << tag.rawValue != 0 }
  }

  static let summaryTags = Tags([
    .date, .treatment, .treatmentName, .moodBefore, .moodAfter, .status, .created, .updated,
  ])
  static let bodyTags = Tags([.dose, .intention, .environment, .music, .reflection])

  static func encodeSummary(_ s: Session) -> [UInt8] {
    var out: [UInt8] = [version]
    put(.date, time: s.date, into: &out)
    put(.treatment, text: s.treatment.key, into: &out)
    if let name = s.treatment.customName { put(.treatmentName, text: name, into: &out) }
    put(.moodBefore, bytes: [UInt8(s.moodBefore.value)], into: &out)
    if let after = s.moodAfter { put(.moodAfter, bytes: [UInt8(after.value)], into: &out) }
    put(.status, text: s.status.rawValue, into: &out)
    put(.created, time: s.created, into: &out)
    put(.updated, time: s.updated, into: &out)
    return out
  }

  static func encodeBody(_ s: Session) -> [UInt8] {
    var out: [UInt8] = [version]
    out.reserveCapacity(16 + s.intention.utf8.count + (s.reflection?.utf8.count ?? 0))
    if let dose = s.dose { put(.dose, text: dose, into: &out) }
    put(.intention, text: s.intention, into: &out)
    if let text = s.environment { put(.environment, text: text, into: &out) }
    if let text = s.music { put(.music, text: text, into: &out) }
    if let text = s.reflection { put(.reflection, text: text, into: &out) }
    return out
  }

  static func decodeSummary(_ bytes: UnsafeRawBufferPointer, id: SessionID) throws -> SessionSummary
  {
    let fields = try split(bytes, allowed: summaryTags)
    guard let date = try time(fields[.date]), let treatment = try treatment(fields),
      let before = try mood(fields[.moodBefore]),
      let status = status(fields[.status]), status != .draft,
      let created = try time(fields[.created]), let updated = try time(fields[.updated])
    else { throw Malformed() }
    let after = try fields[.moodAfter].map { slice throws in
      guard let mood = try mood(slice) else { throw Malformed() }
      return mood
    }
    return SessionSummary(
      id: id, date: date, treatment: treatment, moodBefore: before, moodAfter: after,
      status: status, created: created, updated: updated)
  }

  /// The treatment from its key and custom name, matching the key's bytes: `list` reads one
  /// per session, and making a String of each key only to compare it cost more. Like
  /// `Treatment(key:customName:)`, a named treatment ignores a (valid) custom name.
  private static func treatment(_ fields: Fields) throws -> Treatment? {
    guard let key = fields[.treatment] else { return nil }
    let name = try text(fields[.treatmentName])
    if equal(key, otherKey) { return name.map { .other($0) } }
    return treatmentKeys.first { equal(key, $0.key) }?.treatment
  }

  private static let otherKey = Array("other".utf8)
  private static let treatmentKeys = Treatment.known.map {
    (treatment: $0, key: Array($0.key.utf8))
  }

  private static func status(_ slice: UnsafeRawBufferPointer?) -> SessionStatus? {
    guard let slice else { return nil }
    return status(named: slice)
  }

  /// The status whose stored name is exactly these bytes.
  static func status(named bytes: UnsafeRawBufferPointer) -> SessionStatus? {
    statusNames.first { equal(bytes, $0.name) }?.status
  }

  private static let statusNames = SessionStatus.allCases.map {
    (status: $0, name: Array($0.rawValue.utf8))
  }

  private static func equal(_ bytes: UnsafeRawBufferPointer, _ other: [UInt8]) -> Bool {
    guard bytes.count == other.count else { return false }
    return other.withUnsafeBytes { other in
      guard let a = bytes.baseAddress, let b = other.baseAddress else { return true }
      return memcmp(a, b, bytes.count) == 0
    }
  }

  struct Body {
    var dose, intention, environment, music, reflection: String?
  }

  static func decodeBody(_ bytes: UnsafeRawBufferPointer) throws -> Body {
    let fields = try split(bytes, allowed: bodyTags)
    let body = Body(
      dose: try text(fields[.dose]), intention: try text(fields[.intention]),
      environment: try text(fields[.environment]), music: try text(fields[.music]),
      reflection: try text(fields[.reflection]))
    guard body.intention != nil else { throw Malformed() }
    return body
  }

  // MARK: - Fields

  private static func put(_ tag: Tag, bytes: some Collection<UInt8>, into out: inout [UInt8]) {
    out.append(tag.rawValue)
    let length = UInt32(bytes.count)
    withUnsafeBytes(of: length.littleEndian) { out.append(contentsOf: $0) }
    out.append(contentsOf: bytes)
  }

  private static func put(_ tag: Tag, text: String, into out: inout [UInt8]) {
    put(tag, bytes: text.utf8, into: &out)
  }

  private static func put(_ tag: Tag, time: Date, into out: inout [UInt8]) {
    let millis = Int64((time.timeIntervalSince1970 * 1000).rounded())
    withUnsafeBytes(of: millis.littleEndian) { put(tag, bytes: $0, into: &out) }
  }

  /// The fields of a plaintext, by tag. A flat table rather than a dictionary: `list` splits
  /// one summary per session.
  struct Fields {
    private var slots = InlineArray<21, UnsafeRawBufferPointer?>(repeating: nil)

    subscript(tag: Tag) -> UnsafeRawBufferPointer? {
      get { slots[Int(tag.rawValue)] }
      set { slots[Int(tag.rawValue)] = newValue }
    }
  }

  private static func split(
    _ bytes: UnsafeRawBufferPointer, allowed: Tags
  ) throws -> Fields {
    guard bytes.first == version else { throw Malformed() }
    var fields = Fields()
    var offset = 1
    while offset < bytes.count {
      guard bytes.count - offset >= 5, let tag = Tag(rawValue: bytes[offset]),
        allowed.contains(tag), fields[tag] == nil
      else { throw Malformed() }
      let count =
        Int(bytes[offset + 1]) | Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3]) << 16
        | Int(bytes[offset + 4]) << 24
      offset += 5
      guard bytes.count - offset >= count else { throw Malformed() }
      fields[tag] = UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + count)])
      offset += count
    }
    return fields
  }

  private static func text(_ slice: UnsafeRawBufferPointer?) throws -> String? {
    guard let slice else { return nil }
    guard let text = String(validating: slice, as: UTF8.self) else { throw Malformed() }
    return text
  }

  private static func time(_ slice: UnsafeRawBufferPointer?) throws -> Date? {
    guard let slice else { return nil }
    guard slice.count == 8 else { throw Malformed() }
    var millis: Int64 = 0
    withUnsafeMutableBytes(of: &millis) { $0.copyMemory(from: slice) }
    return Date(timeIntervalSince1970: Double(Int64(littleEndian: millis)) / 1000)
  }

  private static func mood(_ slice: UnsafeRawBufferPointer?) throws -> Mood? {
    guard let slice else { return nil }
    guard slice.count == 1, let mood = Mood(Int(slice[0])) else { throw Malformed() }
    return mood
  }
}
