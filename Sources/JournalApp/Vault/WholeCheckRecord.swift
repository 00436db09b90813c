import Foundation
import JournalCore
import JournalCrypto
import JournalStore
import JournalSystem

/// The last whole check of a vault (`WholeCheck`: the stamp checked, the sessions an undo had
/// restored, the sums of each status's session entries), kept between commands in journal's
/// private runtime directory (memory, never a disk) under a MAC with the ledger's key. A
/// listing of one status at the same stamp (`list --needs-reflection`) checks the tree's root
/// and binds the rows it reads to these sums, rather than reading every session's entry
/// (SECURITY.md, "The ledger"; DESIGN.md).
///
/// Only ever a shortcut: a record missing, damaged, planted, of another stamp or of another
/// vault is not used, and the listing checks the whole vault as before. It says nothing the
/// vault does not (ids, a count of each status, the stamp) but sums under a secret key.
///
/// Layout: "JRNLSUMS" ‖ 1 ‖ vault id (16) ‖ generation (8, little-endian) ‖ tag (32) ‖
/// the sessions' entries complete (24) ‖ waiting (24) ‖ undone count (4) ‖ undone ids (16
/// each) ‖ BLAKE2b-256 keyed with the ledger key over all before it (32).
struct WholeCheckRecord {
  static let magic = Array("JRNLSUMS".utf8) + [1]
  /// Past this many sessions restored by an undo since the stamp, nothing is kept.
  static let undoneAtMost = 4096
  static let fixedBytes = 9 + 16 + 8 + 32 + 2 * MultisetSum.storedBytes + 4 + KeyedHash.bytes
  static let largestBytes = fixedBytes + undoneAtMost * 16

  let path: String
  let vaultID: [UInt8]
  let key: SecureBytes

  /// The record of the vault with `keys`; nil where there is no private runtime directory.
  init?(environment: [String: String], keys: VaultKeys) {
    guard let directory = try? RuntimeDirectory.resolve(environment: environment) else {
      return nil
    }
    path = directory + "/checked-" + VaultWitness.hex(keys.vaultID)
    vaultID = keys.vaultID
    key = keys.ledgerKey
  }

  /// The check kept; nil when there is none this vault's key made.
  func read() -> WholeCheck? {
    let fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var info = stat()
    guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_uid == getuid(),
      info.st_mode & 0o077 == 0, info.st_size >= Self.fixedBytes,
      info.st_size <= Self.largestBytes
    else { return nil }
    var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
    let count = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
    guard count == bytes.count else { return nil }
    return parse(bytes)
  }

  func parse(_ bytes: [UInt8]) -> WholeCheck? {
    let body = bytes.count - KeyedHash.bytes
    guard bytes.count >= Self.fixedBytes, Array(bytes[0..<9]) == Self.magic,
      Array(bytes[9..<25]) == vaultID, let made = try? mac(Array(bytes[0..<body])),
      KeyedHash.same(made, Array(bytes[body...])),
      let generation = VaultWitness.number(UInt64.self, in: bytes, at: 25),
      let undone = VaultWitness.number(UInt32.self, in: bytes, at: Self.fixedBytes - 36),
      Int(undone) <= Self.undoneAtMost,
      bytes.count == Self.fixedBytes + Int(undone) * 16
    else { return nil }
    let sums = 65
    var ids: [SessionID] = []
    for index in 0..<Int(undone) {
      let at = Self.fixedBytes - KeyedHash.bytes + index * 16
      guard let id = SessionID(exactly: bytes[at..<at + 16]) else { return nil }
      ids.append(id)
    }
    return WholeCheck(
      generation: generation, tag: Array(bytes[33..<65]), undone: ids,
      complete: Array(bytes[sums..<sums + MultisetSum.storedBytes]),
      waiting: Array(
        bytes[sums + MultisetSum.storedBytes..<sums + 2 * MultisetSum.storedBytes]))
  }

  /// Keeps `check` (atomically: a new file renamed over the old one); best effort, as a
  /// record not kept only costs the next listing a whole check.
  func record(_ check: WholeCheck) {
    guard check.undone.count <= Self.undoneAtMost, check.tag.count == 32 else { return }
    var bytes = Self.magic + vaultID
    bytes.append(littleEndian: check.generation)
    bytes += check.tag + check.complete + check.waiting
    bytes.append(littleEndian: UInt32(check.undone.count))
    for id in check.undone { bytes += id.bytes }
    guard let made = try? mac(bytes) else { return }
    try? VaultWitness.replace(path, with: bytes + made)
  }

  private func mac(_ bytes: [UInt8]) throws -> [UInt8] {
    let hash = try KeyedHash(key: key)
    hash.update(bytes)
    return hash.finish()
  }
}
