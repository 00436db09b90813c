import Foundation
import Glibc
import JournalCore
import JournalTestSupport
import Testing

@testable import JournalApp
@testable import JournalTerminal

/// The session documents journal writes (Docs/USER-GUIDE.md: the export, `"format":
/// "journal-export"` with its `version`, and `show --json` and `list --json` with their
/// `schema_version`), in every version, committed under Tests/Fixtures/export.
///
/// Each was written once by today's writer (`writeFixtures`, JOURNAL_WRITE_FIXTURES=1, which
/// writes only what is missing) from `Fixtures.sessions`. An export imports back through
/// `journal import`'s own reading into a new vault to exactly those sessions, and that vault
/// exports to the same bytes again as today's version (2 since tags and notes): export takes no random bytes and no clock but the
/// `exported` time, so a change to the document that keeps its version fails here.
struct ExportFixtureTests {
  /// The `exported` time of the fixtures.
  static let exported = Fixtures.time(1_795_285_800_000)

  /// Brings the file at `path` into `journal` as `journal import` does (ExportSessions);
  /// its kind, and how many sessions were added and found unchanged.
  static func importFile(_ path: String, into journal: JournalVault) throws -> (
    kind: ImportParser.Kind, added: Int, unchanged: Int
  ) {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    #expect(fd >= 0)
    defer { close(fd) }
    let parser = ImportParser(timeZone: .gmt, now: TestClock.reference)
    var stream = JSONStream(fd: fd)
    var kind = ImportParser.Kind.journal
    let count = try journal.importSessions(dryRun: false) { take in
      kind = try parser.parse(&stream, take)
    }
    return (kind, count.added, count.unchanged)
  }

  /// `session` as an import makes it: a kept text carries its time in an export, not the
  /// device that wrote it, so it comes back stamped at that time on no device, its counter
  /// its place in the list (ImportParser.keptConflicts).
  static func asImported(_ session: Session) -> Session {
    let s = session
    return Session(
      id: s.id, date: s.date, treatment: s.treatment, dose: s.dose, intention: s.intention,
      moodBefore: s.moodBefore, environment: s.environment, music: s.music,
      moodAfter: s.moodAfter, reflection: s.reflection, created: s.created, updated: s.updated,
      status: s.status, addedSealed: s.addedSealed, laterSealed: s.laterSealed,
      conflicts: s.conflicts.enumerated().map { index, kept in
        Conflict(
          field: kept.field, text: kept.text,
          stamp: SyncStamp(
            time: kept.stamp.time, counter: UInt32(index),
            device: [UInt8](repeating: 0, count: 16)))
      })
  }

  /// Every session of `journal` as `journal export` writes them (JSON).
  static func export(_ journal: JournalVault) throws -> [UInt8] {
    var writer = Export.Writer(format: .json, exported: exported, timeZone: .gmt)
    var bytes: [UInt8] = []
    let damaged = try journal.export(SessionFilter(now: .distantFuture)) { count in
      bytes += writer.begin(count: count)
    } _: { session in
      bytes += writer.add(session)
    }
    #expect(damaged.isEmpty)
    bytes += writer.end()
    return bytes
  }

  /// Every export version has a fixture that imports into a new vault as exactly the
  /// sessions it was written from, and that vault exports to the same bytes.
  @Test(arguments: 1...Export.version)
  func exportOfEveryVersion(version: Int) throws {
    // Given
    let name = "export/export-v\(version).json"
    let bytes = try #require(Fixtures.bytes(name), "no fixture \(name)")
    let f = try AppFixture()

    // When
    let (kind, added, _) = try Self.importFile(Fixtures.path(name), into: f.journal)

    // Then
    #expect(kind == .journal)
    #expect(added == Fixtures.sessions.count)
    for session in Fixtures.sessions {
      #expect(try f.journal.session(session.id) == Self.asImported(session))
    }
    // Today's version is written again byte for byte; an earlier one only read.
    if version == Export.version {
      #expect(try Self.export(f.journal) == bytes, "the export is no longer written as it was")
    }
    // A second import of the same file changes nothing.
    #expect(try Self.importFile(Fixtures.path(name), into: f.journal).unchanged == 3)
  }

  /// Every schema version of `show --json` and `list --json` has fixtures that today's code
  /// writes byte for byte and reads back as the same documents.
  @Test(arguments: 1...Render.schemaVersion)
  func showAndListOfEveryVersion(version: Int) throws {
    for session in Fixtures.sessions {
      let name = "export/show-v\(version)-\(session.id.short).json"
      let bytes = try #require(Fixtures.bytes(name), "no fixture \(name)")
      #expect(Array(Render.json(session: session).utf8) == bytes)
      let object = try #require(
        try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
      #expect(object["schema_version"] as? Int == version)
      let document = try JSONDecoder().decode(
        SessionDocument.self,
        from: try JSONSerialization.data(withJSONObject: try #require(object["session"])))
      #expect(document == SessionDocument(session, shortID: true))
    }
    let name = "export/list-v\(version).json"
    let bytes = try #require(Fixtures.bytes(name), "no fixture \(name)")
    #expect(Array(Render.json(list: Fixtures.sessions.map(\.summary), damaged: []).utf8) == bytes)
  }

  /// Writes the export fixtures that are missing (JOURNAL_WRITE_FIXTURES=1; never in a
  /// normal run).
  @Test(.enabled(if: Fixtures.writing)) func writeFixtures() throws {
    let export = Export.json(Fixtures.sessions, exported: Self.exported)
    try Fixtures.writeIfMissing("export/export-v\(Export.version).json", Array(export.utf8))
    for session in Fixtures.sessions {
      try Fixtures.writeIfMissing(
        "export/show-v1-\(session.id.short).json", Array(Render.json(session: session).utf8))
    }
    try Fixtures.writeIfMissing(
      "export/list-v1.json",
      Array(Render.json(list: Fixtures.sessions.map(\.summary), damaged: []).utf8))
  }
}
