import Foundation
import Glibc
import JournalCrypto
import JournalDiagnostics
import JournalSystem
import JournalTestSupport
import Testing

@testable import JournalApp
@testable import JournalStore

/// This computer's record of a vault ("JRNLSEEN", SECURITY.md "This computer's record") and
/// the sealing pin ("JRNLPINK", "Sealed additions"), in every version their magic names,
/// committed under Tests/Fixtures/witness and opened by today's code.
///
/// Each was written once by today's writer (`writeFixtures`, JOURNAL_WRITE_FIXTURES=1, which
/// writes only those missing) from entries laid out by hand as SECURITY.md's ledger section
/// gives them, under the fixtures' key (Tests/Fixtures/key-header.json). Both writers take no
/// random bytes, so today's must write every fixture again byte for byte: a change to either
/// layout that keeps the version byte fails here.
struct WitnessFixtureTests {
  /// The shapes a record of version 1 takes: the 97 bytes alone (a vault too large to keep
  /// its entries), with the entries of a vault of format 9 or 10 that does not sync (ledger
  /// construction 1), with format 11's settings entry, and with a syncing vault's entries.
  enum Shape: String, CaseIterable {
    case bare, rows, settings, sync
  }

  static let generation: UInt64 = 7
  static let server = "postgres://journal@db.example/journal"
  static let written: UInt64 = 1_795_285_800_000

  static func id(_ byte: UInt8) -> [UInt8] { [UInt8](repeating: byte, count: 16) }
  static func le(_ value: UInt64) -> [UInt8] { withUnsafeBytes(of: value.littleEndian, Array.init) }

  /// The entries of `shape`, laid out as SECURITY.md's "The ledger" says; nil for `bare`.
  static func rows(_ shape: Shape) -> LedgerRows? {
    guard shape != .bare else { return nil }
    // S: a complete session at revision 3, then one waiting at revision 1 (by status text).
    let sessions =
      [1] + id(0x22) + [2] + le(3) + [1] + id(0x33) + [1] + le(1)
    // T: a deletion of batch 1; D: a session deleted for good.
    let trash = [2] + id(0x44) + [1] + le(1) + le(1) + le(written) + le(written + 10_000)
    let tombstones = [3] + id(0x55)
    var sync: [UInt8] = []
    if shape == .sync {
      // Y: device, seq, head, header hash, the server's hash, the clock; R: one agreed row.
      sync += [4] + id(0x66) + le(12) + [UInt8](repeating: 0xA1, count: 32)
      sync += KeyedHash.unkeyed(Array("header".utf8))
      sync += KeyedHash.unkeyed(Array(server.utf8)) + le(written) + le(2)
      sync += [5] + id(0x22) + le(3) + le(6)
    }
    if shape == .settings || shape == .sync {
      // V: sealed capture on, a recovery slot.
      sync += [6, 1] + KeyedHash.unkeyed([UInt8](repeating: 0x88, count: 88))
    }
    return LedgerRows(sessions: sessions, trash: trash, tombstones: tombstones, sync: sync)
  }

  /// The stamp of `shape`: its rows' tag at `generation`, under the fixtures' ledger key.
  static func stamp(_ shape: Shape) throws -> LedgerStamp {
    let keys = try Fixtures.keys()
    // The bare record keeps no entries, but its tag was made over some.
    let tagged = try #require(rows(shape == .bare ? .rows : shape))
    let tag = try tagged.tag(vaultID: keys.vaultID, generation: generation, key: keys.ledgerKey)
    return LedgerStamp(generation: generation, tag: tag, rows: rows(shape))
  }

  /// A witness of a vault file in `directory`, kept under it.
  static func witness(in directory: TemporaryDirectory) throws -> VaultWitness {
    try #require(
      VaultWitness(
        vault: directory.file("vault.db"), environment: ["XDG_STATE_HOME": directory.path],
        keys: try Fixtures.keys()))
  }

  static func pin(in directory: TemporaryDirectory) throws -> SealingPin {
    try #require(
      SealingPin(
        vaultID: try Fixtures.keys().vaultID, environment: ["XDG_STATE_HOME": directory.path]))
  }

  /// Every version of the record, in every shape, reads back as the stamp and entries it was
  /// written with, is written again the same, and is refused as damaged with a byte changed.
  @Test(arguments: 1...Int(VaultWitness.magic[8]))
  func recordOfEveryVersion(version: Int) throws {
    for shape in Shape.allCases {
      let name = "witness/seen-v\(version)-\(shape.rawValue)"
      let bytes = try #require(Fixtures.bytes(name), "no fixture \(name)")
      let directory = TemporaryDirectory()
      let witness = try Self.witness(in: directory)
      try FileSafety.privateDirectory(FileSafety.parentDirectory(of: witness.path), create: true)
      try VaultWitness.replace(witness.path, with: bytes)

      let expected = try Self.stamp(shape)
      let read = try #require(try witness.read(rows: true))
      #expect(read == expected)
      #expect(read.rows == expected.rows)
      // A vault as new as the record passes; one a generation older is a rollback.
      try witness.check(expected)
      #expect(throws: AppError.olderThanSeen(seen: Self.generation, found: Self.generation - 1)) {
        try witness.check(LedgerStamp(generation: Self.generation - 1, tag: expected.tag))
      }
      #expect(
        VaultWitness.recordedServer(
          vault: directory.file("vault.db"), vaultID: try Fixtures.keys().vaultID,
          environment: ["XDG_STATE_HOME": directory.path])
          == (shape == .sync ? KeyedHash.unkeyed(Array(Self.server.utf8)) : nil))

      // Today's writer writes the same bytes.
      let fresh = TemporaryDirectory()
      let again = try Self.witness(in: fresh)
      try again.record(expected)
      #expect(
        FileManager.default.contents(atPath: again.path).map(Array.init) == bytes,
        "the record of version \(version) (\(shape)) is no longer written as it was")

      for offset in [9, 30, 70, bytes.count - 1] {
        var flipped = bytes
        flipped[offset] ^= 0x01
        try VaultWitness.replace(witness.path, with: flipped)
        #expect(throws: AppError.witnessDamaged(path: witness.path)) {
          try witness.read(rows: true)
        }
      }
    }
  }

  /// Every version of the sealing pin reads back as the fixtures' public sealing key, is
  /// written again the same, and a pin of another layout or vault is taken for a changed key.
  @Test(arguments: 1...Int(SealingPin.magic[8]))
  func pinOfEveryVersion(version: Int) throws {
    let name = "witness/sealing-v\(version)"
    let bytes = try #require(Fixtures.bytes(name), "no fixture \(name)")
    let directory = TemporaryDirectory()
    let pin = try Self.pin(in: directory)
    try FileSafety.privateDirectory(FileSafety.parentDirectory(of: pin.path), create: true)
    try VaultWitness.replace(pin.path, with: bytes)
    #expect(try pin.read() == Fixtures.keys().sealingPublicKey)

    let fresh = TemporaryDirectory()
    let again = try Self.pin(in: fresh)
    try again.record(try Fixtures.keys().sealingPublicKey)
    #expect(
      FileManager.default.contents(atPath: again.path).map(Array.init) == bytes,
      "the sealing pin of version \(version) is no longer written as it was")

    for offset in [8, 9, bytes.count - 1] {
      var flipped = bytes
      flipped[offset] ^= 0x01
      try VaultWitness.replace(pin.path, with: flipped)
      if offset == bytes.count - 1 {
        // Not authenticated: a changed key reads as that key, which sealing then refuses.
        #expect(try pin.read() != Fixtures.keys().sealingPublicKey)
      } else {
        #expect(throws: AppError.sealingKeyChanged) { try pin.read() }
      }
    }
  }

  /// Writes the record and pin fixtures that are missing (JOURNAL_WRITE_FIXTURES=1; never in
  /// a normal run).
  @Test(.enabled(if: Fixtures.writing)) func writeFixtures() throws {
    for shape in Shape.allCases {
      let directory = TemporaryDirectory()
      let witness = try Self.witness(in: directory)
      try witness.record(try Self.stamp(shape))
      let bytes = try #require(FileManager.default.contents(atPath: witness.path))
      try Fixtures.writeIfMissing("witness/seen-v1-\(shape.rawValue)", Array(bytes))
    }
    let directory = TemporaryDirectory()
    let pin = try Self.pin(in: directory)
    try pin.record(try Fixtures.keys().sealingPublicKey)
    let bytes = try #require(FileManager.default.contents(atPath: pin.path))
    try Fixtures.writeIfMissing("witness/sealing-v1", Array(bytes))
  }
}
