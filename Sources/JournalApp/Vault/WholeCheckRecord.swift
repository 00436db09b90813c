import Foundation
import JournalCore
import JournalCrypto
import JournalStore
import JournalSystem

/// The last whole check of a vault (`WholeCheck`: the stamp checked, the sessions an undo had
/// restored, the sums of each status's session entries, the newest sessions with their
/// revisions), kept between commands in journal's private runtime directory (memory, never a
/// disk), sealed under a key derived from the ledger's. A listing of one status at the same
/// stamp (`list --needs-reflection`) checks the tree's root and binds the rows it reads to
/// these sums, and `list -n` reads the newest it names, rather than reading every session
/// (SECURITY.md, "The last whole check, kept in memory"; DESIGN.md).
///
/// Only ever a shortcut: a record missing, damaged, planted, of another stamp or of another
/// vault is not used, and the listing checks the whole vault as before.
///
/// Layout: "JRNLSUMS" ‖ 2 ‖ vault id (16) ‖ SecretBox(the body), the body: vault id (16) ‖
/// generation (8, little-endian) ‖ tag (32) ‖ the sessions' entries complete (24) ‖ waiting
/// (24) ‖ undone count (4) ‖ undone ids (16 each) ‖ newest count (4) ‖ newest (id 16 ‖
/// revision 8 ‖ date 8, the bits of its seconds since 2001 as a double, both little-endian,
/// each). A record of version 1 (no dates) is not read: the next listing checks the whole
/// vault and keeps a record of this version.
struct WholeCheckRecord {
  static let magic = Array("JRNLSUMS".utf8) + [2]
  /// Past this many sessions restored by an undo since the stamp, nothing is kept.
  static let undoneAtMost = 4096
  static let fixedBody = 16 + 8 + 32 + 2 * MultisetSum.storedBytes + 4 + 4
  static let largestBytes =
    25 + SecretBox.overhead + fixedBody + undoneAtMost * 16 + WholeCheck.newestAtMost * 32

  let path: String
  let vaultID: [UInt8]
  /// The record's own key: BLAKE2b-256 keyed with the ledger key over "JRNLSUMS record key".
  let key: SecureBytes
  let random: any RandomSource

  /// The record of the vault file at `vault`, with `keys`; nil where there is no private
  /// runtime directory (or its key could not be made). Each file has its own, as each has
  /// its own record of its state (`VaultWitness.place`): two copies of one vault can come to
  /// the same stamp with different sessions in them.
  init?(vault: String, environment: [String: String], keys: VaultKeys, random: any RandomSource) {
    guard let directory = try? RuntimeDirectory.resolve(environment: environment),
      let key = try? Self.key(keys.ledgerKey)
    else { return nil }
    path =
      directory + "/checked-" + Hex.lowercase(keys.vaultID) + "-" + VaultWitness.place(vault: vault)
    vaultID = keys.vaultID
    self.key = key
    self.random = random
  }

  /// The check kept; nil when there is none this vault's key sealed.
  func read() -> WholeCheck? {
    // Not blocked by a FIFO planted in its place (one that is not a file is not read).
    let fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var info = stat()
    guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_uid == getuid(),
      info.st_mode & 0o077 == 0, info.st_size <= Self.largestBytes
    else { return nil }
    var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
    let count = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
    guard count == bytes.count else { return nil }
    return parse(bytes)
  }

  func parse(_ bytes: [UInt8]) -> WholeCheck? {
    guard bytes.count <= Self.largestBytes, bytes.count >= 25, Array(bytes[0..<9]) == Self.magic,
      Array(bytes[9..<25]) == vaultID,
      let size = SecretBox.plaintextCount(of: bytes[25...]), size >= Self.fixedBody
    else { return nil }
    var body = [UInt8](repeating: 0, count: size)
    do {
      try bytes[25...].withUnsafeBytes { sealed in
        try body.withUnsafeMutableBytes { try SecretBox.open(sealed, key: key, into: $0) }
      }
    } catch {
      return nil
    }
    return body.withUnsafeBytes { raw -> WholeCheck? in
      var reader = ByteReader(raw)
      func id() throws -> SessionID {
        guard let id = SessionID(exactly: try reader.bytes(16)) else { throw ByteReader.Short() }
        return id
      }
      do {
        guard Array(try reader.bytes(16)) == vaultID else { return nil }
        let generation = try reader.littleEndian(UInt64.self)
        let tag = Array(try reader.bytes(32))
        let complete = Array(try reader.bytes(MultisetSum.storedBytes))
        let waiting = Array(try reader.bytes(MultisetSum.storedBytes))
        let undoneCount = Int(try reader.littleEndian(UInt32.self))
        guard undoneCount <= Self.undoneAtMost else { return nil }
        let undone = try (0..<undoneCount).map { _ in try id() }
        let newestCount = Int(try reader.littleEndian(UInt32.self))
        guard newestCount <= WholeCheck.newestAtMost else { return nil }
        let newest = try (0..<newestCount).map { _ in
          let id = try id()
          guard let revision = Int64(exactly: try reader.littleEndian(UInt64.self)) else {
            throw ByteReader.Short()
          }
          let seconds = Double(bitPattern: try reader.littleEndian(UInt64.self))
          guard seconds.isFinite else { throw ByteReader.Short() }
          return WholeCheck.Newest(
            id: id, revision: revision, date: Date(timeIntervalSinceReferenceDate: seconds))
        }
        guard reader.isAtEnd else { return nil }
        return WholeCheck(
          generation: generation, tag: tag, undone: undone, complete: complete,
          waiting: waiting, newest: newest)
      } catch {
        return nil
      }
    }
  }

  /// Keeps `check` (atomically: a new file renamed over the old one); best effort, as a
  /// record not kept only costs the next listing a whole check.
  func record(_ check: WholeCheck) {
    guard check.undone.count <= Self.undoneAtMost, check.tag.count == 32,
      check.newest.count <= WholeCheck.newestAtMost
    else { return }
    var body = vaultID
    body.append(littleEndian: check.generation)
    body += check.tag + check.complete + check.waiting
    body.append(littleEndian: UInt32(check.undone.count))
    for id in check.undone { body += id.bytes }
    body.append(littleEndian: UInt32(check.newest.count))
    for newest in check.newest {
      body += newest.id.bytes
      body.append(littleEndian: UInt64(bitPattern: newest.revision))
      body.append(littleEndian: newest.date.timeIntervalSinceReferenceDate.bitPattern)
    }
    let sealed = body.withUnsafeBytes { SecretBox.seal($0, key: key, random: random) }
    try? VaultWitness.replace(path, with: Self.magic + vaultID + sealed)
  }

  private static func key(_ ledgerKey: SecureBytes) throws -> SecureBytes {
    let hash = try KeyedHash(key: ledgerKey)
    hash.update(Array("JRNLSUMS record key".utf8))
    var digest = hash.finish()
    defer { for index in digest.indices { digest[index] = 0 } }
    return try SecureBytes(copying: digest)
  }
}
