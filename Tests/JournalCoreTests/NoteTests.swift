import Foundation
import JournalCore
import Testing

/// Integration notes and tags as pure rules: numbering, correction, deletion with its
/// window, the purge, and the merge of two devices' notes without a base.
struct NoteTests {
  let now = Date(timeIntervalSince1970: 1_795_285_800)

  /// A counter for ids and versions: deterministic, never repeating.
  final class Counter: @unchecked Sendable {
    var value: UInt64
    init(_ start: UInt64) { value = start }
    func next() -> UInt64 {
      value += 1
      return value
    }
  }

  func session(status: SessionStatus = .complete) -> Session {
    Session(
      id: SessionID(randomBytes: Array(repeating: 1, count: 16)), date: now - 86400,
      treatment: .psilocybin, dose: nil, intention: "to listen", moodBefore: Mood(4),
      environment: nil, music: nil, moodAfter: nil,
      reflection: status == .complete ? "kind" : nil, created: now - 86400,
      updated: now - 86400, status: status)
  }

  @Test(arguments: [SessionStatus.needsReflection, .complete, .closed])
  func notesKeepTheStatusAndTheirOrder(status: SessionStatus) throws {
    let ids = Counter(0)
    var s = session(status: status)
    try s.addNote(Note(text: "second", mood: nil, now: now + 20, random: ids.next), now: now + 20)
    // Written earlier (a sealed note opened later, an import): still numbered by its time.
    try s.addNote(
      Note(text: "first", mood: Mood(6), now: now + 10, random: ids.next), now: now + 30)
    #expect(s.status == status)
    #expect(s.shownNotes.map(\.text) == ["first", "second"])
    #expect(try s.note(numbered: 1).mood == Mood(6))
    #expect(s.updated == now + 30)
    #expect(throws: NoteError.noSuchNote(number: 3, count: 2)) { try s.note(numbered: 3) }
    #expect(throws: NoteError.noSuchNote(number: 0, count: 2)) { try s.note(numbered: 0) }
  }

  @Test func correctingKeepsTheNoteAndRemembersItsVersions() throws {
    let ids = Counter(0)
    var s = session()
    let note = Note(text: "a dream", mood: Mood(5), now: now, random: ids.next)
    try s.addNote(note, now: now)
    let edited = try s.editNote(
      1, text: "a dream, again", mood: .some(nil), version: 99, now: now + 5)
    #expect(edited.id == note.id)
    #expect(edited.text == "a dream, again")
    #expect(edited.mood == nil)
    #expect(edited.edited == now + 5)
    #expect(edited.versions == [99] + note.versions)
    // Only the newest `remembered` versions are kept.
    for version in 100..<120 {
      _ = try s.editNote(1, text: nil, mood: nil, version: UInt64(version), now: now + 6)
    }
    #expect(try s.note(numbered: 1).versions.count == Note.remembered)
    #expect(try s.note(numbered: 1).versions.first == 119)
  }

  @Test func deletionHasAWindowThenAPurge() throws {
    let ids = Counter(0)
    var s = session()
    try s.addNote(Note(text: "one", mood: nil, now: now, random: ids.next), now: now)
    try s.addNote(Note(text: "two", mood: Mood(3), now: now + 1, random: ids.next), now: now + 1)
    let deleted = try s.deleteNote(2, purgeAfter: now + 12, version: 50, now: now + 2)
    #expect(s.shownNotes.map(\.text) == ["one"])
    #expect(s.notes.count == 2)
    #expect(!s.hasNotesToPurge(at: now + 11))
    // Within the window it comes back, text and mood and all.
    var undone = s
    let restored = try undone.restoreNote(version: 51, now: now + 11)
    #expect(restored.id == deleted.id)
    #expect(undone.shownNotes.map(\.text) == ["one", "two"])
    #expect(undone.shownNotes.last?.mood == Mood(3))
    // At the window's end it has closed: purged, its identity kept.
    #expect(throws: NoteError.nothingToRestore) { try s.restoreNote(version: 51, now: now + 12) }
    #expect(s.hasNotesToPurge(at: now + 12))
    s.purgeNotes(at: now + 12)
    #expect(s.notes[1].text.isEmpty)
    #expect(s.notes[1].mood == nil)
    #expect(s.notes[1].deleted != nil)
    #expect(!s.hasNotesToPurge(at: now + 13))
  }

  @Test func tagsAreNormalisedSortedAndBounded() throws {
    #expect(try Tag.normalise("  Grief ") == "grief")
    #expect(try Tag.normalise("inner child") == "inner child")
    #expect(throws: FieldError.emptyTag) { try Tag.normalise("  ") }
    #expect(throws: FieldError.tagCharacters) { try Tag.normalise("a,b") }
    #expect(throws: FieldError.tagCharacters) { try Tag.normalise("a\u{1B}[31m") }
    #expect(throws: FieldError.tagTooLong(maximumBytes: 64)) {
      try Tag.normalise(String(repeating: "é", count: 33))
    }
    var s = session()
    let before = s.updated
    try s.retag(adding: ["grief", "ceremony", "grief"], removing: [], now: now)
    #expect(s.tags == ["ceremony", "grief"])
    #expect(s.updated == now)
    // Nothing changed: not stamped.
    try s.retag(adding: ["grief"], removing: ["absent"], now: now + 50)
    #expect(s.updated == now)
    try s.retag(adding: [], removing: ["grief"], now: now + 60)
    #expect(s.tags == ["ceremony"])
    #expect(before < s.updated)
    let many = (0..<40).map { "t\($0)" }
    #expect(throws: FieldError.tooManyTags(maximum: 32)) {
      try s.retag(adding: many, removing: [], now: now)
    }
    #expect(s.tags == ["ceremony"])
    #expect(Tag.isStored(["a", "b"]))
    #expect(!Tag.isStored(["b", "a"]))
    #expect(!Tag.isStored(["A"]))
    #expect(!Tag.isStored(["a", "a"]))
  }

  // MARK: - Merge

  func note(_ id: UInt64, _ text: String, at offset: TimeInterval, version: UInt64) -> Note {
    Note(
      id: Note.ID(id), written: now + offset, edited: nil, mood: nil, text: text, deleted: nil,
      purgeAfter: nil, addedSealed: false, keptFrom: nil, versions: [version])
  }

  /// Both orders give the same notes: every device makes the same session.
  func merged(_ a: [Note], _ b: [Note]) -> [Note] {
    let one = NoteMerge.merge(a, b)
    #expect(one == NoteMerge.merge(b, a))
    #expect(NoteMerge.merge(one, one) == one)
    return one
  }

  @Test func notesAddedOnTwoDevicesAreAllKept() {
    let a = [note(1, "here", at: 0, version: 11)]
    let b = [note(2, "there", at: 5, version: 12)]
    #expect(merged(a, b).map(\.text) == ["here", "there"])
  }

  @Test func aCorrectionWinsOverTheVersionItReplaced() throws {
    let ids = Counter(100)
    var s = session()
    try s.addNote(Note(text: "draft", mood: nil, now: now, random: ids.next), now: now)
    let old = s.notes
    _ = try s.editNote(1, text: "better", mood: nil, version: 500, now: now + 10)
    #expect(merged(old, s.notes).map(\.text) == ["better"])
    // So does a deletion: it never comes back.
    var deleted = s
    _ = try deleted.deleteNote(1, purgeAfter: now + 20, version: 501, now: now + 11)
    deleted.purgeNotes(at: now + 20)
    let both = merged(old, deleted.notes)
    #expect(both.count == 1)
    #expect(both[0].deleted != nil)
    #expect(both.allSatisfy { !$0.isShown })
  }

  @Test func correctionsWrittenApartAreBothKept() throws {
    let ids = Counter(200)
    var s = session()
    try s.addNote(Note(text: "draft", mood: nil, now: now, random: ids.next), now: now)
    var here = s
    var there = s
    _ = try here.editNote(1, text: "here's", mood: nil, version: 600, now: now + 10)
    _ = try there.editNote(1, text: "there's", mood: nil, version: 700, now: now + 20)
    let both = merged(here.notes, there.notes)
    #expect(both.filter(\.isShown).map(\.text).sorted() == ["here's", "there's"])
    let kept = try #require(both.first { $0.keptFrom != nil })
    #expect(kept.text == "here's")
    #expect(kept.keptFrom == s.notes[0].id)
    // The later correction keeps the note's identity.
    #expect(both.first { $0.id == s.notes[0].id }?.text == "there's")
    // Merging again (a third device with the old version) adds nothing.
    #expect(merged(both, s.notes) == both)
    #expect(merged(both, here.notes) == both)
  }

  /// Notes written in the same millisecond keep the order added, by stored milliseconds:
  /// a note at m + 1 ms and two added at m read back in order, whatever their ids.
  @Test func sameMillisecondKeepsTheOrderAdded() throws {
    var s = session()
    let m = Date(timeIntervalSince1970: 1_790_000_000)
    func note(_ id: UInt64, _ at: Date) -> Note {
      Note(
        id: Note.ID(id), written: at, edited: nil, mood: nil, text: "n\(id)", deleted: nil,
        purgeAfter: nil, addedSealed: false, keptFrom: nil, versions: [id])
    }
    try s.addNote(note(9, m + 0.001), now: m)
    try s.addNote(note(5, m), now: m)
    try s.addNote(note(7, m), now: m)
    #expect(s.notesAreReadable)
    #expect(s.shownNotes.map(\.text) == ["n5", "n9", "n7"])
    let millis = s.notes.map { StoredRange.millis($0.written) }
    #expect(millis == [1_790_000_000_000, 1_790_000_000_001, 1_790_000_000_002])
  }

  /// A session takes at most 8 MiB of note text from a person.
  @Test func notesHaveATotalLimit() throws {
    let ids = Counter(900)
    var s = session()
    let big = String(repeating: "a", count: Note.maximumBytes)
    for _ in 0..<8 {
      try s.addNote(Note(text: big, mood: nil, now: now, random: ids.next), now: now)
    }
    #expect(throws: NoteError.notesTooLong(maximumBytes: Note.maximumTotalBytes)) {
      try s.addNote(Note(text: "one more", mood: nil, now: now, random: ids.next), now: now)
    }
  }

  /// A command acts on the note it showed, found by its id when the numbers moved meanwhile
  /// (an earlier note deleted); if that note was corrected elsewhere, nothing is done.
  @Test func actingOnANoteThatChangedMeanwhile() throws {
    let ids = Counter(950)
    var s = session()
    for (offset, text) in ["one", "two", "three"].enumerated() {
      try s.addNote(
        Note(text: text, mood: nil, now: now + Double(offset), random: ids.next), now: now)
    }
    let second = try s.note(numbered: 2)
    _ = try s.deleteNote(1, purgeAfter: now + 10, version: 70, now: now + 5)
    // The numbers moved: the note shown (now number 1) is the one corrected.
    let corrected = try s.editNote(
      2, text: "two", mood: nil, version: 71, now: now + 6, expecting: second)
    #expect(corrected.id == second.id)
    #expect(s.shownNotes.map(\.text) == ["two", "three"])
    let first = try s.note(numbered: 1)
    _ = try s.editNote(1, text: "two, corrected elsewhere", mood: nil, version: 72, now: now + 7)
    #expect(throws: NoteError.changedMeanwhile(number: 1)) {
      try s.deleteNote(1, purgeAfter: now, version: 73, now: now + 8, expecting: first)
    }
    #expect(s.shownNotes.map(\.text) == ["two, corrected elsewhere", "three"])
  }

  /// A deletion stands over a copy older than it, even one it replaced beyond the versions
  /// remembered; two copies of one version merge the same way in either order.
  @Test func aDeletionStandsOverAnOldCopy() throws {
    let ids = Counter(400)
    var s = session()
    try s.addNote(Note(text: "draft", mood: nil, now: now, random: ids.next), now: now)
    let old = s.notes
    for step in 0..<(Note.remembered + 4) {
      _ = try s.editNote(
        1, text: "edit \(step)", mood: nil, version: 1000 + UInt64(step), now: now + Double(step))
    }
    _ = try s.deleteNote(1, purgeAfter: now + 100, version: 2000, now: now + 50)
    let both = merged(old, s.notes)
    #expect(both.count == 1 && !both[0].isShown, "\(both)")
    let original = old[0]
    let lie = [
      Note(
        id: original.id, written: original.written, edited: nil, mood: nil,
        text: "another text of the same version", deleted: nil, purgeAfter: nil,
        addedSealed: false, keptFrom: nil, versions: original.versions)
    ]
    #expect(merged(old, lie).count == 1)
  }

  /// Written apart, a deletion yields to a correction made after it, and stands over one
  /// made before it.
  @Test func aDeletionAndACorrectionWrittenApart() throws {
    let ids = Counter(300)
    var s = session()
    try s.addNote(Note(text: "draft", mood: nil, now: now, random: ids.next), now: now)
    var here = s
    var there = s
    _ = try here.deleteNote(1, purgeAfter: now + 100, version: 800, now: now + 10)
    _ = try there.editNote(1, text: "kept", mood: nil, version: 900, now: now + 50)
    #expect(merged(here.notes, there.notes).map(\.text) == ["kept"])
    var early = s
    _ = try early.editNote(1, text: "before the deletion", mood: nil, version: 901, now: now + 5)
    #expect(merged(here.notes, early.notes).allSatisfy { !$0.isShown })
  }

}
