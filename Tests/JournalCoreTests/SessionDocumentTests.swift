import Foundation
import JournalCore
import Testing

/// The one JSON definition of a session: its keys, nulls, and a faithful round trip.
struct SessionDocumentTests {
  let session: Session = {
    let now = Date(timeIntervalSince1970: 1_795_285_800.25)
    do {
      var s = try Session.saving(
        SessionDraft(
          id: SessionID(randomBytes: [UInt8](repeating: 0x2A, count: 16)), date: now,
          treatment: .other("San Pedro"), intention: "to listen\nclosely", moodBefore: Mood(4)),
        now: now)
      try s.apply(.music("rain"), now: now + 60)
      return s
    } catch {
      fatalError("\(error)")
    }
  }()

  /// A whole session has every key, empty ones as null; a summary has no body keys; the short
  /// id only when asked for.
  @Test func keys() throws {
    let whole =
      try JSONSerialization.jsonObject(
        with: Data(SessionDocument.text(SessionDocument(session, shortID: false)).utf8))
      as? [String: Any]
    #expect(
      Set(whole?.keys ?? [:].keys)
        == [
          "id", "date", "treatment", "treatment_name", "dose", "intention", "mood_before",
          "environment", "music", "mood_after", "reflection", "status", "created", "updated",
        ])
    #expect(whole?["dose"] is NSNull)
    #expect(whole?["date"] as? String == "2026-11-21T18:30:00.250Z")
    let summary =
      try JSONSerialization.jsonObject(
        with: Data(SessionDocument.text(SessionDocument(session.summary, shortID: true)).utf8))
      as? [String: Any]
    #expect(summary?["short_id"] as? String == session.id.short)
    #expect(summary?["intention"] == nil)
  }

  /// What is written reads back as the same document.
  @Test func roundTrip() throws {
    let document = SessionDocument(session, shortID: true)
    let back = try JSONDecoder().decode(
      SessionDocument.self, from: Data(SessionDocument.text(document).utf8))
    #expect(back == document)
    #expect(back.body?.intention == "to listen\nclosely")
  }
}
