import Foundation
import JournalCore
import JournalStorage
import JournalTestSupport
import Testing

/// The record layout of SECURITY.md, on its own: what the vault seals and what a sealed
/// addition carries, read back exactly, and bytes that are not a record refused, never
/// trapped on.
struct RecordCodecTests {
  let id = SessionID(randomBytes: Array(repeating: 7, count: 16))

  /// A session with every field the layout knows, the optional ones included.
  func whole(
    status: SessionStatus = .complete, reflection: String? = "lighter ✓"
  ) throws -> Session {
    Session(
      id: id, date: TestClock.reference - 3_600, treatment: .other("breathwork"),
      dose: "none", intention: "to listen", moodBefore: Mood(3),
      environment: "at home", music: "rain", moodAfter: Mood(8),
      reflection: reflection, created: TestClock.reference - 3_000,
      updated: TestClock.reference, status: status)
  }

  func decode(_ summary: [UInt8], _ body: [UInt8]) throws -> Session {
    let read = try summary.withUnsafeBytes { try RecordCodec.decodeSummary($0, id: id) }
    let fields = try body.withUnsafeBytes { try RecordCodec.decodeBody($0) }
    return try RecordCodec.session(read, fields)
  }

  /// Summary and body, encoded and decoded, are the session again, field for field.
  @Test func sessionRoundTrip() throws {
    let session = try whole()
    let read = try decode(RecordCodec.encodeSummary(session), RecordCodec.encodeBody(session))
    #expect(read == session)
  }

  /// The fewest fields a session has (a known treatment, no optional text) read back too.
  @Test func fewestFields() throws {
    let session = Session(
      id: id, date: TestClock.reference, treatment: .psilocybin, dose: nil, intention: "x",
      moodBefore: nil, environment: nil, music: nil, moodAfter: nil, reflection: nil,
      created: TestClock.reference, updated: TestClock.reference, status: .needsReflection)
    #expect(
      try decode(RecordCodec.encodeSummary(session), RecordCodec.encodeBody(session))
        == session)
  }

  /// A sealed new addition is one record, summary and body together, without the marks of
  /// the passphrase-less write (the vault sets them when it opens one).
  @Test func newAdditionRoundTrip() throws {
    var session = try whole()
    session.markAddedSealed(at: TestClock.reference)
    let bytes = RecordCodec.encodeNewAddition(session)
    let read = try bytes.withUnsafeBytes { try RecordCodec.decodeNewAddition($0, id: id) }
    #expect(read.intention == session.intention)
    #expect(read.reflection == session.reflection)
    #expect(read.moodBefore == session.moodBefore)
    #expect(read.addedSealed == nil)
  }

  /// No prefix of a record reads back as the record (never a trap; a summary cut anywhere
  /// is refused or lacks its date, a body cut anywhere lacks its reflection), and a record
  /// of another version is refused. (A cut at a field boundary may decode: the seal, not
  /// the layout, is what keeps a record whole on disk.)
  @Test func truncatedAndForeignRecordsAreRefused() throws {
    let session = try whole()
    let summary = RecordCodec.encodeSummary(session)
    let body = RecordCodec.encodeBody(session)
    for length in 0..<summary.count {
      let prefix = Array(summary.prefix(length))
      let read = try? prefix.withUnsafeBytes { try RecordCodec.decodeSummary($0, id: id) }
      #expect(read == nil || read?.date != session.date, "summary cut at \(length)")
    }
    for length in 0..<body.count {
      let prefix = Array(body.prefix(length))
      let read = try? prefix.withUnsafeBytes { try RecordCodec.decodeBody($0) }
      #expect(read?.reflection != session.reflection, "body cut at \(length)")
    }
    var foreign = summary
    foreign[0] = 2
    #expect(throws: (any Error).self) {
      try foreign.withUnsafeBytes { try RecordCodec.decodeSummary($0, id: id) }
    }
  }

  /// A draft is never a stored session: a summary that says "draft" is refused.
  @Test func draftStatusIsRefused() throws {
    let summary = RecordCodec.encodeSummary(try whole(status: .draft, reflection: nil))
    #expect(throws: (any Error).self) {
      try summary.withUnsafeBytes { try RecordCodec.decodeSummary($0, id: id) }
    }
  }

  /// "Complete exactly when reflected on": a reflection under any other status, or a
  /// complete session without one, is damage, either way round.
  @Test func statusAndReflectionAgree() throws {
    let reflected = try whole(status: .closed)
    let unreflected = try whole(reflection: nil)
    for session in [reflected, unreflected] {
      #expect(throws: (any Error).self) {
        try decode(RecordCodec.encodeSummary(session), RecordCodec.encodeBody(session))
      }
    }
  }
}

/// Format 14: tags in the summary, integration notes in the body, read back exactly and
/// anything else refused.
struct NotesAndTagsCodecTests {
  let id = SessionID(randomBytes: Array(repeating: 9, count: 16))
  let now = TestClock.reference

  func noted() throws -> Session {
    var session = Session(
      id: id, date: now - 3_600, treatment: .psilocybin, dose: nil, intention: "to listen",
      moodBefore: Mood(3), environment: nil, music: nil, moodAfter: nil, reflection: nil,
      created: now - 3_000, updated: now, status: .needsReflection)
    var next: UInt64 = 0
    func random() -> UInt64 {
      next += 1
      return next
    }
    try session.retag(adding: ["grief", "inner child"], removing: [], now: now)
    try session.addNote(Note(text: "a dream ✓", mood: Mood(7), now: now, random: random), now: now)
    try session.addNote(Note(text: "gone", mood: nil, now: now + 1, random: random), now: now + 1)
    try session.addNote(Note(text: "", mood: nil, now: now + 2, random: random), now: now + 2)
    _ = try session.editNote(1, text: "a dream, again", mood: nil, version: 77, now: now + 3)
    _ = try session.deleteNote(2, purgeAfter: now + 20, version: 78, now: now + 4)
    return session
  }

  func decode(_ s: Session) throws -> Session {
    let summary = RecordCodec.encodeSummary(s)
    let body = RecordCodec.encodeBody(s)
    let read = try summary.withUnsafeBytes { try RecordCodec.decodeSummary($0, id: id) }
    let fields = try body.withUnsafeBytes { try RecordCodec.decodeBody($0) }
    return try RecordCodec.session(read, fields)
  }

  @Test func roundTrip() throws {
    let session = try noted()
    let read = try decode(session)
    #expect(read == session)
    #expect(read.summary.tags == ["grief", "inner child"])
    #expect(read.notes.count == 3)
    #expect(read.shownNotes.map(\.text) == ["a dream, again", ""])
  }

  /// The summary's note moods (tag 12) are the body's: the days since the session and the
  /// mood of each note shown that has one; a summary that says otherwise is damage.
  @Test func noteMoodsAreTheNotes() throws {
    let session = try noted()
    let summary = RecordCodec.encodeSummary(session)
    let read = try summary.withUnsafeBytes { try RecordCodec.decodeSummary($0, id: id) }
    #expect(read.noteMoods == [NoteMood(days: 0, mood: try #require(Mood(7)))])
    var other = session
    _ = try other.editNote(1, text: nil, mood: .some(Mood(2)), version: 90, now: now + 9)
    let body = RecordCodec.encodeBody(other)
    let fields = try body.withUnsafeBytes { try RecordCodec.decodeBody($0) }
    #expect(throws: (any Error).self) { try RecordCodec.session(read, fields) }
  }

  /// The body of `notes` as the layout writes it, with `change` made to its value.
  func body(_ change: (inout [UInt8]) -> Void) throws -> Bool {
    let session = try noted()
    var value: [UInt8] = []
    FieldCodec.put(.notes, notes: session.notes, into: &value)
    var notes = Array(value.dropFirst(5))
    change(&notes)
    var bytes: [UInt8] = [1]
    FieldCodec.put(.intention, text: "x", into: &bytes)
    FieldCodec.put(.notes, bytes: notes, into: &bytes)
    return bytes.withUnsafeBytes { (try? RecordCodec.decodeBody($0)) != nil }
  }

  @Test func damagedNotesAreRefused() throws {
    #expect(try body { _ in })
    // An unknown flag; a purge time without a deletion.
    #expect(try !body { $0[0] |= 64 })
    #expect(try !body { $0[0] = 8 })
    // No notes at all in a present field; a version count of 0 or 9.
    #expect(try !body { $0 = [] })
    let first = try noted().notes[0]
    let countAt = 1 + 8 + 8 + 8 + 1  // flags, id, written, edited, mood
    #expect(first.versions.count == 2)
    #expect(try !body { $0[countAt] = 0 })
    #expect(try !body { $0[countAt] = 9 })
    // The same note twice (out of order, and a repeated id).
    #expect(
      try !body { notes in
        let one = try? Self.firstNote(notes)
        notes = (one ?? []) + (one ?? [])
      })
    // Cut short.
    #expect(try !body { $0.removeLast() })
  }

  static func firstNote(_ notes: [UInt8]) throws -> [UInt8] {
    // flags, id, written, edited (flag 2), mood (flag 1), versions, their bytes, length, text
    let count = Int(notes[26])
    let lengthAt = 27 + 8 * count
    let length = Int(notes[lengthAt]) | Int(notes[lengthAt + 1]) << 8
    return Array(notes[0..<(lengthAt + 4 + length)])
  }

  @Test func damagedTagsAreRefused() throws {
    func summary(_ tags: [UInt8]) throws -> Bool {
      // Without notes: the tags are the summary's last field.
      var session = try noted()
      session.setNotes([])
      var bytes = RecordCodec.encodeSummary(session)
      // The tags field is last: its value replaced.
      let value = session.tags.reduce(0) { $0 + 1 + $1.utf8.count }
      bytes.removeLast(value + 5)
      FieldCodec.put(.tags, bytes: tags, into: &bytes)
      return bytes.withUnsafeBytes { (try? RecordCodec.decodeSummary($0, id: id)) != nil }
    }
    func tags(_ names: [String]) -> [UInt8] {
      names.flatMap { [UInt8($0.utf8.count)] + Array($0.utf8) }
    }
    #expect(try summary(tags(["a", "b"])))
    #expect(try !summary(tags(["b", "a"])))
    #expect(try !summary(tags(["a", "a"])))
    #expect(try !summary(tags(["Grief"])))
    #expect(try !summary(tags(["a,b"])))
    #expect(try !summary([]))
    #expect(try !summary([5, 0x61]))
    #expect(try !summary([2, 0xFF, 0xFE]))
  }
}
