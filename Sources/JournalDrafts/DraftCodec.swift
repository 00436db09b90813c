import Foundation
import JournalCore

/// The plaintext of a draft (SECURITY.md, "Draft files"): a version byte (1), then fields as
/// tag (1) ‖ length (4, little-endian) ‖ value, with the record layout's tags and types.
enum DraftCodec {
  static let version: UInt8 = 1

  enum Tag: UInt8 {
    case date = 1, treatment = 2, treatmentName = 3, moodBefore = 4
    case started = 7, updated = 8, dose = 16, intention = 17
  }

  struct Malformed: Error {}

  static func encode(_ stored: StoredDraft) -> [UInt8] {
    var out: [UInt8] = [version]
    let d = stored.draft
    if let date = d.date { put(.date, time: date, into: &out) }
    if let treatment = d.treatment {
      put(.treatment, bytes: Array(treatment.key.utf8), into: &out)
      if let name = treatment.customName {
        put(.treatmentName, bytes: Array(name.utf8), into: &out)
      }
    }
    if let mood = d.moodBefore { put(.moodBefore, bytes: [UInt8(mood.value)], into: &out) }
    put(.started, time: stored.started, into: &out)
    put(.updated, time: stored.updated, into: &out)
    if let dose = d.dose { put(.dose, bytes: Array(dose.utf8), into: &out) }
    if let intention = d.intention { put(.intention, bytes: Array(intention.utf8), into: &out) }
    return out
  }

  static func decode(_ bytes: UnsafeRawBufferPointer, id: SessionID) throws -> StoredDraft {
    guard bytes.first == version else { throw Malformed() }
    var fields: [Tag: [UInt8]] = [:]
    var offset = 1
    while offset < bytes.count {
      guard bytes.count - offset >= 5, let tag = Tag(rawValue: bytes[offset]), fields[tag] == nil
      else { throw Malformed() }
      let length =
        Int(bytes[offset + 1]) | Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3]) << 16
        | Int(bytes[offset + 4]) << 24
      offset += 5
      guard bytes.count - offset >= length else { throw Malformed() }
      fields[tag] = Array(bytes[offset..<(offset + length)])
      offset += length
    }
    guard let started = try time(fields[.started]), let updated = try time(fields[.updated])
    else { throw Malformed() }
    var draft = SessionDraft(id: id)
    draft.date = try time(fields[.date])
    if let key = try text(fields[.treatment]) {
      guard let treatment = Treatment(key: key, customName: try text(fields[.treatmentName])) else {
        throw Malformed()
      }
      draft.treatment = treatment
    }
    if let mood = fields[.moodBefore] {
      guard mood.count == 1, let value = Mood(Int(mood[0])) else { throw Malformed() }
      draft.moodBefore = value
    }
    draft.dose = try text(fields[.dose])
    draft.intention = try text(fields[.intention])
    return StoredDraft(draft: draft, started: started, updated: updated)
  }

  private static func put(_ tag: Tag, bytes: [UInt8], into out: inout [UInt8]) {
    out.append(tag.rawValue)
    let length = UInt32(bytes.count)
    for shift in stride(from: 0, to: 32, by: 8) {
      out.append(UInt8(truncatingIfNeeded: length >> shift))
    }
    out.append(contentsOf: bytes)
  }

  private static func put(_ tag: Tag, time: Date, into out: inout [UInt8]) {
    let millis = UInt64(bitPattern: Int64((time.timeIntervalSince1970 * 1000).rounded()))
    put(tag, bytes: (0..<8).map { UInt8(truncatingIfNeeded: millis >> (8 * $0)) }, into: &out)
  }

  private static func time(_ bytes: [UInt8]?) throws -> Date? {
    guard let bytes else { return nil }
    guard bytes.count == 8 else { throw Malformed() }
    let raw = bytes.enumerated().reduce(UInt64(0)) { $0 | UInt64($1.element) << (8 * $1.offset) }
    return Date(timeIntervalSince1970: Double(Int64(bitPattern: raw)) / 1000)
  }

  private static func text(_ bytes: [UInt8]?) throws -> String? {
    guard let bytes else { return nil }
    guard let text = String(validating: bytes, as: UTF8.self) else { throw Malformed() }
    return text
  }
}
