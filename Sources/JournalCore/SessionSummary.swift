import Foundation

/// What a list needs of a session: everything but dose and the long texts.
public struct SessionSummary: Hashable, Sendable {
  public let id: SessionID
  public let date: Date
  public let treatment: Treatment
  /// Nil when not recorded (an import from a tool without moods).
  public let moodBefore: Mood?
  public let moodAfter: Mood?
  public let status: SessionStatus
  public let created: Date
  public let updated: Date
  /// When the session was added without the passphrase (a sealed addition), nil if it was
  /// not: the mark travels wherever the session does.
  public let addedSealed: Date?
  /// When later fields were last added to it without the passphrase; nil if never.
  public let laterSealed: Date?
  /// Its tags, sorted (`Tag`): in the summary, so that `list --tag` reads no body.
  public let tags: [String]
  /// The moods of its notes, with the days since the session (format 14).
  public let noteMoods: [NoteMood]

  public init(
    id: SessionID, date: Date, treatment: Treatment, moodBefore: Mood?, moodAfter: Mood?,
    status: SessionStatus, created: Date, updated: Date, addedSealed: Date? = nil,
    laterSealed: Date? = nil, tags: [String] = [], noteMoods: [NoteMood] = []
  ) {
    self.id = id
    self.date = date
    self.treatment = treatment
    self.moodBefore = moodBefore
    self.moodAfter = moodAfter
    self.status = status
    self.created = created
    self.updated = updated
    self.addedSealed = addedSealed
    self.laterSealed = laterSealed
    self.tags = tags
    self.noteMoods = noteMoods
  }

  /// Whether it is planned at `now`: waiting, with its date still ahead.
  public func isPlanned(at now: Date) -> Bool {
    Lifecycle.isPlanned(status, date: date, now: now)
  }

  /// Newest first by session date; the id breaks ties so the order is stable.
  public static func newestFirst(_ a: SessionSummary, _ b: SessionSummary) -> Bool {
    newestFirst(a.date, a.id, b.date, b.id)
  }

  /// The order of every list of sessions (`list`, the newest a whole check keeps): whether
  /// the session of `aDate` and `aID` comes before that of `bDate` and `bID`.
  @inlinable
  public static func newestFirst(_ aDate: Date, _ aID: SessionID, _ bDate: Date, _ bID: SessionID)
    -> Bool
  {
    aDate != bDate ? aDate > bDate : aID > bID
  }
}

extension Session {
  /// The list-level view of this session.
  public var summary: SessionSummary {
    SessionSummary(
      id: id, date: date, treatment: treatment, moodBefore: moodBefore, moodAfter: moodAfter,
      status: status, created: created, updated: updated, addedSealed: addedSealed,
      laterSealed: laterSealed, tags: tags, noteMoods: noteMoods)
  }
}
