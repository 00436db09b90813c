import Foundation

/// The core form while it is being filled: every field optional until saving.
public struct SessionDraft: Hashable, Sendable {
  /// Chosen when the draft starts, kept when it is saved, so a retried save is an upsert.
  public let id: SessionID
  public var date: Date?
  public var treatment: Treatment?
  public var dose: String?
  public var intention: String?
  public var moodBefore: Mood?
  /// The reflection being written for this session after it was saved (`journal reflect`),
  /// kept until it is saved. A draft holding one is a reflection draft: its session is in
  /// the vault, and it is never offered as a new session's form.
  public var reflection: String?

  public init(
    id: SessionID, date: Date? = nil, treatment: Treatment? = nil, dose: String? = nil,
    intention: String? = nil, moodBefore: Mood? = nil, reflection: String? = nil
  ) {
    self.id = id
    self.date = date
    self.treatment = treatment
    self.dose = dose
    self.intention = intention
    self.moodBefore = moodBefore
    self.reflection = reflection
  }

  /// The "Now" fields that hold a value.
  public var answered: Set<Field> {
    var fields: Set<Field> = []
    if date != nil { fields.insert(.date) }
    if treatment != nil { fields.insert(.treatment) }
    if dose != nil { fields.insert(.dose) }
    if intention != nil { fields.insert(.intention) }
    if moodBefore != nil { fields.insert(.moodBefore) }
    return fields
  }

  /// The required fields not yet given, in form order. Date and treatment have defaults
  /// (now, psilocybin) and are filled in by whoever builds the draft.
  public var missingFields: [Field] {
    var missing: [Field] = []
    if date == nil { missing.append(.date) }
    if treatment == nil { missing.append(.treatment) }
    if intention == nil { missing.append(.intention) }
    if moodBefore == nil { missing.append(.moodBefore) }
    return missing
  }

  struct Required {
    let date: Date
    let treatment: Treatment
    let intention: String
    let moodBefore: Mood
  }

  func requireComplete() throws(FieldError) -> Required {
    guard let date, let treatment, let intention, let moodBefore else {
      throw .missingFields(missingFields)
    }
    return Required(date: date, treatment: treatment, intention: intention, moodBefore: moodBefore)
  }
}

extension SessionDraft {
  /// Sets a "Now" field from a change. "Later" fields do not belong to a draft: they open
  /// once the session is saved (the lifecycle's `notSavedYet`), and the draft is unchanged.
  public mutating func apply(_ change: Session.Change) throws(LifecycleError) {
    switch change {
    case .date(let value): date = value
    case .treatment(let value): treatment = value
    case .dose(let value): dose = value
    case .intention(let value): intention = value
    case .moodBefore(let value): moodBefore = value
    case .environment, .music, .moodAfter, .reflection: throw .notSavedYet
    }
  }
}
