import Foundation
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

/// A session dated ahead is planned (issue 36): derived from its status and date at `now`,
/// and what belongs after the session waits until its date has passed.
struct PlannedTests {
  static let now = Date(timeIntervalSince1970: 1_800_000_000)

  /// Only a session that waits, dated after now, is planned; at its very date it is not.
  @Test func plannedIsWaitingAndAhead() {
    for status in SessionStatus.allCases {
      #expect(
        Lifecycle.isPlanned(status, date: Self.now + 1, now: Self.now)
          == (status == .needsReflection))
      #expect(!Lifecycle.isPlanned(status, date: Self.now, now: Self.now))
      #expect(!Lifecycle.isPlanned(status, date: Self.now - 86400, now: Self.now))
    }
  }

  /// A planned session refuses a reflection, the start of one, and closing; every other
  /// event goes as the lifecycle table says. Once its date has passed, nothing is refused
  /// for being planned.
  @Test(arguments: LifecycleEvent.allCases)
  func plannedEvents(_ event: LifecycleEvent) {
    func refusal(_ status: SessionStatus, _ date: Date) -> LifecycleError? {
      do throws(LifecycleError) {
        try Lifecycle.checkPlanned(status, date: date, now: Self.now, on: event)
        return nil
      } catch {
        return error
      }
    }
    let refused: Set<LifecycleEvent> = [.beginReflection, .fillReflection, .close]
    #expect(refusal(.needsReflection, Self.now + 60) == (refused.contains(event) ? .planned : nil))
    #expect(refusal(.needsReflection, Self.now - 60) == nil)
    for status in [SessionStatus.complete, .closed, .draft] {
      #expect(refusal(status, Self.now + 60) == nil, "\(status)")
    }
  }

  /// `revise` is what a person's change goes through: refused while planned, applied once
  /// the clock has passed the date; `apply` (a sealed addition opened, a merge) is not
  /// refused, so what was written is never lost to the rule.
  @Test func reviseAndApply() throws {
    let draft = SessionDraft(
      id: SessionID(randomBytes: Array(repeating: 7, count: 16)), date: Self.now + 3 * 86400,
      treatment: .psilocybin, intention: "to meet it openly", moodBefore: Mood(5))
    var session = try Session.saving(draft, now: Self.now)
    #expect(session.isPlanned(at: Self.now))
    #expect(session.summary.isPlanned(at: Self.now))
    #expect(throws: LifecycleError.planned) {
      try session.revise(.reflection("too soon"), now: Self.now)
    }
    #expect(throws: LifecycleError.planned) { try session.revise(.close, now: Self.now) }
    try session.revise(.environment("a quiet room"), now: Self.now)
    try session.revise(.date(Self.now + 86400), now: Self.now)
    #expect(session.status == .needsReflection)
    var written = session
    try written.apply(.reflection("kept as written"), now: Self.now)
    #expect(written.status == .complete)
    // What is done has happened: a date ahead is refused for it, a date past is not
    var done = written
    #expect(throws: LifecycleError.doneCannotBeAhead) {
      try done.revise(.date(Self.now + 60), now: Self.now)
    }
    try done.revise(.date(Self.now - 60), now: Self.now)
    #expect(done.date == Self.now - 60)
    let later = Self.now + 2 * 86400
    #expect(!session.isPlanned(at: later))
    try session.revise(.reflection("after it"), now: later)
    #expect(session.status == .complete)
  }
}
