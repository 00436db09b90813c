import Foundation
import JournalApp
import JournalCore
import JournalTestSupport
import Testing

/// The storage seam, on its one implementation today (the local vault): what changed since
/// a point, deletions, restores, purges and tombstones.
struct SessionStorageTests {
  /// A session saved or edited after the point is reported; one untouched since is not.
  @Test func changesSinceAPoint() throws {
    // Given two sessions saved, then a point, then an edit of the second
    let f = try AppFixture()
    let first = try f.saved()
    f.clock.advance(by: 60)
    let second = try f.saved()
    f.clock.advance(by: 60)
    let point = f.clock.read()
    f.clock.advance(by: 60)
    try f.journal.apply(.music("rain"), to: second.id)
    // When the storage is asked what changed since the point
    let changes = try f.journal.storage.changes(since: point)
    // Then only the edited session is named, and nothing was purged
    #expect(changes.saved == [second.id])
    #expect(changes.purged.isEmpty)
    #expect(changes.damaged.isEmpty)
    // And everything counts as changed since before the first save
    let all = try f.journal.storage.changes(since: first.created.addingTimeInterval(-1))
    #expect(all.saved == [first.id, second.id])
  }

  /// A deletion is restorable inside its window; once purged, its id is a tombstone and a
  /// restore finds nothing.
  @Test func deleteRestorePurgeTombstone() throws {
    let f = try AppFixture()
    let session = try f.saved()
    let storage = f.journal.storage
    let now = f.clock.read()
    // Deleted and restored within the window
    let deletion = try storage.delete([session.id], now: now, purgeAfter: now + 10)
    #expect(try storage.summaries(needsReflection: false).sessions.isEmpty)
    #expect(try storage.restore(deletion, now: now + 5) == [session.id])
    #expect(try storage.session(session.id) == session)
    // Deleted again, and the window closes
    let again = try storage.delete([session.id], now: now + 6, purgeAfter: now + 16)
    #expect(try storage.purgeExpired(now: now + 15) == 0)
    #expect(try storage.tombstones().isEmpty)
    #expect(try storage.purgeExpired(now: now + 16) == 1)
    #expect(try storage.restore(again, now: now + 16) == nil)
    #expect(try storage.tombstones() == [session.id])
    #expect(try storage.changes(since: now).purged == [session.id])
  }
}
