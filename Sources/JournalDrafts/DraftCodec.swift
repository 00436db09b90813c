import Foundation
import JournalCore

/// The plaintext of a draft (SECURITY.md, "Draft files"): FieldCodec's layout, version 1,
/// with the record's tags for the "Now" fields, `created` for when the draft was started and
/// `updated` for its last write. Public for the fuzz harness; the draft store is its only
/// writer.
public enum DraftCodec {
  static let version: UInt8 = 1
  private typealias Tag = FieldCodec.Tag

  private static let tags = FieldCodec.Tags([
    .date, .treatment, .treatmentName, .moodBefore, .created, .updated, .dose, .intention,
  ])

  public static func encode(_ stored: StoredDraft) -> [UInt8] {
    var out: [UInt8] = [version]
    let d = stored.draft
    if let date = d.date { FieldCodec.put(.date, time: date, into: &out) }
    if let treatment = d.treatment {
      FieldCodec.put(.treatment, text: treatment.key, into: &out)
      if let name = treatment.customName { FieldCodec.put(.treatmentName, text: name, into: &out) }
    }
    if let mood = d.moodBefore { FieldCodec.put(.moodBefore, mood: mood, into: &out) }
    FieldCodec.put(.created, time: stored.started, into: &out)
    FieldCodec.put(.updated, time: stored.updated, into: &out)
    if let dose = d.dose { FieldCodec.put(.dose, text: dose, into: &out) }
    if let intention = d.intention { FieldCodec.put(.intention, text: intention, into: &out) }
    return out
  }

  public static func decode(_ bytes: UnsafeRawBufferPointer, id: SessionID) throws -> StoredDraft {
    let fields = try FieldCodec.split(bytes, version: version, allowed: tags)
    guard let started = try FieldCodec.time(fields[.created]),
      let updated = try FieldCodec.time(fields[.updated])
    else { throw FieldCodec.Malformed() }
    var draft = SessionDraft(id: id)
    draft.date = try FieldCodec.time(fields[.date])
    if let key = try FieldCodec.text(fields[.treatment]) {
      let name = try FieldCodec.text(fields[.treatmentName])
      guard let treatment = Treatment(key: key, customName: name) else {
        throw FieldCodec.Malformed()
      }
      draft.treatment = treatment
    }
    draft.moodBefore = try FieldCodec.mood(fields[.moodBefore])
    draft.dose = try FieldCodec.text(fields[.dose])
    draft.intention = try FieldCodec.text(fields[.intention])
    return StoredDraft(draft: draft, started: started, updated: updated)
  }
}
