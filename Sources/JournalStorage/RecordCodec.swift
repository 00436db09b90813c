import Foundation
import JournalCore
import JournalCrypto

/// The plaintext layout of a session's two encrypted columns (SECURITY.md, "Record layout"):
/// which of FieldCodec's tags each holds. Public for the fuzz harness and the independent
/// checks; the store is its only writer.
public enum RecordCodec {
  static let version: UInt8 = 1
  typealias Tag = FieldCodec.Tag
  typealias Tags = FieldCodec.Tags
  typealias Fields = FieldCodec.Fields
  typealias Malformed = FieldCodec.Malformed

  static let summaryTags = Tags([
    .date, .treatment, .treatmentName, .moodBefore, .moodAfter, .status, .created, .updated,
    .addedMark, .laterMark, .tags, .noteMoods,
  ])
  static let bodyTags = Tags([
    .dose, .intention, .environment, .music, .reflection, .addedSealed, .laterSealed,
    .conflicts, .notes,
  ])

  public static func encodeSummary(_ s: Session) -> [UInt8] {
    var out: [UInt8] = [version]
    put(.date, time: s.date, into: &out)
    put(.treatment, text: s.treatment.key, into: &out)
    if let name = s.treatment.customName { put(.treatmentName, text: name, into: &out) }
    if let before = s.moodBefore { put(.moodBefore, bytes: [UInt8(before.value)], into: &out) }
    if let after = s.moodAfter { put(.moodAfter, bytes: [UInt8(after.value)], into: &out) }
    put(.status, text: s.status.rawValue, into: &out)
    put(.created, time: s.created, into: &out)
    put(.updated, time: s.updated, into: &out)
    if let time = s.addedSealed { put(.addedMark, time: time, into: &out) }
    if let time = s.laterSealed { put(.laterMark, time: time, into: &out) }
    if !s.tags.isEmpty { FieldCodec.put(.tags, tags: s.tags, into: &out) }
    let moods = s.noteMoods
    if !moods.isEmpty { FieldCodec.put(.noteMoods, noteMoods: moods, into: &out) }
    return out
  }

  public static func encodeBody(_ s: Session) -> [UInt8] {
    var out: [UInt8] = [version]
    out.reserveCapacity(16 + s.intention.utf8.count + (s.reflection?.utf8.count ?? 0))
    if let dose = s.dose { put(.dose, text: dose, into: &out) }
    put(.intention, text: s.intention, into: &out)
    if let text = s.environment { put(.environment, text: text, into: &out) }
    if let text = s.music { put(.music, text: text, into: &out) }
    if let text = s.reflection { put(.reflection, text: text, into: &out) }
    // The marks are in the summary (format 11); tags 21 and 22 are only read.
    if !s.conflicts.isEmpty { FieldCodec.put(.conflicts, conflicts: s.conflicts, into: &out) }
    if !s.notes.isEmpty { FieldCodec.put(.notes, notes: s.notes, into: &out) }
    return out
  }

  public static func decodeSummary(
    _ bytes: UnsafeRawBufferPointer, id: SessionID
  ) throws -> SessionSummary {
    try summary(try split(bytes, allowed: summaryTags), id: id)
  }

  private static func summary(_ fields: Fields, id: SessionID) throws -> SessionSummary {
    guard let date = try time(fields[.date]), let treatment = try treatment(fields),
      let status = status(fields[.status]), status != .draft,
      let created = try time(fields[.created]), let updated = try time(fields[.updated])
    else { throw Malformed() }
    // Both moods may be absent: a mood before was not recorded by the tool a session was
    // imported from, a mood after not given yet. FieldCodec.mood refuses a present but bad one.
    let before = try mood(fields[.moodBefore])
    let after = try mood(fields[.moodAfter])
    return SessionSummary(
      id: id, date: date, treatment: treatment, moodBefore: before, moodAfter: after,
      status: status, created: created, updated: updated,
      addedSealed: try time(fields[.addedMark]), laterSealed: try time(fields[.laterMark]),
      tags: try FieldCodec.tags(fields[.tags]),
      noteMoods: try FieldCodec.noteMoods(fields[.noteMoods]))
  }

  /// The treatment from its key and custom name, matching the key's bytes: `list` reads one
  /// per session, and making a String of each key only to compare it cost more. A name
  /// comes with `other` and only with it (SECURITY.md): either way round is damage.
  private static func treatment(_ fields: Fields) throws -> Treatment? {
    guard let key = fields[.treatment] else { return nil }
    let name = try text(fields[.treatmentName])
    if equal(key, otherKey) { return name.map { .other($0) } }
    guard name == nil else { throw Malformed() }
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
  public static func status(named bytes: UnsafeRawBufferPointer) -> SessionStatus? {
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

  public struct Body {
    public var dose, intention, environment, music, reflection: String?
    /// The marks of what was added without the passphrase (format 7), in a body written
    /// before format 11.
    public var addedSealed, laterSealed: Date?
    /// Texts kept from another device's write at the same time (format 10).
    public var conflicts: [Conflict] = []
    /// Integration notes (format 14).
    public var notes: [Note] = []
  }

  public static func decodeBody(_ bytes: UnsafeRawBufferPointer) throws -> Body {
    try body(try split(bytes, allowed: bodyTags))
  }

  private static func body(_ fields: Fields) throws -> Body {
    let body = Body(
      dose: try text(fields[.dose]), intention: try text(fields[.intention]),
      environment: try text(fields[.environment]), music: try text(fields[.music]),
      reflection: try text(fields[.reflection]), addedSealed: try time(fields[.addedSealed]),
      laterSealed: try time(fields[.laterSealed]),
      conflicts: try FieldCodec.conflicts(fields[.conflicts]),
      notes: try FieldCodec.notes(fields[.notes]))
    guard body.intention != nil else { throw Malformed() }
    return body
  }

  // MARK: - Sealed additions (SECURITY.md, "Sealed additions")

  /// A new session's fields as one plaintext: the summary's fields then the body's, in
  /// ascending order of tag, without the marks (the opening sets them from the clear row).
  static let newAdditionTags = Tags([
    .date, .treatment, .treatmentName, .moodBefore, .moodAfter, .status, .created, .updated,
    .tags, .dose, .intention, .environment, .music, .reflection,
  ])
  /// Later fields: the time they were written (tag 8), and any of mood after, environment,
  /// music and reflection; or (format 14) one integration note.
  static let laterAdditionTags = Tags([
    .moodAfter, .updated, .environment, .music, .reflection, .notes,
  ])

  public static func encodeNewAddition(_ s: Session) -> [UInt8] {
    var unmarked = s
    unmarked.clearSealedMarks()
    var summary = encodeSummary(unmarked)
    var body = encodeBody(unmarked)
    defer {
      wipe(&summary)
      wipe(&body)
    }
    var out: [UInt8] = []
    out.reserveCapacity(summary.count + body.count)
    out += summary
    out += body.dropFirst()
    return out
  }

  /// A new session from its sealed addition's plaintext, checked as a stored one is.
  public static func decodeNewAddition(
    _ bytes: UnsafeRawBufferPointer, id: SessionID
  ) throws -> Session {
    let fields = try split(bytes, allowed: newAdditionTags)
    let opened = try session(summary(fields, id: id), body(fields))
    // No longer than a form takes: journal never seals more, and a session must stay one an
    // export brings back in.
    let tooLong = Field.allCases.contains { field in
      (opened.text(of: field)?.utf8.count ?? 0) > field.maximumBytes
    }
    guard !tooLong else { throw Malformed() }
    // And only what a form takes: texts as typed texts are checked (no control character
    // a terminal would act on when `show` prints it), a custom treatment's name too.
    for field in [Field.dose, .intention, .environment, .music, .reflection] {
      guard typed(opened.text(of: field), field) else { throw Malformed() }
    }
    if let name = opened.treatment.customName {
      guard !name.isEmpty, name.trimmingWhitespace() == name,
        name.count <= Treatment.maximumCustomLength, !name.containsControlCharacters
      else { throw Malformed() }
    }
    return opened
  }

  /// Whether `text` is as a form leaves what a person typed into `field` (nil: nothing).
  static func typed(_ text: String?, _ field: Field) -> Bool {
    guard let text else { return true }
    return (try? Text.normalise(text, field: field, multiline: field != .dose)) == text
  }

  /// A whole session from its two opened parts: complete exactly when reflected on
  /// (SECURITY.md), either way round is damage.
  public static func session(_ summary: SessionSummary, _ body: Body) throws -> Session {
    guard let intention = body.intention,
      (summary.status == .complete) == (body.reflection != nil)
    else { throw Malformed() }
    // The summary's note moods are the body's notes' (their order FieldCodec checked):
    // anything else is damage.
    guard NoteMood.of(body.notes, after: summary.date) == summary.noteMoods else {
      throw Malformed()
    }
    // A mark in both places is one a reader could not choose between.
    guard summary.addedSealed == nil || body.addedSealed == nil,
      summary.laterSealed == nil || body.laterSealed == nil
    else { throw Malformed() }
    return Session(
      id: summary.id, date: summary.date, treatment: summary.treatment, dose: body.dose,
      intention: intention, moodBefore: summary.moodBefore, environment: body.environment,
      music: body.music, moodAfter: summary.moodAfter, reflection: body.reflection,
      created: summary.created, updated: summary.updated, status: summary.status,
      addedSealed: summary.addedSealed ?? body.addedSealed,
      laterSealed: summary.laterSealed ?? body.laterSealed, conflicts: body.conflicts,
      tags: summary.tags, notes: body.notes)
  }

  /// One integration note as a later addition's plaintext, with the time it was written.
  public static func encodeNoteAddition(_ note: Note, at time: Date) -> [UInt8] {
    var out: [UInt8] = [version]
    put(.updated, time: time, into: &out)
    FieldCodec.put(.notes, notes: [note], into: &out)
    return out
  }

  /// Later fields as one plaintext, with the time they were written.
  public static func encodeLaterAddition(_ changes: [Session.Change], at time: Date) -> [UInt8] {
    var out: [UInt8] = [version]
    var mood: Mood?
    var texts: [Tag: String] = [:]
    for change in changes {
      switch change {
      case .moodAfter(let value): mood = value
      case .environment(let text?): texts[.environment] = text
      case .music(let text?): texts[.music] = text
      case .reflection(let text?): texts[.reflection] = text
      case .environment(nil), .music(nil), .reflection(nil), .date, .treatment, .dose,
        .intention, .moodBefore:
        preconditionFailure("only later fields with a value are sealed")
      }
    }
    if let mood { put(.moodAfter, bytes: [UInt8(mood.value)], into: &out) }
    put(.updated, time: time, into: &out)
    for tag in [Tag.environment, .music, .reflection] {
      if let text = texts[tag] { put(tag, text: text, into: &out) }
    }
    return out
  }

  /// The later fields of a sealed addition, or its note, and when they were written. A note
  /// comes alone (no later field beside it), as the writer's word: its text and mood, no
  /// longer than a form takes; everything else about it is set when it is opened.
  public static func decodeLaterAddition(
    _ bytes: UnsafeRawBufferPointer
  ) throws -> (changes: [Session.Change], note: Note?, written: Date) {
    let fields = try split(bytes, allowed: laterAdditionTags)
    guard let written = try time(fields[.updated]) else { throw Malformed() }
    if fields[.notes] != nil {
      let notes = try FieldCodec.notes(fields[.notes])
      guard notes.count == 1, let note = notes.first, !note.text.isEmpty,
        fields[.moodAfter] == nil, fields[.environment] == nil, fields[.music] == nil,
        fields[.reflection] == nil
      else { throw Malformed() }
      return ([], note, written)
    }
    var changes: [Session.Change] = []
    if let mood = try mood(fields[.moodAfter]) { changes.append(.moodAfter(mood)) }
    if let text = try text(fields[.environment]) { changes.append(.environment(text)) }
    if let text = try text(fields[.music]) { changes.append(.music(text)) }
    // The reflection last: a failure on an earlier field never completes the session.
    if let text = try text(fields[.reflection]) { changes.append(.reflection(text)) }
    guard !changes.isEmpty else { throw Malformed() }
    // No longer than a form takes (see `decodeNewAddition`).
    for change in changes {
      if let text = change.text, text.utf8.count > change.field.maximumBytes { throw Malformed() }
      guard typed(change.text, change.field) else { throw Malformed() }
    }
    return (changes, nil, written)
  }

  // MARK: - Fields

  private static func put(_ tag: Tag, bytes: some Collection<UInt8>, into out: inout [UInt8]) {
    FieldCodec.put(tag, bytes: bytes, into: &out)
  }

  private static func put(_ tag: Tag, text: String, into out: inout [UInt8]) {
    FieldCodec.put(tag, text: text, into: &out)
  }

  private static func put(_ tag: Tag, time: Date, into out: inout [UInt8]) {
    FieldCodec.put(tag, time: time, into: &out)
  }

  private static func split(_ bytes: UnsafeRawBufferPointer, allowed: Tags) throws -> Fields {
    try FieldCodec.split(bytes, version: version, allowed: allowed)
  }

  private static func text(_ slice: UnsafeRawBufferPointer?) throws -> String? {
    try FieldCodec.text(slice)
  }

  private static func time(_ slice: UnsafeRawBufferPointer?) throws -> Date? {
    try FieldCodec.time(slice)
  }

  private static func mood(_ slice: UnsafeRawBufferPointer?) throws -> Mood? {
    try FieldCodec.mood(slice)
  }
}
