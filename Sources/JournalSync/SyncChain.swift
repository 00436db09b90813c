import JournalCore
import JournalCrypto
import JournalStorage

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
  static let tagBytes = 32

  let seq: Int64
  let device: [UInt8]
  let previous: [UInt8]
  /// The hash of the key header this change set; nil when it left it as it was.
  let header: [UInt8]?
  let items: [Item]

  /// version (1) ‖ seq (8) ‖ device (16) ‖ previous tag (32) ‖ header hash (32, zeros for
  /// none) ‖ item count (4) ‖ items: kind (1: put, 2: remove) ‖ id (16) ‖ row hash (32, puts
  /// only). Integers big-endian.
  var entry: [UInt8] {
    var out: [UInt8] = [Self.version]
    out.append(bigEndian: seq)
    out += device
    out += previous
    out += header ?? [UInt8](repeating: 0, count: Self.tagBytes)
    out.append(bigEndian: UInt32(items.count))
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

  init(seq: Int64, device: [UInt8], previous: [UInt8], header: [UInt8]?, items: [Item]) {
    self.seq = seq
    self.device = device
    self.previous = previous
    self.header = header
    self.items = items
  }

  /// A link from its entry; nil when it does not follow the layout.
  init?(entry bytes: [UInt8]) {
    guard let link = bytes.withUnsafeBytes({ raw in try? Self(reading: raw) }) else { return nil }
    self = link
  }

  private struct Malformed: Error {}

  private init(reading bytes: UnsafeRawBufferPointer) throws {
    var reader = ByteReader(bytes)
    guard try reader.byte() == Self.version else { throw Malformed() }
    seq = try reader.bigEndian(Int64.self)
    device = Array(try reader.bytes(16))
    previous = Array(try reader.bytes(Self.tagBytes))
    let header = Array(try reader.bytes(Self.tagBytes))
    self.header = header.allSatisfy { $0 == 0 } ? nil : header
    let count = try reader.bigEndian(UInt32.self)
    // Each item is at least 17 bytes: a count beyond what is left is a lie, not a loop.
    guard Int(count) <= reader.remaining / 17 else { throw Malformed() }
    var items: [Item] = []
    for _ in 0..<count {
      let kind = try reader.byte()
      guard let id = SessionID(exactly: try reader.bytes(16)) else { throw Malformed() }
      switch kind {
      case 1: items.append(.put(id, hash: Array(try reader.bytes(32))))
      case 2: items.append(.remove(id))
      default: throw Malformed()
      }
    }
    guard reader.isAtEnd else { throw Malformed() }
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

  /// The hash a link holds of a sealed row or of the key header.
  static func hash(_ bytes: [UInt8]) -> [UInt8] { KeyedHash.unkeyed(bytes) }
}

/// The key header as the sync server holds it: version (1) ‖ vault id (16) ‖ Argon2id ops
/// and memory limits (8 each, big-endian) ‖ salt (16) ‖ wrapped data key (88).
enum ServerHeader {
  static func encode(_ header: KeyHeader) -> [UInt8] {
    var out: [UInt8] = [1]
    out += header.vaultID
    out.append(bigEndian: header.limits.opsLimit)
    out.append(bigEndian: header.limits.memLimit)
    out += header.salt
    out += header.wrappedKey
    return out
  }

  static func decode(_ bytes: [UInt8]) -> KeyHeader? {
    let length = 1 + KeyHeader.vaultIDBytes + 16 + 16 + KeyHeader.wrappedKeyBytes
    guard bytes.count == length, bytes[0] == 1 else { return nil }
    let header = bytes.withUnsafeBytes { raw -> KeyHeader? in
      var reader = ByteReader(raw, from: 1)
      guard let vaultID = try? reader.bytes(KeyHeader.vaultIDBytes),
        let opsLimit = try? reader.bigEndian(UInt64.self),
        let memLimit = try? reader.bigEndian(UInt64.self), let salt = try? reader.bytes(16)
      else { return nil }
      return KeyHeader(
        vaultID: Array(vaultID), limits: KDFLimits(opsLimit: opsLimit, memLimit: memLimit),
        salt: Array(salt), wrappedKey: Array(reader.rest()))
    }
    return header?.isWellFormed == true ? header : nil
  }
}

/// What a pull's chain of links was checked to hold (SECURITY.md, "The chain of changes").
struct VerifiedChain {
  /// The tag of the last link read (nil when there was none to read).
  var head: [UInt8]?
  /// The hash of the key header the last link that set one wrote.
  var header: [UInt8]?
  /// For every session a new link touched, what the last of them did.
  var latest: [SessionID: LatestItem] = [:]

  enum LatestItem: Equatable {
    case put(seq: Int64, hash: [UInt8])
    case remove
  }

  /// Checks the links of `state` past `start` against the chain a device holds, and the key
  /// header against the last link that set one (or, with none, the one agreed last, when
  /// `localHeader`, the hash of this device's own, is still that one). Throws
  /// `SyncError.tampered` at the first thing wrong.
  static func verify(
    _ state: ServerState, from start: SyncSettings, vaultID: [UInt8], key: SecureBytes,
    localHeader: [UInt8]
  ) throws -> VerifiedChain {
    guard state.counter >= start.seq else {
      throw SyncError.tampered(.rolledBack(seen: start.seq, shown: state.counter))
    }
    var links = state.links[...]
    var head = start.head ?? [UInt8](repeating: 0, count: SyncLink.tagBytes)
    if start.seq > 0 {
      // The link this device last read must still be there, as it was.
      guard let first = links.first, first.seq == start.seq, let known = start.head,
        KeyedHash.same(first.tag, known)
      else { throw SyncError.tampered(.forked(seq: start.seq)) }
      links = links.dropFirst()
    }
    var verified = VerifiedChain()
    var expected = start.seq + 1
    for link in links {
      // The tag first: a link that authenticates but does not parse was written by a newer
      // journal, not changed by the server.
      guard link.seq == expected,
        KeyedHash.same(try SyncLink.tag(link.entry, vaultID: vaultID, key: key), link.tag)
      else { throw SyncError.tampered(.brokenChain(seq: expected)) }
      if let version = link.entry.first, version > SyncLink.version {
        throw SyncError.newerData(found: Int(version), supported: Int(SyncLink.version))
      }
      guard let parsed = SyncLink(entry: link.entry), parsed.seq == link.seq,
        parsed.device == link.device, KeyedHash.same(parsed.previous, head)
      else { throw SyncError.tampered(.brokenChain(seq: expected)) }
      head = link.tag
      verified.head = link.tag
      if let header = parsed.header { verified.header = header }
      for item in parsed.items {
        switch item {
        case .put(let id, let hash): verified.latest[id] = .put(seq: link.seq, hash: hash)
        case .remove(let id): verified.latest[id] = .remove
        }
      }
      expected += 1
    }
    guard expected == state.counter + 1 else {
      throw SyncError.tampered(.brokenChain(seq: expected))
    }
    // The header is the one the last link that set it names; with none among the links read,
    // the one this device agreed last. (Not when this device's passphrase changed since: it
    // sends its own header next, and may have read another's without taking it. A device set
    // up again has agreed none yet.)
    let agreed = localHeader == start.headerHash ? start.headerHash : nil
    if let header = verified.header ?? agreed,
      !KeyedHash.same(SyncLink.hash(state.header), header)
    {
      throw SyncError.tampered(.changedHeader)
    }
    return verified
  }

  /// Checks one row against the chain: the last change to its session wrote it, at its own
  /// change number, with this hash. Its id.
  func check(_ row: ServerRow) throws -> SessionID {
    guard let id = SessionID(exactly: row.id) else {
      throw SyncError.tampered(.changedRow(id: "?"))
    }
    guard case .put(let seq, let hash)? = latest[id], seq == row.seq,
      KeyedHash.same(SyncLink.hash(row.body), hash)
    else { throw SyncError.tampered(.changedRow(id: id.short)) }
    return id
  }
}
