import Foundation
import JournalCore

/// The plaintext of a draft (SECURITY.md, "Draft files"): FieldCodec's layout, version 1,
/// with the record's tags for the "Now" fields, `created` for when the draft was started and
/// `updated` for its last write, and, in a draft file of version 2 only, the reflection being
/// written for a saved session. Public for the fuzz harness; the draft store is its only
/// writer.
public enum DraftCodec {
  static let version: UInt8 = 1
  private typealias Tag = FieldCodec.Tag

  private static let nowTags: [Tag] = [
    .date, .treatment, .treatmentName, .moodBefore, .created, .updated, .dose, .intention,
  ]
  private static let tags = FieldCodec.Tags(nowTags)
  private static let reflectionTags = FieldCodec.Tags(nowTags + [.reflection])

  /// The draft file version `stored` is written as: 2 when it holds a reflection (a journal
  /// that reads only version 1 leaves such a file alone rather than finding a tag it does not
  /// know and removing the draft as unreadable), else 1.
  public static func fileVersion(_ stored: StoredDraft) -> UInt8 {
    stored.draft.reflection == nil ? 1 : 2
  }

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
    if let reflection = d.reflection {
      FieldCodec.put(.reflection, text: reflection, into: &out)
    }
    return out
  }

  /// Opens the plaintext of a draft file of version `fileVersion` (1 or 2).
  public static func decode(
    _ bytes: UnsafeRawBufferPointer, id: SessionID, fileVersion: UInt8 = 1
  ) throws -> StoredDraft {
    let fields = try FieldCodec.split(
      bytes, version: version, allowed: fileVersion >= 2 ? reflectionTags : tags)
    guard let started = try FieldCodec.time(fields[.created]),
      let updated = try FieldCodec.time(fields[.updated])
    else { throw FieldCodec.Malformed() }
    var draft = SessionDraft(id: id)
    draft.date = try FieldCodec.time(fields[.date])
    if let key = try FieldCodec.text(fields[.treatment]) {
      let name = try FieldCodec.text(fields[.treatmentName])
      // A name comes with "other" and only with it, as in the session columns.
      guard name == nil || key == "other", let treatment = Treatment(key: key, customName: name)
      else { throw FieldCodec.Malformed() }
      draft.treatment = treatment
    }
    draft.moodBefore = try FieldCodec.mood(fields[.moodBefore])
    draft.dose = try FieldCodec.text(fields[.dose])
    draft.intention = try FieldCodec.text(fields[.intention])
    draft.reflection = try FieldCodec.text(fields[.reflection])
    return StoredDraft(draft: draft, started: started, updated: updated)
  }
}
