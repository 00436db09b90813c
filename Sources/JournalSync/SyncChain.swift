import JournalCore
import JournalCrypto

/// One link of a vault's chain of changes on the sync server (SECURITY.md, "Sync"): which
/// sessions a push wrote (with a hash of each sealed row) or removed, whether it changed the
/// key header, and the tag of the link before it; authenticated under the sync key, which the
/// server never has. A device that reads the chain from where it last stopped sees any
/// change the server altered, dropped, replayed, reordered or rolled back.
struct SyncLink: Equatable {
  enum Item: Equatable {
    case put(SessionID, hash: [UInt8])
    case remove(SessionID)
  }

  static let version: UInt8 = 1
  /// The layout of a link that changes the data key (`passwd --new-key`): version 1's, then
  /// a key tag (32) under the new sync key. Its own tag is under the old one.
  static let newKeyVersion: UInt8 = 2
  static let tagBytes = 32

  let seq: Int64
  let device: [UInt8]
  let previous: [UInt8]
  /// The hash of the key header this change set; nil when it left it as it was.
  let header: [UInt8]?
  let items: [Item]
  /// Whether this change made a new data key: its items are then every session the journal
  /// holds, sealed under the new key, and the links after it are tagged under the new key.
  let newKey: Bool
  /// A new key's link: BLAKE2b-256 keyed with the new sync key over "K" ‖ vault id ‖ `body`.
  var keyTag: [UInt8]?

  /// The entry: `body`, then the key tag of a new key's link.
  var entry: [UInt8] { body + (keyTag ?? []) }

  /// version (1; 2 for a new key) ‖ seq (8) ‖ device (16) ‖ previous tag (32) ‖ header hash (32, zeros for
  /// none) ‖ item count (4) ‖ items: kind (1: put, 2: remove) ‖ id (16) ‖ row hash (32, puts
  /// only). Integers big-endian.
  var body: [UInt8] {
    var out: [UInt8] = [newKey ? Self.newKeyVersion : Self.version]
    withUnsafeBytes(of: seq.bigEndian) { out += $0 }
    out += device
    out += previous
    out += header ?? [UInt8](repeating: 0, count: Self.tagBytes)
    withUnsafeBytes(of: UInt32(items.count).bigEndian) { out += $0 }
    for item in items {
      switch item {
      case .put(let id, let hash):
        out.append(1)
        out += id.bytes
        out += hash
      case .remove(let id):
        out.append(2)
        out += id.bytes
      }
    }
    return out
  }

  init(
    seq: Int64, device: [UInt8], previous: [UInt8], header: [UInt8]?, items: [Item],
    newKey: Bool = false
  ) {
    self.newKey = newKey
    self.seq = seq
    self.device = device
    self.previous = previous
    self.header = header
    self.items = items
  }

  /// A link from its entry; nil when it does not follow the layout.
  init?(entry bytes: [UInt8]) {
    let fixed = 1 + 8 + 16 + 32 + 32 + 4
    guard bytes.count >= fixed, bytes[0] == Self.version || bytes[0] == Self.newKeyVersion
    else { return nil }
    newKey = bytes[0] == Self.newKeyVersion
    let end = bytes.count - (newKey ? Self.tagBytes : 0)
    guard end >= fixed else { return nil }
    keyTag = newKey ? Array(bytes[end...]) : nil
    seq = Int64(bitPattern: bytes[1..<9].reduce(0) { $0 << 8 | UInt64($1) })
    device = Array(bytes[9..<25])
    previous = Array(bytes[25..<57])
    let header = Array(bytes[57..<89])
    self.header = header.allSatisfy { $0 == 0 } ? nil : header
    let count = bytes[89..<93].reduce(0) { $0 << 8 | Int($1) }
    var items: [Item] = []
    var offset = fixed
    for _ in 0..<count {
      guard offset + 17 <= end,
        let id = SessionID(exactly: bytes[(offset + 1)..<(offset + 17)])
      else { return nil }
      switch bytes[offset] {
      case 1:
        guard offset + 17 + 32 <= end else { return nil }
        items.append(.put(id, hash: Array(bytes[(offset + 17)..<(offset + 49)])))
        offset += 49
      case 2:
        items.append(.remove(id))
        offset += 17
      default: return nil
      }
    }
    guard offset == end else { return nil }
    self.items = items
  }

  /// BLAKE2b-256 keyed with the sync key over "L" ‖ vault id ‖ entry.
  static func tag(_ entry: [UInt8], vaultID: [UInt8], key: SecureBytes) throws -> [UInt8] {
    let hash = try KeyedHash(key: key)
    hash.update([UInt8(ascii: "L")])
    hash.update(vaultID)
    hash.update(entry)
    return hash.finish()
  }

  /// The key tag of a new key's link: BLAKE2b-256 keyed with the new sync key over "K" ‖
  /// vault id ‖ body. A device that holds only the new key trusts the link by it.
  static func keyTag(_ body: [UInt8], vaultID: [UInt8], key: SecureBytes) throws -> [UInt8] {
    let hash = try KeyedHash(key: key)
    hash.update([UInt8(ascii: "K")])
    hash.update(vaultID)
    hash.update(body)
    return hash.finish()
  }

  /// Whether this link makes a new key and its key tag holds under `key`.
  func madeKey(vaultID: [UInt8], key: SecureBytes) throws -> Bool {
    guard newKey, let keyTag else { return false }
    return KeyedHash.same(try Self.keyTag(body, vaultID: vaultID, key: key), keyTag)
  }

  /// The hash a link holds of a sealed row or of the key header.
  static func hash(_ bytes: [UInt8]) -> [UInt8] { KeyedHash.unkeyed(bytes) }
}

/// The key header as the sync server holds it: version (1) ‖ vault id (16) ‖ Argon2id ops
/// and memory limits (8 each, big-endian) ‖ salt (16) ‖ wrapped data key (88).
enum ServerHeader {
  static func encode(_ header: KeyHeader) -> [UInt8] {
    var out: [UInt8] = [1]
    out += header.vaultID
    withUnsafeBytes(of: header.limits.opsLimit.bigEndian) { out += $0 }
    withUnsafeBytes(of: header.limits.memLimit.bigEndian) { out += $0 }
    out += header.salt
    out += header.wrappedKey
    return out
  }

  static func decode(_ bytes: [UInt8]) -> KeyHeader? {
    let length = 1 + KeyHeader.vaultIDBytes + 16 + 16 + KeyHeader.wrappedKeyBytes
    guard bytes.count == length, bytes[0] == 1 else { return nil }
    let number = { (range: Range<Int>) in bytes[range].reduce(UInt64(0)) { $0 << 8 | UInt64($1) } }
    let header = KeyHeader(
      vaultID: Array(bytes[1..<17]),
      limits: KDFLimits(opsLimit: number(17..<25), memLimit: number(25..<33)),
      salt: Array(bytes[33..<49]), wrappedKey: Array(bytes[49...]))
    return header.isWellFormed ? header : nil
  }
}
