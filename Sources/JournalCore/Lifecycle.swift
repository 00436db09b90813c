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
}

/// The session lifecycle, Draft → Needs Reflection → Complete, as one pure function.
///
/// The invariant it keeps: a saved session is complete exactly when it has a reflection.
public enum Lifecycle {
  /// The status after `event`, or the precise reason the event is not allowed.
  public static func transition(
    from status: SessionStatus, on event: LifecycleEvent
  ) throws(LifecycleError) -> SessionStatus {
    switch (status, event) {
    case (.draft, .save): return .needsReflection
    case (.draft, .updateNowField): return .draft
    case (.draft, .beginReflection), (.draft, .fillReflection), (.draft, .clearReflection),
      (.draft, .updateLaterField):
      throw .notSavedYet

    case (.needsReflection, .save), (.complete, .save): throw .alreadySaved

    case (.needsReflection, .beginReflection): return .needsReflection
    case (.needsReflection, .fillReflection): return .complete
    case (.needsReflection, .clearReflection): return .needsReflection
    case (.needsReflection, .updateLaterField): return .needsReflection
    case (.needsReflection, .updateNowField): return .needsReflection

    case (.complete, .beginReflection): throw .alreadyComplete
    case (.complete, .fillReflection): return .complete
    case (.complete, .clearReflection): return .needsReflection
    case (.complete, .updateLaterField): return .complete
    case (.complete, .updateNowField): return .complete
    }
  }
}
