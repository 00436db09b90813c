import Foundation

/// A therapeutic session as saved in the vault.
public struct Session: Hashable, Sendable {
  public let id: SessionID
  public internal(set) var date: Date
  public internal(set) var treatment: Treatment
  public internal(set) var dose: String?
  public internal(set) var intention: String
  /// Asked for by every form; nil only when the source of an import did not record one.
  public internal(set) var moodBefore: Mood?
  public internal(set) var environment: String?
  public internal(set) var music: String?
  public internal(set) var moodAfter: Mood?
  public internal(set) var reflection: String?
  public internal(set) var created: Date
  public internal(set) var updated: Date
  public internal(set) var status: SessionStatus
  /// When this session was added without the passphrase (sealed, opened later); nil when it
  /// was saved with the key. Kept for good: anyone who can write the vault file can seal an
  /// addition, so a person should be able to see which sessions came that way.
  public internal(set) var addedSealed: Date?
  /// When later fields were last added to it without the passphrase; nil if never.
  public internal(set) var laterSealed: Date?
  /// Texts another device wrote at the same time as the ones shown, kept (sync): empty
  /// unless the vault syncs and two devices wrote the same text field at once.
  public internal(set) var conflicts: [Conflict]
  /// Its tags, sorted, each once (`Tag`).
  public internal(set) var tags: [String]
  /// Its integration notes, in the order written, deleted ones included (`Note`); people see
  /// `shownNotes`.
  public internal(set) var notes: [Note]

  /// Rebuilds a session exactly as stored. Only the store calls this; it checks what it reads.
  public init(
    id: SessionID, date: Date, treatment: Treatment, dose: String?, intention: String,
    moodBefore: Mood?, environment: String?, music: String?, moodAfter: Mood?,
    reflection: String?, created: Date, updated: Date, status: SessionStatus,
    addedSealed: Date? = nil, laterSealed: Date? = nil, conflicts: [Conflict] = [],
    tags: [String] = [], notes: [Note] = []
  ) {
    self.id = id
    self.date = date
    self.treatment = treatment
    self.dose = dose
    self.intention = intention
    self.moodBefore = moodBefore
    self.environment = environment
    self.music = music
    self.moodAfter = moodAfter
    self.reflection = reflection
    self.created = created
    self.updated = updated
    self.status = status
    self.addedSealed = addedSealed
    self.laterSealed = laterSealed
    self.conflicts = conflicts
    self.tags = tags
    self.notes = notes
  }

  /// Marks the session as added without the passphrase at `time`.
  public mutating func markAddedSealed(at time: Date) { addedSealed = time }

  /// Marks a session opened from a sealed addition at `now` as added without the passphrase
  /// at `time` (the writer's word). Its times are the writer's word too, so they are held to
  /// what the opening can vouch for: `created` no later than the opening, and `updated` the
  /// opening itself, as for any keyed write (a far-future `updated` would otherwise win
  /// every merge and import over the person's own later edits).
  public mutating func markOpened(addedAt time: Date, now: Date) {
    addedSealed = time
    created = min(created, now)
    updated = now
  }

  /// Keeps the marks `other` (an earlier copy of this session) holds: the earliest time it
  /// was added without the passphrase, and the latest time later fields were.
  public mutating func keepMarks(of other: Session) {
    addedSealed = [addedSealed, other.addedSealed].compactMap { $0 }.min()
    laterSealed = [laterSealed, other.laterSealed].compactMap { $0 }.max()
  }

  /// The same session under another id: an addition that claimed the id of a session the
  /// vault has, had or holds in the trash is kept apart under a new one.
  public func reidentified(as newID: SessionID) -> Session {
    Session(
      id: newID, date: date, treatment: treatment, dose: dose, intention: intention,
      moodBefore: moodBefore, environment: environment, music: music, moodAfter: moodAfter,
      reflection: reflection, created: created, updated: updated, status: status,
      addedSealed: addedSealed, laterSealed: laterSealed, conflicts: conflicts, tags: tags,
      notes: notes)
  }

  /// Adds and removes tags (already normalised), stamping `updated` when they change. The
  /// status does not change: a tag is no field of the form.
  public mutating func retag(
    adding added: [String], removing removed: [String], now: Date
  ) throws(FieldError) {
    guard !added.isEmpty || !removed.isEmpty else { return }
    let changed = try Tag.set(Set(tags).union(added).subtracting(removed))
    guard changed != tags else { return }
    tags = changed
    updated = max(now, updated)
  }

  /// Replaces the tags as written elsewhere (a merge, an import).
  public mutating func setTags(_ stored: [String]) { tags = stored }

  /// Marks the session as changed without the passphrase at `time` (a note added so).
  public mutating func keepSealedNoteMark(at time: Date) {
    laterSealed = [laterSealed, time].compactMap { $0 }.max()
  }

  /// Removes both marks (a sealed addition's plaintext carries none: opening sets them).
  public mutating func clearSealedMarks() {
    addedSealed = nil
    laterSealed = nil
  }

  /// Applies later fields written without the passphrase, when they are opened. A text the
  /// session already holds is kept, the new one after a blank line (they were written
  /// without seeing it: nothing on either side is lost); a mood after replaces the earlier
  /// one. The session is marked as changed without the passphrase at `time`.
  public mutating func addSealed(
    _ changes: [Change], at time: Date, now: Date
  ) throws(LifecycleError) {
    func joined(_ old: String?, _ new: String) -> String {
      guard let old, !old.isEmpty, old != new else { return new }
      return old + "\n\n" + new
    }
    for change in changes {
      let merged: Change =
        switch change {
        case .environment(let text?): .environment(joined(environment, text))
        case .music(let text?): .music(joined(music, text))
        case .reflection(let text?): .reflection(joined(reflection, text))
        case .date, .treatment, .dose, .intention, .moodBefore, .environment(nil), .music(nil),
          .moodAfter, .reflection(nil):
          change
        }
      try apply(merged, now: now)
    }
    laterSealed = time
  }

  /// Saves a complete draft: the one way a session comes into being.
  public static func saving(_ draft: SessionDraft, now: Date) throws -> Session {
    let fields = try draft.requireComplete()
    let status = try Lifecycle.transition(from: .draft, on: .save)
    return Session(
      id: draft.id, date: fields.date, treatment: fields.treatment, dose: draft.dose,
      intention: fields.intention, moodBefore: fields.moodBefore, environment: nil, music: nil,
      moodAfter: nil, reflection: nil, created: now, updated: now, status: status)
  }

  /// One change to one field, already validated.
  public enum Change: Hashable, Sendable {
    case date(Date)
    case treatment(Treatment)
    case dose(String?)
    case intention(String)
    case moodBefore(Mood)
    case environment(String?)
    case music(String?)
    case moodAfter(Mood?)
    case reflection(String?)

    /// The text it sets, for a text field; nil otherwise (or when it clears one).
    public var text: String? {
      switch self {
      case .dose(let text), .environment(let text), .music(let text), .reflection(let text):
        text
      case .intention(let text): text
      case .date, .treatment, .moodBefore, .moodAfter: nil
      }
    }

    /// The field this change sets.
    public var field: Field {
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
      }
    }

    var event: LifecycleEvent {
      switch self {
      case .date, .treatment, .dose, .intention, .moodBefore: .updateNowField
      case .environment, .music, .moodAfter: .updateLaterField
      case .reflection(let text): text == nil ? .clearReflection : .fillReflection
      }
    }
  }

  /// Applies a change, moving the status as the lifecycle says and stamping `updated`.
  public mutating func apply(_ change: Change, now: Date) throws(LifecycleError) {
    status = try Lifecycle.transition(from: status, on: change.event)
    switch change {
    case .date(let value): date = value
    case .treatment(let value): treatment = value
    case .dose(let value): dose = value
    case .intention(let value): intention = value
    case .moodBefore(let value): moodBefore = value
    case .environment(let value): environment = value
    case .music(let value): music = value
    case .moodAfter(let value): moodAfter = value
    case .reflection(let value): reflection = value
    }
    updated = max(now, updated)
  }

  /// Applies a change a person asks for now (`edit`, `reflect`, `new` with later fields):
  /// as `apply`, and refused while the session is planned (`Lifecycle.checkPlanned`). What
  /// was written already — a sealed addition opened, a sync's merge — goes through `apply`.
  public mutating func revise(_ change: Change, now: Date) throws(LifecycleError) {
    try Lifecycle.checkPlanned(status, date: date, now: now, on: change.event)
    if case .date(let value) = change { try Lifecycle.checkDate(value, of: status, now: now) }
    try apply(change, now: now)
  }

  /// `close` or `reopen` asked for now: as `apply`, and refused while the session is planned.
  public mutating func revise(_ event: LifecycleEvent, now: Date) throws(LifecycleError) {
    try Lifecycle.checkPlanned(status, date: date, now: now, on: event)
    try apply(event, now: now)
  }

  /// Whether it is planned at `now`: waiting, with its date still ahead.
  public func isPlanned(at now: Date) -> Bool {
    Lifecycle.isPlanned(status, date: date, now: now)
  }

  /// Closes the session without a reflection (`.close`) or makes a closed one wait again
  /// (`.reopen`), as the lifecycle allows, stamping `updated`.
  public mutating func apply(_ event: LifecycleEvent, now: Date) throws(LifecycleError) {
    precondition(event == .close || event == .reopen, "fields change through Change")
    status = try Lifecycle.transition(from: status, on: event)
    updated = max(now, updated)
  }

  /// The later fields `journal reflect` asks for: every one until the session has its
  /// reflection; after that only those still empty, so a reflect that was interrupted goes on
  /// where it stopped. Empty when there is nothing left to reflect on.
  public var laterFieldsOpen: [Field] {
    switch status {
    case .draft: []
    case .needsReflection: Field.later
    // A closed session has no reflection: that, and any later field still empty.
    case .complete, .closed: Field.later.filter { text(of: $0) == nil }
    }
  }

  /// The value of a field as a person reads it; nil when empty.
  public func text(of field: Field) -> String? {
    switch field {
    case .date: nil
    case .treatment: treatment.displayName
    case .dose: dose
    case .intention: intention
    case .moodBefore: moodBefore.map { String($0.value) }
    case .environment: environment
    case .music: music
    case .moodAfter: moodAfter.map { String($0.value) }
    case .reflection: reflection
    case .notes:
      shownNotes.isEmpty ? nil : shownNotes.map(\.text).joined(separator: "\n\n")
    }
  }
}
