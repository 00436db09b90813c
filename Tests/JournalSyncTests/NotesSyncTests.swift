import Foundation
import JournalTestSupport
import Testing

/// Integration notes and tags through a real server (issue 36): notes added on two devices
/// are all kept, with no conflict; a note corrected on both at once keeps both corrections;
/// a note deleted on one stays deleted on both; tags follow the later write.
struct NotesSyncTests {
  func notes(_ device: Device, _ id: String) -> [String] {
    let result = device.run("show", id, "--json")
    let object = try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
    let session = object?["session"] as? [String: Any]
    return (session?["notes"] as? [[String: Any]] ?? []).compactMap { $0["text"] as? String }
  }

  @Test(SyncTests.needsServer) func notesFromBothDevicesAreKept() throws {
    // Given a journal on two devices, and a note both have
    let (_, a, b, ids) = try SyncTests.pair("notes_both", sessions: 1)
    let id = ids[0]
    a.ok("note", id, "SHARED-NOTE")
    a.ok("sync")
    b.ok("sync")
    #expect(notes(b, id) == ["SHARED-NOTE"])
    // When each adds a note and corrects the shared one, offline, and tags it
    a.ok("note", id, "NOTE-FROM-A", "--mood", "6")
    b.ok("note", id, "NOTE-FROM-B")
    a.ok("note", id, "--edit", "1", "CORRECTED-ON-A")
    b.ok("note", id, "--edit", "1", "CORRECTED-ON-B")
    a.ok("edit", id, "--tag", "from-a")
    b.ok("edit", id, "--tag", "from-b")
    a.ok("sync")
    let meeting = b.ok("sync")
    a.ok("sync")
    // Then both hold every note and both corrections, the same way, and say so
    #expect(
      meeting.stdout.contains("keeps a note another device corrected at the same time"),
      "\(meeting)")
    let held = notes(a, id)
    #expect(held == notes(b, id))
    #expect(Set(held) == ["CORRECTED-ON-A", "CORRECTED-ON-B", "NOTE-FROM-A", "NOTE-FROM-B"])
    #expect(a.export() == b.export())
    #expect(a.ok("show", id).stdout.contains("kept from another device's correction"))
    // And the tags are the later write's, on both
    #expect(a.export().contains("\"from-b\"") && !a.export().contains("\"from-a\""))
    // When one device deletes a note (no undo window) and both sync
    let kept = held.firstIndex(of: "NOTE-FROM-A").map { $0 + 1 } ?? 0
    a.ok("note", id, "--delete", String(kept), "--yes", extra: ["JOURNAL_UNDO_WINDOW": "0s"])
    a.ok("sync")
    b.ok("sync")
    // Then it is gone on both, and a sync that brings the older copy again never revives it
    #expect(!notes(b, id).contains("NOTE-FROM-A"))
    #expect(a.export() == b.export())
    #expect(a.ok("sync").stdout == "up to date\n")
  }

  /// When the deleting device's clock stands in the tests of deleted notes.
  static let start = ["JOURNAL_DEBUG_NOW": "2027-01-20T10:00:00Z"]

  /// A journal on two devices (server `name`) with a note of `text` on both, deleted on the
  /// first at `start` with an hour to undo, and the deletion sent.
  func deletedWithAnHourToUndo(_ name: String, text: String) throws -> (Device, Device, String) {
    let (_, a, b, ids) = try SyncTests.pair(name, sessions: 1)
    let id = ids[0]
    a.ok("note", id, text, extra: Self.start)
    a.ok("sync", extra: Self.start)
    b.ok("sync", extra: Self.start)
    a.ok(
      "note", id, "--delete", "1", "--yes",
      extra: Self.start.merging(["JOURNAL_UNDO_WINDOW": "1h"]) { $1 })
    a.ok("sync", extra: Self.start)
    return (a, b, id)
  }

  /// A note deleted with time to undo it, reaching another device after the window has
  /// closed: that device's sync empties its sealed text as it writes the session (as any
  /// keyed write of the session there would) and sends the emptied copy on, which the first
  /// device then takes; no vault keeps the words waiting for the session's next edit.
  @Test(SyncTests.needsServer) func syncEmptiesADeletedNoteOnceItsWindowCloses() throws {
    // Given a note on both devices, when one deletes it with an hour to undo and sends that
    let (a, b, id) = try deletedWithAnHourToUndo("notes_purge", text: "WORDS-TO-FORGET")
    let start = Self.start
    #expect(IndependentReader.available || !Prerequisites.areRequired, "PyNaCl is missing")
    guard IndependentReader.available else { return }
    // (its text still kept there, sealed, for an undo)
    #expect(try a.independentRead("--deleted-notes").stdout.contains("WORDS-TO-FORGET"))
    // And the other device syncs only after the window has closed, then the first, whose
    // own clock is still inside it
    b.ok("sync", extra: ["JOURNAL_DEBUG_NOW": "2027-01-20T12:00:00Z"])
    a.ok("sync", extra: start)
    // Then neither vault holds the words, and the note stays deleted on both
    for device in [a, b] {
      let read = try device.independentRead("--deleted-notes")
      #expect(read.status == 0, "\(read.stderr)")
      #expect(!read.stdout.contains("WORDS-TO-FORGET"))
      #expect(read.stdout.contains(#""deleted""#), "\(read.stdout)")
    }
    #expect(notes(a, id).isEmpty && notes(b, id).isEmpty)
    #expect(a.export() == b.export())
  }

  /// A device whose clock runs a little ahead does not end another's undo window: a sync
  /// counts the window as closed only minutes after its end, so the deleting device can still
  /// undo, and the note comes back on both.
  @Test(SyncTests.needsServer) func aClockAheadDoesNotCutAnUndoShort() throws {
    // Given a note on both devices, deleted on one with an hour to undo, and sent
    let (a, b, id) = try deletedWithAnHourToUndo("notes_skew", text: "WORDS-TO-KEEP")
    // When the other device, its clock two minutes past the window, syncs, and the first
    // undoes inside its own window
    b.ok("sync", extra: ["JOURNAL_DEBUG_NOW": "2027-01-20T11:02:00Z"])
    let undo = ["JOURNAL_DEBUG_NOW": "2027-01-20T10:30:00Z"]
    a.ok("sync", extra: undo)
    a.ok("note", id, "--undo", extra: undo)
    a.ok("sync", extra: undo)
    b.ok("sync", extra: ["JOURNAL_DEBUG_NOW": "2027-01-20T11:03:00Z"])
    // Then the note is back on both
    #expect(notes(a, id) == ["WORDS-TO-KEEP"])
    #expect(notes(b, id) == ["WORDS-TO-KEEP"])
  }
}
