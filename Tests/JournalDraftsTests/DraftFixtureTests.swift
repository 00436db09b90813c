import Foundation
import Glibc
import JournalCore
import JournalCrypto
import JournalDrafts
import JournalTestSupport
import Testing

/// A draft file of every version SECURITY.md describes ("Draft files, versions 1, 2 and 3"),
/// committed under Tests/Fixtures/drafts and opened by today's code field for field.
///
/// Each was written once by the writer of its version (`writeFixtures`, run with
/// JOURNAL_WRITE_FIXTURES=1, which writes only the fixtures that are missing), under the
/// fixtures' key (Tests/Fixtures/key-header.json). Versions 1 and 2 are sealed with nonces from
/// a seeded random source, so today's writer must write them again byte for byte: a change to
/// the layout that keeps the version number fails here. Version 3 is `crypto_box_seal`, whose
/// ephemeral key libsodium draws itself, so its plaintext is compared instead.
struct DraftFixtureTests {
  /// One committed draft file: its version, its name, what it holds, and the seed its nonce
  /// came from (nil for a sealed draft).
  struct Case: Sendable {
    let version: UInt8
    let name: String
    let stored: StoredDraft
    let seed: UInt64?
  }

  static let started = TestClock.reference

  static let cases: [Case] = [
    Case(
      version: 1, name: "draft-v1.draft",
      stored: StoredDraft(
        draft: SessionDraft(
          id: SessionID(randomBytes: [UInt8](repeating: 0xD1, count: 16)), date: started - 600,
          treatment: .other("San Pedro"), dose: "a small cup — 2 g",
          intention: "to rest\nand to listen ✨", moodBefore: Mood(4)),
        started: started, updated: started + 90),
      seed: 101),
    Case(
      version: 2, name: "draft-v2.draft",
      stored: StoredDraft(
        draft: SessionDraft(
          id: SessionID(randomBytes: [UInt8](repeating: 0xD2, count: 16)),
          reflection: "I was held.\nThen I let go — 🌊"),
        started: started + 3600, updated: started + 3700),
      seed: 102),
    Case(
      version: 3, name: "draft-v3.draft",
      stored: StoredDraft(
        draft: SessionDraft(
          id: SessionID(randomBytes: [UInt8](repeating: 0xD3, count: 16)), date: started,
          treatment: .psilocybin, intention: "written while locked", moodBefore: Mood(6)),
        started: started + 60, updated: started + 120),
      seed: nil),
    Case(
      version: 3, name: "draft-v3-reflection.draft",
      stored: StoredDraft(
        draft: SessionDraft(
          id: SessionID(randomBytes: [UInt8](repeating: 0xD4, count: 16)),
          reflection: "kept without the passphrase"),
        started: started + 7200, updated: started + 7260),
      seed: nil),
  ]

  /// Writes `stored` as today's code does for `version` into `directory`; its bytes.
  static func write(_ stored: StoredDraft, version: UInt8, seed: UInt64?, in directory: String)
    throws -> [UInt8]
  {
    let keys = try Fixtures.keys()
    let store =
      version == DraftStore.sealedVersion
      ? try DraftStore(
        directory: directory, vaultID: keys.vaultID, sealingKey: keys.sealingPublicKey)
      : try DraftStore(directory: directory, keys: keys, random: SeededRandom(seed: seed ?? 0))
    try store.create(stored).release()
    return try #require(
      FileManager.default.contents(atPath: store.path(stored.draft.id, ".draft"))
        .map { Array($0) })
  }

  /// Every version from 1 to today's has a committed draft file that today's code opens to
  /// exactly what was written; the layout written today for the same draft is the same.
  @Test(arguments: 1...DraftStore.formatVersion)
  func opensEveryVersion(version: UInt8) throws {
    let cases = Self.cases.filter { $0.version == version }
    #expect(!cases.isEmpty, "no fixture for draft file version \(version)")
    for fixture in cases {
      // Given: the committed file, in a drafts directory under the name it had.
      let bytes = try #require(
        Fixtures.bytes("drafts/" + fixture.name), "missing fixture \(fixture.name)")
      #expect(bytes[DraftStore.magic.count] == version)
      let directory = TemporaryDirectory()
      let keys = try Fixtures.keys()
      let store = try DraftStore(
        directory: directory.file("drafts"), keys: keys, random: SeededRandom(seed: 1))
      let id = fixture.stored.draft.id
      try Data(bytes).write(to: URL(fileURLWithPath: store.path(id, ".draft")))
      chmod(store.path(id, ".draft"), 0o600)

      // When / Then: it reads back field for field.
      #expect(try store.scan() == [DraftStore.Entry(id: id, state: .ready(fixture.stored))])

      // And today's writer writes the same bytes (or, sealed, the same header and plaintext).
      let again = try Self.write(
        fixture.stored, version: version, seed: fixture.seed, in: TemporaryDirectory().path)
      if fixture.seed != nil {
        #expect(again == bytes, "draft version \(version) is no longer written as it was")
      } else {
        #expect(
          again.prefix(DraftStore.headerBytes) == bytes.prefix(DraftStore.headerBytes))
        let plain = try SealedBox.open(Array(bytes[DraftStore.headerBytes...]), keys: keys) {
          Array($0)
        }
        #expect(plain == DraftCodec.encode(fixture.stored))
      }

      // And one byte changed anywhere past the magic makes it unreadable, never something else.
      for offset in [DraftStore.magic.count + 1, DraftStore.headerBytes + 30, bytes.count - 1] {
        var flipped = bytes
        flipped[offset] ^= 0x01
        try Data(flipped).write(to: URL(fileURLWithPath: store.path(id, ".draft")))
        #expect(try store.scan() == [DraftStore.Entry(id: id, state: .unreadable)])
      }
    }
  }

  /// Writes the draft fixtures that are missing (JOURNAL_WRITE_FIXTURES=1; never in a normal
  /// run). A landed fixture is never written again: it is what that version wrote.
  @Test(.enabled(if: Fixtures.writing)) func writeFixtures() throws {
    for fixture in Self.cases {
      let directory = TemporaryDirectory()
      let bytes = try Self.write(
        fixture.stored, version: fixture.version, seed: fixture.seed, in: directory.path)
      try Fixtures.writeIfMissing("drafts/" + fixture.name, bytes)
    }
  }
}
