import Foundation
import JournalCore
import JournalSync
import JournalTestSupport
import Testing

/// A session's row as the sync server holds it, before sealing (SyncRowCodec): no server is
/// needed to read one.
struct SyncRowCodecTests {
  static let id = SessionID(randomBytes: [UInt8](repeating: 0x5e, count: 16))

  /// A complete session with a stamp on every field.
  static func version() throws -> SyncMerge.Version {
    let draft = SessionDraft(
      id: id, date: TestClock.reference, treatment: .other("TREATMENT-NAME"), dose: "DOSE-TEXT",
      intention: "INTENTION-WORDS", moodBefore: Mood(4))
    var session = try Session.saving(draft, now: TestClock.reference)
    try session.apply(.moodAfter(Mood(9)), now: TestClock.reference)
    try session.apply(.reflection("REFLECTION-WORDS"), now: TestClock.reference + 1)
    var stamps: SyncStamps = [:]
    for (index, field) in SyncField.allCases.enumerated() {
      stamps[field] = SyncStamp(
        time: 1_700_000_000_000 + UInt64(index), counter: UInt32(index),
        device: [UInt8](repeating: 7, count: 16))
    }
    return SyncMerge.Version(session: session, stamps: stamps)
  }

  static func decode(_ bytes: [UInt8]) throws -> SyncMerge.Version {
    try bytes.withUnsafeBytes { try SyncRowCodec.decode($0, id: id) }
  }

  /// A row reads back as it was written.
  @Test func roundTrip() throws {
    let version = try Self.version()
    #expect(try Self.decode(SyncRowCodec.encode(version)) == version)
  }

  /// A row that opened (sealed by a device with the key) but is cut short, of another
  /// layout, with a summary longer than the row, or whose columns are no session, is that
  /// session's damaged row, by its id: never a cipher's failure or a crash.
  @Test func damageIsTheRows() throws {
    // Given a row, and where its summary's length is
    let bytes = SyncRowCodec.encode(try Self.version())
    let lengthAt = 1 + SyncField.allCases.count * SyncStamp.bytes
    // When it is damaged
    var layout = bytes
    layout[0] = 0
    var tooLong = bytes
    tooLong[lengthAt + 3] = 0x7f
    var noSession = bytes
    noSession[lengthAt + 4] ^= 0xff
    let cases: [[UInt8]] = [
      [], Array(bytes.prefix(lengthAt + 3)), layout, tooLong, noSession, bytes.dropLast(3),
    ]
    // Then
    for wrong in cases {
      #expect(throws: SyncError.damagedRow(id: Self.id.short)) { try Self.decode(wrong) }
    }
  }
}
