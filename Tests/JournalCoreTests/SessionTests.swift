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
    #expect(throws: FieldError.missingFields([.intention, .moodBefore])) {
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
  @Test func draftRefusesLaterFields() throws {
    var draft = SessionDraft(id: id, intention: "to rest")
    let before = draft
    let later: [Session.Change] = [
      .environment("home"), .music("rain"), .moodAfter(Mood(7)), .reflection("quiet"),
    ]
    for change in later {
      #expect(throws: LifecycleError.notSavedYet) { try draft.apply(change) }
    }
    #expect(draft == before)
    try draft.apply(.dose("2 g"))
    #expect(draft.dose == "2 g")
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

  /// Held as two integers, an id still reads, orders and compares exactly as its hex digits:
  /// bytes, hex, short form and UUID form agree, and sorting ids sorts their hex.
  @Test func sessionIDAgreesWithItsHex() {
    var state: UInt64 = 0x0123_4567_89AB_CDEF
    var ids: [SessionID] = []
    for _ in 0..<200 {
      let bytes = (0..<16).map { _ -> UInt8 in
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return UInt8(truncatingIfNeeded: state >> 56)
      }
      let id = SessionID(randomBytes: bytes)
      let hex = id.bytes.map { String($0, radix: 16).leftPadded(to: 2) }.joined()
      #expect(id.hex == hex)
      #expect(SessionID(hex) == id)
      #expect(SessionID(hex.uppercased()) == id)
      #expect(SessionID(id.uuidString) == id)
      #expect(id.short == String(hex.prefix(8)))
      #expect(id.bytes[0] == bytes[0] && id.bytes[15] == bytes[15])
      ids.append(id)
    }
    #expect(ids.sorted().map(\.hex) == ids.map(\.hex).sorted())
    #expect(SessionID(String(repeating: "0", count: 31)) == nil)
    #expect(SessionID(String(repeating: "g", count: 32)) == nil)
  }
}

extension String {
  fileprivate func leftPadded(to width: Int) -> String {
    String(repeating: "0", count: max(0, width - count)) + self
  }
}
