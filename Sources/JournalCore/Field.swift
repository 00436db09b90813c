/// The fields of a session, as people and flags name them.
public enum Field: String, Hashable, Sendable, CaseIterable {
  case date
  case treatment
  case dose
  case intention
  case moodBefore = "mood-before"
  case environment
  case music
  case moodAfter = "mood-after"
  case reflection
  /// The integration notes (format 14): added with `journal note`, never by a form; named
  /// here so that `search --in` and `share --fields` can choose them.
  case notes

  /// The "Now" fields, filled before saving.
  public static let now: [Field] = [.date, .treatment, .dose, .intention, .moodBefore]
  /// The "Later" fields, which open after saving.
  public static let later: [Field] = [.moodAfter, .reflection, .environment, .music]

  /// The command-line flag that sets this field.
  public var flag: String { "--" + rawValue }

  /// The field's key in JSON (SessionDocument); the treatment's text is its custom name.
  public var jsonName: String {
    switch self {
    case .date: SessionDocument.Key.date.rawValue
    case .treatment: SessionDocument.Key.treatmentName.rawValue
    case .dose: SessionDocument.Key.dose.rawValue
    case .intention: SessionDocument.Key.intention.rawValue
    case .moodBefore: SessionDocument.Key.moodBefore.rawValue
    case .environment: SessionDocument.Key.environment.rawValue
    case .music: SessionDocument.Key.music.rawValue
    case .moodAfter: SessionDocument.Key.moodAfter.rawValue
    case .reflection: SessionDocument.Key.reflection.rawValue
    case .notes: SessionDocument.Key.notes.rawValue
    }
  }

  /// The field's tag in sealed plaintexts (FieldCodec).
  public var tag: FieldCodec.Tag {
    switch self {
    case .date: .date
    case .treatment: .treatment
    case .dose: .dose
    case .intention: .intention
    case .moodBefore: .moodBefore
    case .environment: .environment
    case .music: .music
    case .moodAfter: .moodAfter
    case .reflection: .reflection
    case .notes: .notes
    }
  }

  /// The field's name in messages.
  public var label: String {
    switch self {
    case .date: "date"
    case .treatment: "treatment"
    case .dose: "dose"
    case .intention: "intention"
    case .moodBefore: "mood before"
    case .environment: "environment"
    case .music: "music notes"
    case .moodAfter: "mood after"
    case .reflection: "reflection"
    case .notes: "notes"
    }
  }

  /// The longest text accepted, in UTF-8 bytes. Generous for reflections (pages of text),
  /// bounded so one record can never exhaust memory.
  public var maximumBytes: Int {
    switch self {
    case .intention, .reflection, .environment, .music: 1_048_576
    case .notes: Note.maximumTotalBytes
    case .dose: 200
    case .date, .treatment, .moodBefore, .moodAfter: 100
    }
  }
}
