import Foundation

/// A session as JSON: the one definition of its keys and values, for `export` (and so
/// `import`, which reads exports back), `list --json` and `show --json`; next, the sync
/// wire format. Dates are ISO8601's one written form; empty optional fields are `null` (and
/// so is a mood before that was not recorded);
/// `short_id` appears only in what `--json` prints, the body fields only with the body.
public struct SessionDocument: Codable, Equatable, Sendable {
  /// The JSON keys, one place.
  public enum Key: String, CodingKey {
    case id, date, treatment, status, created, updated, dose, intention, environment, music
    case reflection, conflicts, tags, notes
    case shortID = "short_id"
    case treatmentName = "treatment_name"
    case moodBefore = "mood_before"
    case moodAfter = "mood_after"
    /// The marks of what was written without the passphrase (sealed capture): when the
    /// session was added, and when later fields were last added, that way. Present only on
    /// a marked session; they travel wherever the session does, and an import keeps them.
    case addedWithoutPassphrase = "added_without_passphrase"
    case laterWithoutPassphrase = "later_fields_without_passphrase"
  }

  /// The long fields, which a summary does not carry.
  public struct Body: Equatable, Sendable {
    public var dose: String?
    public var intention: String
    public var environment: String?
    public var music: String?
    public var reflection: String?
    /// Texts another device wrote at the same time, kept (sync); written only when there
    /// are some, as `conflicts`: [{"field", "text", "written"}].
    public var conflicts: [KeptText] = []
    /// Integration notes, oldest first (deleted ones left out), as `notes`: [{"id",
    /// "version", "written", "edited", "mood", "text"}], and "kept_from",
    /// "added_without_passphrase" where they apply. Written only when there are some.
    public var notes: [NoteDocument] = []
  }

  /// One integration note as JSON holds it: its id and current version (16 hex digits
  /// each, so that a note imported again is the same note on every device), when it was
  /// written and last corrected, its mood (null when none) and text.
  public struct NoteDocument: Codable, Equatable, Sendable {
    public var id: String
    public var version: String
    public var written: String
    public var edited: String?
    public var mood: Int?
    public var text: String
    public var keptFrom: String?
    public var addedWithoutPassphrase: Bool?

    enum CodingKeys: String, CodingKey {
      case id, version, written, edited, mood, text
      case keptFrom = "kept_from"
      case addedWithoutPassphrase = "added_without_passphrase"
    }

    public init(_ note: Note) {
      id = Self.hex(note.id.value)
      version = Self.hex(note.versions.first ?? 0)
      written = ISO8601.string(note.written)
      edited = note.edited.map(ISO8601.string)
      mood = note.mood?.value
      text = note.text
      keptFrom = note.keptFrom.map { Self.hex($0.value) }
      addedWithoutPassphrase = note.addedSealed ? true : nil
    }

    public func encode(to encoder: any Encoder) throws {
      var c = encoder.container(keyedBy: CodingKeys.self)
      try c.encode(id, forKey: .id)
      try c.encode(version, forKey: .version)
      try c.encode(written, forKey: .written)
      try c.encodeIfPresent(edited, forKey: .edited)
      try c.encode(mood, forKey: .mood)
      try c.encode(text, forKey: .text)
      try c.encodeIfPresent(keptFrom, forKey: .keptFrom)
      try c.encodeIfPresent(addedWithoutPassphrase, forKey: .addedWithoutPassphrase)
    }

    /// 16 lowercase hex digits.
    public static func hex(_ value: UInt64) -> String {
      let digits = String(value, radix: 16)
      return String(repeating: "0", count: 16 - digits.count) + digits
    }
  }

  /// One kept conflict as JSON holds it.
  public struct KeptText: Codable, Equatable, Sendable {
    public var field: String
    public var text: String
    public var written: String

    public init(field: String, text: String, written: String) {
      self.field = field
      self.text = text
      self.written = written
    }
  }

  public var id: String
  public var shortID: String?
  public var date: String
  public var treatment: String
  public var treatmentName: String?
  public var moodBefore: Int?
  public var moodAfter: Int?
  public var status: String
  public var created: String
  public var updated: String
  /// The marks (see `Key.addedWithoutPassphrase`), nil when unmarked.
  public var addedWithoutPassphrase: String?
  public var laterWithoutPassphrase: String?
  /// Its tags, sorted; written only when there are some.
  public var tags: [String] = []
  public var body: Body?

  /// A summary's document (`list --json`), with the short id when `shortID`.
  public init(_ s: SessionSummary, shortID: Bool) {
    id = s.id.hex
    self.shortID = shortID ? s.id.short : nil
    date = ISO8601.string(s.date)
    treatment = s.treatment.key
    treatmentName = s.treatment.customName
    moodBefore = s.moodBefore?.value
    moodAfter = s.moodAfter?.value
    status = s.status.rawValue
    created = ISO8601.string(s.created)
    updated = ISO8601.string(s.updated)
    addedWithoutPassphrase = s.addedSealed.map(ISO8601.string)
    laterWithoutPassphrase = s.laterSealed.map(ISO8601.string)
    tags = s.tags
  }

  /// A whole session's document (`show --json` with the short id, `export` without).
  public init(_ s: Session, shortID: Bool) {
    self.init(s.summary, shortID: shortID)
    body = Body(
      dose: s.dose, intention: s.intention, environment: s.environment, music: s.music,
      reflection: s.reflection,
      conflicts: s.conflicts.map {
        KeptText(field: $0.field.rawValue, text: $0.text, written: ISO8601.string($0.written))
      },
      notes: s.shownNotes.map(NoteDocument.init))
  }

  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: Key.self)
    try c.encode(id, forKey: .id)
    try c.encodeIfPresent(shortID, forKey: .shortID)
    try c.encodeIfPresent(addedWithoutPassphrase, forKey: .addedWithoutPassphrase)
    try c.encodeIfPresent(laterWithoutPassphrase, forKey: .laterWithoutPassphrase)
    if let conflicts = body?.conflicts, !conflicts.isEmpty {
      try c.encode(conflicts, forKey: .conflicts)
    }
    if !tags.isEmpty { try c.encode(tags, forKey: .tags) }
    try c.encode(date, forKey: .date)
    try c.encode(treatment, forKey: .treatment)
    try c.encode(treatmentName, forKey: .treatmentName)
    try c.encode(moodBefore, forKey: .moodBefore)
    try c.encode(moodAfter, forKey: .moodAfter)
    try c.encode(status, forKey: .status)
    try c.encode(created, forKey: .created)
    try c.encode(updated, forKey: .updated)
    if let body {
      try c.encode(body.dose, forKey: .dose)
      try c.encode(body.intention, forKey: .intention)
      try c.encode(body.environment, forKey: .environment)
      try c.encode(body.music, forKey: .music)
      try c.encode(body.reflection, forKey: .reflection)
      if !body.notes.isEmpty { try c.encode(body.notes, forKey: .notes) }
    }
  }

  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: Key.self)
    id = try c.decode(String.self, forKey: .id)
    shortID = try c.decodeIfPresent(String.self, forKey: .shortID)
    date = try c.decode(String.self, forKey: .date)
    treatment = try c.decode(String.self, forKey: .treatment)
    treatmentName = try c.decodeIfPresent(String.self, forKey: .treatmentName)
    moodBefore = try c.decodeIfPresent(Int.self, forKey: .moodBefore)
    moodAfter = try c.decodeIfPresent(Int.self, forKey: .moodAfter)
    status = try c.decode(String.self, forKey: .status)
    created = try c.decode(String.self, forKey: .created)
    updated = try c.decode(String.self, forKey: .updated)
    addedWithoutPassphrase = try c.decodeIfPresent(String.self, forKey: .addedWithoutPassphrase)
    laterWithoutPassphrase = try c.decodeIfPresent(String.self, forKey: .laterWithoutPassphrase)
    tags = try c.decodeIfPresent([String].self, forKey: .tags) ?? []
    if let intention = try c.decodeIfPresent(String.self, forKey: .intention) {
      body = Body(
        dose: try c.decodeIfPresent(String.self, forKey: .dose), intention: intention,
        environment: try c.decodeIfPresent(String.self, forKey: .environment),
        music: try c.decodeIfPresent(String.self, forKey: .music),
        reflection: try c.decodeIfPresent(String.self, forKey: .reflection),
        conflicts: try c.decodeIfPresent([KeptText].self, forKey: .conflicts) ?? [],
        notes: try c.decodeIfPresent([NoteDocument].self, forKey: .notes) ?? [])
    }
  }

  /// `value` as journal writes JSON: sorted keys, two-space indent, "/" unescaped, a final
  /// newline.
  public static func text(_ value: some Encodable) -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    guard let data = try? encoder.encode(value), let text = String(data: data, encoding: .utf8)
    else { return "{}\n" }
    return text + "\n"
  }
}
