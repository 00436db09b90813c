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
