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

  /// version (1; 2 for a new key) ‖ seq (8) ‖ device (16) ‖ previous tag (32) ‖ header hash
  /// (32, zeros for none) ‖ item count (4) ‖ items: kind (1: put, 2: remove) ‖ id (16) ‖ row
  /// hash (32, puts only). Integers big-endian.
  var body: [UInt8] {
    var out: [UInt8] = [newKey ? Self.newKeyVersion : Self.version]
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
    guard let link = bytes.withUnsafeBytes({ raw in try? Self(reading: raw) }) else { return nil }
    self = link
  }

  private struct Malformed: Error {}

  /// The body's fields in order, then, in a new key's link, its key tag: the entry must end
  /// exactly there.
  private init(reading bytes: UnsafeRawBufferPointer) throws {
    var reader = ByteReader(bytes)
    let version = try reader.byte()
    guard version == Self.version || version == Self.newKeyVersion else { throw Malformed() }
    newKey = version == Self.newKeyVersion
    seq = try reader.bigEndian(Int64.self)
    device = Array(try reader.bytes(16))
    previous = Array(try reader.bytes(Self.tagBytes))
    let header = Array(try reader.bytes(Self.tagBytes))
    self.header = header.allSatisfy { $0 == 0 } ? nil : header
    let count = try reader.bigEndian(UInt32.self)
    // Each item is at least 17 bytes, and a key tag follows them in a new key's link: a count
    // beyond what is left is a lie, not a loop.
    let itemBytes = reader.remaining - (newKey ? Self.tagBytes : 0)
    guard itemBytes >= 0, Int(count) <= itemBytes / 17 else { throw Malformed() }
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
    keyTag = newKey ? Array(try reader.bytes(Self.tagBytes)) : nil
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
  /// The change among them that made this device's key, and the tag before it.
  var newKeyAt: Int64?
  var newKeyPrevious: [UInt8]?

  enum LatestItem: Equatable {
    case put(seq: Int64, hash: [UInt8])
    case remove
  }

  /// Checks the links of `state` past `start` against the chain a device holds, and the key
  /// header against the last link that set one (or, with none, the one agreed last, when
  /// `localHeader`, the hash of this device's own, is still that one). Throws
  /// `SyncError.tampered` at the first thing wrong, and `SyncError.keyChanged` at a change
  /// that made a new key, tagged under `key` (SECURITY.md, "A new key"). A device that reads
  /// from the first begins at the last change that made `key`, when one did.
  static func verify(
    _ state: ServerState, from start: SyncSettings, vaultID: [UInt8], key: SecureBytes,
    localHeader: [UInt8]
  ) throws -> VerifiedChain {
    guard state.counter >= start.seq else {
      throw SyncError.tampered(.rolledBack(seen: start.seq, shown: state.counter))
    }
    var links = state.links[...]
    var head = start.head ?? [UInt8](repeating: 0, count: SyncLink.tagBytes)
    var expected = start.seq + 1
    if start.seq > 0 {
      // The link this device last read must still be there, as it was.
      guard let first = links.first, first.seq == start.seq, let known = start.head,
        KeyedHash.same(first.tag, known)
      else { throw SyncError.tampered(.forked(seq: start.seq)) }
      links = links.dropFirst()
    } else if let index = try links.lastIndex(where: {
      try SyncLink(entry: $0.entry)?.madeKey(vaultID: vaultID, key: key) == true
    }), let made = SyncLink(entry: links[index].entry) {
      // Read from the first (a new device): under this key, the chain begins at the change
      // that made the key, whose items are the whole journal. (The links before it are
      // under an earlier key, which this device does not hold.)
      head = made.previous
      expected = links[index].seq
      links = links[index...]
    }
    var verified = VerifiedChain()
    for link in links {
      guard link.seq == expected else { throw SyncError.tampered(.brokenChain(seq: expected)) }
      // The tag first: a link that authenticates but does not parse was written by a newer
      // journal, not changed by the server.
      let tagged = KeyedHash.same(
        try SyncLink.tag(link.entry, vaultID: vaultID, key: key), link.tag)
      if tagged, let version = link.entry.first, version > SyncLink.newKeyVersion {
        throw SyncError.newerData(found: Int(version), supported: Int(SyncLink.newKeyVersion))
      }
      guard let parsed = SyncLink(entry: link.entry), parsed.seq == link.seq,
        parsed.device == link.device, KeyedHash.same(parsed.previous, head)
      else { throw SyncError.tampered(.brokenChain(seq: expected)) }
      if parsed.newKey {
        // Tagged under this device's key: another device, holding this key too, made a new
        // one here. Nothing after it is readable with this key; nothing is applied.
        if tagged { throw SyncError.keyChanged(seq: link.seq) }
        // Else it must be the change that made the key this device holds.
        guard try parsed.madeKey(vaultID: vaultID, key: key) else {
          throw SyncError.tampered(.brokenChain(seq: expected))
        }
        verified.newKeyAt = link.seq
        verified.newKeyPrevious = parsed.previous
      } else if !tagged {
        throw SyncError.tampered(.brokenChain(seq: expected))
      }
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
