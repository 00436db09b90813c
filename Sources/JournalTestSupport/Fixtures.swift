import Foundation
import JournalCore
import JournalCrypto

/// The committed fixtures under Tests/Fixtures (see its README): bytes written once by the
/// code of their format's version and only read ever after, so that a reader that stops
/// opening what shipped fails a test.
///
/// A generator (a test enabled by JOURNAL_WRITE_FIXTURES=1) writes only the fixtures that are
/// not there yet: one that landed is never written again.
public enum Fixtures {
  /// Tests/Fixtures in the source tree.
  public static let directory: String = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().appendingPathComponent("../../Tests/Fixtures").standardized.path

  /// Whether this run writes the fixtures that are missing (JOURNAL_WRITE_FIXTURES=1).
  public static let writing = ProcessInfo.processInfo.environment["JOURNAL_WRITE_FIXTURES"] == "1"

  /// The passphrase every fixture's key is wrapped under.
  public static let passphrase = "fixture passphrase v1"

  /// The path of the fixture `name` (such as "drafts/draft-v1.draft").
  public static func path(_ name: String) -> String { directory + "/" + name }

  /// The bytes of the fixture `name`; nil when there is none.
  public static func bytes(_ name: String) -> [UInt8]? {
    FileManager.default.contents(atPath: path(name)).map { Array($0) }
  }

  /// Writes the fixture `name` unless it is there already; whether it wrote it.
  @discardableResult
  public static func writeIfMissing(_ name: String, _ bytes: [UInt8]) throws -> Bool {
    let target = path(name)
    guard !FileManager.default.fileExists(atPath: target) else { return false }
    try FileManager.default.createDirectory(
      atPath: (target as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    try Data(bytes).write(to: URL(fileURLWithPath: target))
    return true
  }

  /// The key header of every fixture's vault (Tests/Fixtures/key-header.json): made once by
  /// `VaultKeys.create` with Argon2id's smallest limits, wrapped under `passphrase`.
  public static func keyHeader() throws -> KeyHeader {
    guard let data = FileManager.default.contents(atPath: path("key-header.json")),
      let fields = try JSONSerialization.jsonObject(with: data) as? [String: Any]
    else { throw CryptoError.integrity }
    func number(_ key: String) -> UInt64 { (fields[key] as? NSNumber)?.uint64Value ?? 0 }
    func hex(_ key: String) -> [UInt8] { Hex.bytes(fields[key] as? String ?? "") ?? [] }
    return KeyHeader(
      vaultID: hex("vault_id"),
      limits: KDFLimits(opsLimit: number("ops_limit"), memLimit: number("mem_limit")),
      salt: hex("salt"), wrappedKey: hex("wrapped_key"))
  }

  /// The fixtures' keys, from their key header and passphrase. A generating run makes the
  /// header first if it is missing.
  public static func keys() throws -> VaultKeys {
    if writing, bytes("key-header.json") == nil {
      let (_, header) = try VaultKeys.create(
        passphrase: try SecureBytes(copying: Array(passphrase.utf8)), limits: TestKDF.limits,
        random: SeededRandom(seed: 34))
      try writeIfMissing("key-header.json", json(header))
    }
    return try VaultKeys.open(
      header: try keyHeader(), passphrase: try SecureBytes(copying: Array(passphrase.utf8)),
      policy: TestKDF.policy)
  }

  /// `header` as key-header.json holds it.
  public static func json(_ header: KeyHeader) -> [UInt8] {
    let text = """
      {
        "mem_limit": \(header.limits.memLimit),
        "ops_limit": \(header.limits.opsLimit),
        "salt": "\(Hex.lowercase(header.salt))",
        "vault_id": "\(Hex.lowercase(header.vaultID))",
        "wrapped_key": "\(Hex.lowercase(header.wrappedKey))"
      }

      """
    return Array(text.utf8)
  }

  /// An instant `millis` milliseconds after 1970, as every reader of a stored time makes it.
  public static func time(_ millis: Int64) -> Date {
    Date(timeIntervalSince1970: Double(millis) / 1000)
  }

  /// The sessions the export and sync fixtures hold: one complete with every field (texts
  /// with quotes, tabs, slashes, newlines and characters outside the BMP), one waiting for
  /// its reflection with a custom treatment and no mood before (a jrnl import), and one
  /// closed that was added without the passphrase, with later fields added that way too and
  /// a text another device wrote at the same time kept.
  public static let sessions: [Session] = [
    Session(
      id: SessionID(randomBytes: [UInt8](repeating: 0x5A, count: 16)),
      date: time(1_795_200_000_000), treatment: .psilocybin, dose: "3.5 g dried",
      intention: "to meet grief \"gently\"\nand stay", moodBefore: Mood(3),
      environment: "home, candles, a friend sitting", music: "Jon Hopkins / Music for Therapy",
      moodAfter: Mood(8),
      reflection: "It was like being held by the sea. 🌊\n\n\tI want to remember: C:\\ & </>",
      created: time(1_795_200_060_123), updated: time(1_795_282_200_456), status: .complete),
    Session(
      id: SessionID(randomBytes: [UInt8](repeating: 0x5B, count: 16)),
      date: time(1_795_250_000_000), treatment: .other("Bufo 🐸"), dose: nil,
      intention: "to rest", moodBefore: nil, environment: nil, music: nil, moodAfter: nil,
      reflection: nil, created: time(1_795_250_000_000), updated: time(1_795_250_000_000),
      status: .needsReflection),
    Session(
      id: SessionID(randomBytes: [UInt8](repeating: 0x5C, count: 16)),
      date: time(1_795_260_000_000), treatment: .mdma, dose: "120 mg",
      intention: "to forgive", moodBefore: Mood(4), environment: "a clinic, soft light",
      music: nil, moodAfter: Mood(7), reflection: nil, created: time(1_795_260_000_000),
      updated: time(1_795_280_000_000), status: .closed, addedSealed: time(1_795_260_100_000),
      laterSealed: time(1_795_270_000_000),
      conflicts: [
        Conflict(
          field: .environment, text: "the clinic on the hill",
          stamp: SyncStamp(
            time: 1_795_265_000_000, counter: 2, device: [UInt8](repeating: 0x66, count: 16)))
      ]),
  ]
}
