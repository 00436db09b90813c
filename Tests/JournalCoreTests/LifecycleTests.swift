import JournalCore
import Testing

struct LifecycleTests {
  /// Every status × event pair, with the status it leads to or the error it raises: adding a
  /// status or an event breaks this table until it is decided.
  @Test(arguments: [
    (
      SessionStatus.draft, LifecycleEvent.save,
      Result<SessionStatus, LifecycleError>.success(.needsReflection)
    ),
    (.draft, .beginReflection, .failure(.notSavedYet)),
    (.draft, .fillReflection, .failure(.notSavedYet)),
    (.draft, .clearReflection, .failure(.notSavedYet)),
    (.draft, .updateLaterField, .failure(.notSavedYet)),
    (.draft, .updateNowField, .success(.draft)),
    (.needsReflection, .save, .failure(.alreadySaved)),
    (.needsReflection, .beginReflection, .success(.needsReflection)),
    (.needsReflection, .fillReflection, .success(.complete)),
    (.needsReflection, .clearReflection, .success(.needsReflection)),
    (.needsReflection, .updateLaterField, .success(.needsReflection)),
    (.needsReflection, .updateNowField, .success(.needsReflection)),
    (.complete, .save, .failure(.alreadySaved)),
    (.complete, .beginReflection, .failure(.alreadyComplete)),
    (.complete, .fillReflection, .success(.complete)),
    (.complete, .clearReflection, .success(.needsReflection)),
    (.complete, .updateLaterField, .success(.complete)),
    (.complete, .updateNowField, .success(.complete)),
  ])
  func transition(
    from status: SessionStatus, on event: LifecycleEvent,
    expected: Result<SessionStatus, LifecycleError>
  ) {
    // When
    let outcome = Result { () throws(LifecycleError) in
      try Lifecycle.transition(from: status, on: event)
    }
    // Then
    #expect(outcome == expected)
  }

  /// The table above covers every pair exactly once.
  @Test func tableIsComplete() {
    #expect(SessionStatus.allCases.count * LifecycleEvent.allCases.count == 18)
  }
}
