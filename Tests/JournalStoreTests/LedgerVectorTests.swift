import Foundation
import JournalCore
import JournalCrypto
import JournalTestSupport
import Testing

@testable import JournalStore

/// The ledger's tag against the known-answer vectors that Scripts/make-crypto-vectors.py
/// wrote with PyNaCl from SECURITY.md alone ("The ledger"): the tag of a vault's rows, and the
/// same tag against those rows with one removed, added, older or changed.
struct LedgerVectorTests {
  static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("../JournalCryptoTests/Vectors").standardized.path

  static let names: [String] = {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
    return names.filter { $0.hasPrefix("ledger-") && $0.hasSuffix(".json") }.sorted()
  }()

  @Test func vectorsArePresent() {
    #expect(Self.names.count == 8)
  }

  @Test(arguments: names) func tag(_ name: String) throws {
    // Given the vector's rows, in the order SECURITY.md gives
    let data = try Data(contentsOf: URL(fileURLWithPath: Self.directory + "/" + name))
    let v = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    let key = try SecureBytes(copying: Hex.bytes(v["ledger_key"] as? String ?? "") ?? [])
    let dataKey = try SecureBytes(copying: Hex.bytes(v["data_key"] as? String ?? "") ?? [])
    let vaultID = Hex.bytes(v["vault_id"] as? String ?? "") ?? []
    let keys = try VaultKeys.restore(vaultID: vaultID, dataKey: dataKey)
    #expect(keys.ledgerKey.withUnsafeBytes { Array($0) } == key.withUnsafeBytes { Array($0) })
    var view = Ledger.View()
    let sessions = (v["sessions"] as? [[String: Any]] ?? []).sorted {
      ($0["status"] as? String ?? "", $0["id"] as? String ?? "")
        < ($1["status"] as? String ?? "", $1["id"] as? String ?? "")
    }
    for s in sessions {
      view.addSession(
        id: try #require(SessionID(s["id"] as? String ?? "")),
        status: try #require(Ledger.View.statusByte(s["status"] as? String ?? "")),
        revision: (s["revision"] as? NSNumber)?.uint64Value ?? 0)
    }
    for t in (v["trash"] as? [[String: Any]] ?? []) {
      view.addTrash(
        id: try #require(SessionID(t["id"] as? String ?? "")),
        status: try #require(Ledger.View.statusByte(t["status"] as? String ?? "")),
        revision: (t["revision"] as? NSNumber)?.uint64Value ?? 0,
        batch: (t["batch"] as? NSNumber)?.int64Value ?? 0,
        deletedAt: (t["deleted_at"] as? NSNumber)?.int64Value ?? 0,
        purgeAfter: (t["purge_after"] as? NSNumber)?.int64Value ?? 0)
    }
    for d in (v["tombstones"] as? [String] ?? []).sorted() {
      view.addTombstone(id: try #require(SessionID(d)))
    }
    // When
    let tag = try view.tag(
      vaultID: vaultID, generation: (v["generation"] as? NSNumber)?.uint64Value ?? 0,
      key: keys.ledgerKey)
    // Then
    let matches = tag == Hex.bytes(v["tag"] as? String ?? "")
    #expect(matches == (v["expect"] as? String == "match"), "\(name)")
  }
}
