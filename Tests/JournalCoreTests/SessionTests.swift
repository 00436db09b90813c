import Foundation
import JournalCore
import Testing

struct SessionTests {
  let now = Date(timeIntervalSince1970: 1_795_285_800)
  let id = SessionID(randomBytes: Array(repeating: 0xAB, count: 16))

  func saved() throws -> Session {
    let draft = SessionDraft(
      id: id, date: now, treatment: .mdma, dose: "120 mg", intention: "to listen",
      moodBefore: Mood(5))
    return try Session.saving(draft, now: now)
  }

  /// Saving a complete draft keeps its id and fields and needs reflection.
  @Test func savingADraft() throws {
    let session = try saved()
    #expect(session.id == id)
    #expect(session.status == .needsReflection)
    #expect(session.treatment == .mdma)
    #expect(session.dose == "120 mg")
    #expect(session.created == now && session.updated == now)
  }

  /// A draft missing its intention and mood is refused, naming both, in form order.
  @Test func savingAnIncompleteDraft() {
    let draft = SessionDraft(id: id, date: now, treatment: .psilocybin)
    #expect(throws: ValidationError.missingFields([.intention, .moodBefore])) {
      try Session.saving(draft, now: now)
    }
  }

  /// Filling the reflection completes the session; clearing it returns it to needing one.
  @Test func reflectionDrivesStatus() throws {
    var session = try saved()
    try session.apply(.moodAfter(Mood(8)), now: now + 60)
    #expect(session.status == .needsReflection)
    try session.apply(.reflection("warm"), now: now + 120)
    #expect(session.status == .complete)
    #expect(session.updated == now + 120)
    try session.apply(.reflection(nil), now: now + 180)
    #expect(session.status == .needsReflection)
  }

  /// A draft refuses the "Later" fields.
  @Test func draftRefusesLaterFields() {
    var draft = SessionDraft(id: id)
    #expect(throws: LifecycleError.notSavedYet) { try draft.applyLater() }
  }

  /// The id keeps the UUID version and variant bits and reads back from its hex.
  @Test func sessionIDForm() {
    #expect(id.hex.count == 32)
    #expect(Array(id.hex)[12] == "4")
    #expect("89ab".contains(Array(id.hex)[16]))
    #expect(SessionID(id.uuidString) == id)
    #expect(id.short == String(id.hex.prefix(8)))
    #expect(SessionID.normalisedPrefix("3F2A-") == "3f2a")
    #expect(SessionID.normalisedPrefix("3g") == nil)
    #expect(SessionID.normalisedPrefix("") == nil)
  }
}

extension SessionDraft {
  fileprivate mutating func applyLater() throws(LifecycleError) {
    // Drafts take "Now" fields only; the app layer's apply enforces it with this error.
    _ = try Lifecycle.transition(from: .draft, on: .updateLaterField)
  }
}
