import JournalCore
import Testing

struct LifecycleTests {
  /// Every status × event pair, with the status it leads to or the error it raises.
  static let table: [(SessionStatus, LifecycleEvent, Result<SessionStatus, LifecycleError>)] = [
    (
      SessionStatus.draft, LifecycleEvent.save,
      Result<SessionStatus, LifecycleError>.success(.needsReflection)
    ),
    (.draft, .beginReflection, .failure(.notSavedYet)),
    (.draft, .fillReflection, .failure(.notSavedYet)),
    (.draft, .clearReflection, .failure(.notSavedYet)),
    (.draft, .updateLaterField, .failure(.notSavedYet)),
    (.draft, .updateNowField, .success(.draft)),
    (.draft, .close, .failure(.notSavedYet)),
    (.draft, .reopen, .failure(.notSavedYet)),
    (.needsReflection, .save, .failure(.alreadySaved)),
    (.needsReflection, .beginReflection, .success(.needsReflection)),
    (.needsReflection, .fillReflection, .success(.complete)),
    (.needsReflection, .clearReflection, .success(.needsReflection)),
    (.needsReflection, .updateLaterField, .success(.needsReflection)),
    (.needsReflection, .updateNowField, .success(.needsReflection)),
    (.needsReflection, .close, .success(.closed)),
    (.needsReflection, .reopen, .failure(.notClosed)),
    (.complete, .save, .failure(.alreadySaved)),
    (.complete, .beginReflection, .failure(.alreadyComplete)),
    (.complete, .fillReflection, .success(.complete)),
    (.complete, .clearReflection, .success(.needsReflection)),
    (.complete, .updateLaterField, .success(.complete)),
    (.complete, .updateNowField, .success(.complete)),
    (.complete, .close, .failure(.alreadyComplete)),
    (.complete, .reopen, .failure(.notClosed)),
    (.closed, .save, .failure(.alreadySaved)),
    (.closed, .beginReflection, .success(.closed)),
    (.closed, .fillReflection, .success(.complete)),
    (.closed, .clearReflection, .success(.closed)),
    (.closed, .updateLaterField, .success(.closed)),
    (.closed, .updateNowField, .success(.closed)),
    (.closed, .close, .failure(.alreadyClosed)),
    (.closed, .reopen, .success(.needsReflection)),
  ]

  /// Each pair of the table leads where the table says.
  @Test(arguments: table)
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

  /// The table covers every status × event pair exactly once: adding a status or an event
  /// fails here until its transitions are decided.
  @Test func tableIsComplete() {
    let pairs = Self.table.map { "\($0.0) \($0.1)" }
    let all = SessionStatus.allCases.flatMap { status in
      LifecycleEvent.allCases.map { "\(status) \($0)" }
    }
    #expect(pairs.count == all.count)
    #expect(Set(pairs) == Set(all))
  }
}
