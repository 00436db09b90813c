/// A change the session's lifecycle does not allow.
public enum LifecycleError: Error, Equatable, Sendable {
  /// The session is a draft: the "Later" fields open only after it is saved.
  case notSavedYet
  /// The session is already in the vault; it cannot be saved as new again.
  case alreadySaved
  /// The session is already reflected on.
  case alreadyComplete
  /// The session is already closed without a reflection.
  case alreadyClosed
  /// The session is not closed, so there is nothing to reopen.
  case notClosed
  /// `journal resolve` was asked to settle a field that holds no conflict.
  case noConflict(field: Field)
  /// The session is planned: its date is still ahead, so there is nothing yet to reflect on
  /// or to close.
  case planned
  /// A date ahead was given to a session reflected on or closed: only one still to come can
  /// be dated ahead.
  case doneCannotBeAhead
}
