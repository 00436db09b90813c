import Foundation

/// What happens to a session, as the lifecycle sees it.
public enum LifecycleEvent: Hashable, Sendable, CaseIterable {
  /// The complete draft is written to the vault.
  case save
  /// Someone starts adding reflections ("journal reflect").
  case beginReflection
  /// A non-empty reflection is entered.
  case fillReflection
  /// The reflection is emptied (through "journal edit").
  case clearReflection
  /// Environment, music or mood after changes.
  case updateLaterField
  /// Date, treatment, dose, intention or mood before changes.
  case updateNowField
  /// The person leaves the session without a reflection ("journal close").
  case close
  /// A closed session is made to wait for reflection again ("journal reopen").
  case reopen
}

/// The session lifecycle, Draft → Needs Reflection → Complete (or Closed, complete without a
/// reflection), as one pure function.
///
/// The invariants it keeps: a saved session is complete exactly when it has a reflection,
/// and closed only without one. Closing is undone by reopening; a reflection written into a
/// closed session completes it.
public enum Lifecycle {
  /// The status after `event`, or the precise reason the event is not allowed.
  public static func transition(
    from status: SessionStatus, on event: LifecycleEvent
  ) throws(LifecycleError) -> SessionStatus {
    switch (status, event) {
    case (.draft, .save): return .needsReflection
    case (.draft, .updateNowField): return .draft
    case (.draft, .beginReflection), (.draft, .fillReflection), (.draft, .clearReflection),
      (.draft, .updateLaterField), (.draft, .close), (.draft, .reopen):
      throw .notSavedYet

    case (.needsReflection, .save), (.complete, .save), (.closed, .save): throw .alreadySaved

    case (.needsReflection, .beginReflection): return .needsReflection
    case (.needsReflection, .fillReflection): return .complete
    case (.needsReflection, .clearReflection): return .needsReflection
    case (.needsReflection, .updateLaterField): return .needsReflection
    case (.needsReflection, .updateNowField): return .needsReflection
    case (.needsReflection, .close): return .closed
    case (.needsReflection, .reopen): throw .notClosed

    case (.complete, .beginReflection): throw .alreadyComplete
    case (.complete, .fillReflection): return .complete
    case (.complete, .clearReflection): return .needsReflection
    case (.complete, .updateLaterField): return .complete
    case (.complete, .updateNowField): return .complete
    // Closing is for a session left without a reflection; one written is cleared by edit.
    case (.complete, .close): throw .alreadyComplete
    case (.complete, .reopen): throw .notClosed

    // A reflection can still come: reflect asks for it, and writing one completes it.
    case (.closed, .beginReflection): return .closed
    case (.closed, .fillReflection): return .complete
    case (.closed, .clearReflection): return .closed
    case (.closed, .updateLaterField): return .closed
    case (.closed, .updateNowField): return .closed
    case (.closed, .close): throw .alreadyClosed
    case (.closed, .reopen): return .needsReflection
    }
  }
}

/// A session prepared ahead (issue 36): saved with a date still to come, it is *planned*.
/// People set an intention days before a session; until its date has passed it is not
/// waiting for reflection (not listed or counted so, no reminder, no integration prompt),
/// and what belongs after it (a reflection, or closing it without one) waits too. Then it
/// waits for reflection like any other. Planned is derived from the date, never stored: the
/// vault keeps the session as waiting, and the date, which decides, is sealed.
extension Lifecycle {
  /// Whether a session with this status and date is planned at `now`.
  public static func isPlanned(_ status: SessionStatus, date: Date, now: Date) -> Bool {
    status == .needsReflection && date > now
  }

  /// Refuses what a planned session does not take yet: a reflection (or asking for one) and
  /// closing it. Its other fields, the setting among them, can be prepared; a change of its
  /// date can make it happen now.
  public static func checkPlanned(
    _ status: SessionStatus, date: Date, now: Date, on event: LifecycleEvent
  ) throws(LifecycleError) {
    guard isPlanned(status, date: date, now: now) else { return }
    switch event {
    case .beginReflection, .fillReflection, .close: throw .planned
    case .save, .clearReflection, .updateLaterField, .updateNowField, .reopen: return
    }
  }

  /// Refuses a date ahead of now for a session reflected on or closed: what is done has
  /// happened, and a date ahead would make it read as planned to come.
  public static func checkDate(
    _ date: Date, of status: SessionStatus, now: Date
  ) throws(LifecycleError) {
    if date > now, status == .complete || status == .closed { throw .doneCannotBeAhead }
  }
}
