import Foundation
import JournalApp
import JournalCore
import JournalDrafts
import JournalTerminal
import JournalTestSupport
import Testing

struct DraftRecoveryTests {
  func draft(_ f: AppFixture, _ seed: UInt8, updated: Date) -> StoredDraft {
    StoredDraft(
      draft: SessionDraft(
        id: SessionID(randomBytes: [UInt8](repeating: seed, count: 16)), intention: "half"),
      started: updated, updated: updated)
  }

  /// Drafts older than the maximum age are removed with a notice; at the edge they stay.
  @Test func staleDrafts() throws {
    let f = try AppFixture()
    let store = try f.journal.drafts(in: f.directory.file("drafts"))
    let week: TimeInterval = 7 * 86400
    try store.create(draft(f, 1, updated: f.clock.read() - week)).release()
    try store.create(draft(f, 2, updated: f.clock.read() - week - 1)).release()
    let recovery = try DraftRecovery.run(
      store: store, journal: f.journal, now: f.clock.read(), maximumAge: week,
      format: DisplayFormat(timeZone: .gmt))
    #expect(recovery.offers.map(\.draft.id) == [draft(f, 1, updated: .distantPast).draft.id])
    #expect(
      recovery.notices == [
        "an unfinished draft from Sat 2026-11-14 18:29 was older than 7 days and was removed"
      ])
    #expect(try store.scan().count == 1)
  }

  /// A draft whose session is already in the vault (a crash between saving and removing the
  /// draft) is removed silently and not offered: no second session.
  @Test func alreadySaved() throws {
    let f = try AppFixture()
    let store = try f.journal.drafts(in: f.directory.file("drafts"))
    var stored = draft(f, 3, updated: f.clock.read())
    stored.draft.date = f.clock.read()
    stored.draft.treatment = .psilocybin
    stored.draft.moodBefore = Mood(5)
    try store.create(stored).release()
    _ = try f.journal.save(stored.draft)
    let recovery = try DraftRecovery.run(
      store: store, journal: f.journal, now: f.clock.read(), maximumAge: 86400,
      format: DisplayFormat(timeZone: .gmt))
    #expect(recovery.offers.isEmpty)
    #expect(recovery.notices.isEmpty)
    #expect(try store.scan().isEmpty)
  }

  /// Durations in settings.
  @Test func durations() {
    #expect(DurationText.parse("7d") == 604_800)
    #expect(DurationText.parse("36h") == 129_600)
    #expect(DurationText.parse("0s") == 0)
    #expect(DurationText.parse("soon") == nil)
    #expect(DurationText.parse("-1d") == nil)
    #expect(DurationText.parse("999999999999d") == nil, "absurd values are refused, not overflowed")
    #expect(DurationText.parse("3650d") == 315_360_000)
  }
}
