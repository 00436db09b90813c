import Foundation
import JournalCore
import JournalCrypto
import JournalStorage
import JournalTestSupport
import Testing

@testable import JournalSync

/// What a sync server holds of a vault (SECURITY.md, "Sync": the key header, the sealed rows
/// and the chain of links), committed under Tests/Fixtures/sync and checked by today's code
/// without a server: the chain verifies from the start and from the middle, every row is
/// the last write of its session and opens to exactly the session and stamps it was written
/// with, and a byte changed anywhere is refused.
///
/// Written once (`writeFixtures`, JOURNAL_WRITE_FIXTURES=1, which writes only what is
/// missing) by today's encoders, as a push writes them, under the fixtures' key
/// (Tests/Fixtures/key-header.json), with nonces from a seeded random source: today's
/// encoders must make the same bytes again, so a change to a layout that keeps its version
/// byte fails here. Fixture N holds rows of layout N (2 since vault format 14: tags and
/// notes) and links of layout 1; a key change's link (layout 2, `passwd --new-key`) has its
/// own, sync/newkey-v2.json, over rows of layout 1.
struct SyncFixtureTests {
  /// The server's state: its counter, key header and links, and its rows.
  struct Chain: Equatable {
    var state: ServerState
    var rows: [ServerRow]
  }

  static let deviceA = [UInt8](repeating: 0xA1, count: 16)
  static let deviceB = [UInt8](repeating: 0xB2, count: 16)

  /// Each field of row layout `layout` stamped at the session's last edit by `device`, one
  /// counter per field.
  static func stamps(_ session: Session, by device: [UInt8], layout: UInt8) -> SyncStamps {
    let time = UInt64((session.updated.timeIntervalSince1970 * 1000).rounded())
    var stamps: SyncStamps = [:]
    let fields = layout == 1 ? SyncField.layoutOne : SyncField.allCases
    for (index, field) in fields.enumerated() {
      stamps[field] = SyncStamp(time: time, counter: UInt32(index), device: device)
    }
    return stamps
  }

  /// The fixture's sessions in rows of `layout`: from layout 2 the complete one has tags and
  /// notes (one corrected, one deleted).
  static func sessions(layout: UInt8) -> [Session] {
    var sessions = Fixtures.sessions
    guard layout >= 2 else { return sessions }
    do {
      var next: UInt64 = 0x51
      func random() -> UInt64 {
        next += 1
        return next
      }
      let at = sessions[0].updated
      try sessions[0].retag(adding: ["ceremony", "integration"], removing: [], now: at)
      try sessions[0].addNote(
        Note(text: "the dream came back", mood: Mood(6), now: at + 60, random: random),
        now: at + 60)
      try sessions[0].addNote(
        Note(text: "not this", mood: nil, now: at + 120, random: random), now: at + 120)
      _ = try sessions[0].editNote(1, text: nil, mood: Mood(7), version: 0x99, now: at + 180)
      _ = try sessions[0].deleteNote(2, purgeAfter: at + 200, version: 0x9A, now: at + 190)
    } catch {
      fatalError("fixture notes: \(error)")
    }
    return sessions
  }

  /// The versions the rows left on the server hold: the complete session as device A wrote
  /// it, the waiting one as device B wrote it again.
  static func expected(layout: UInt8) -> [SessionID: SyncMerge.Version] {
    let sessions = sessions(layout: layout)
    let (complete, waiting) = (sessions[0], sessions[1])
    func stamps(_ session: Session, by device: [UInt8]) -> SyncStamps {
      Self.stamps(session, by: device, layout: layout)
    }
    return [
      complete.id: SyncMerge.Version(session: complete, stamps: stamps(complete, by: deviceA)),
      waiting.id: SyncMerge.Version(session: waiting, stamps: stamps(waiting, by: deviceB)),
    ]
  }

  /// The chain as pushes write it, rows in `layout`: device A sets the header and writes the
  /// three sessions (1), device B writes the waiting one again (2), device A removes the
  /// closed one (3).
  static func chain(layout: UInt8) throws -> Chain {
    let keys = try Fixtures.keys()
    let header = ServerHeader.encode(try Fixtures.keyHeader())
    let cipher = try RecordCipher(
      key: keys.syncKey, random: SeededRandom(seed: layout == 1 ? 2034 : 2036))
    let sessions = sessions(layout: layout)
    func stamps(_ session: Session, by device: [UInt8]) -> SyncStamps {
      Self.stamps(session, by: device, layout: layout)
    }
    var rows: [SessionID: ServerRow] = [:]
    var links: [ServerLink] = []
    func push(
      _ device: [UInt8], header: [UInt8]?, writes: [SyncMerge.Version], removes: [SessionID]
    ) throws {
      let seq = Int64(links.count + 1)
      var items: [SyncLink.Item] = []
      for version in writes {
        let id = version.session.id
        let body = try cipher.seal(
          SyncRowCodec.encode(version, layout: layout), id: id.bytes, column: .syncRow,
          revision: UInt64(seq))
        rows[id] = ServerRow(id: id.bytes, seq: seq, body: body)
        items.append(.put(id, hash: SyncLink.hash(body)))
      }
      for id in removes {
        rows[id] = nil
        items.append(.remove(id))
      }
      let link = SyncLink(
        seq: seq, device: device,
        previous: links.last?.tag ?? [UInt8](repeating: 0, count: SyncLink.tagBytes),
        header: header.map(SyncLink.hash), items: items)
      let tag = try SyncLink.tag(link.entry, vaultID: keys.vaultID, key: keys.syncKey)
      links.append(ServerLink(seq: seq, device: device, entry: link.entry, tag: tag))
    }
    try push(
      deviceA, header: header,
      writes: sessions.map { .init(session: $0, stamps: stamps($0, by: deviceA)) }, removes: [])
    try push(
      deviceB, header: nil,
      writes: [.init(session: sessions[1], stamps: stamps(sessions[1], by: deviceB))], removes: [])
    try push(deviceA, header: nil, writes: [], removes: [sessions[2].id])
    return Chain(
      state: ServerState(counter: Int64(links.count), header: header, links: links),
      rows: rows.values.sorted { $0.id.lexicographicallyPrecedes($1.id) })
  }

  // MARK: - The fixture file

  /// The chain as the fixture file holds it: JSON, bytes in hex.
  static func json(_ chain: Chain) throws -> [UInt8] {
    let hex: ([UInt8]) -> String = Hex.lowercase
    let object: [String: Any] = [
      "counter": chain.state.counter, "header": hex(chain.state.header),
      "links": chain.state.links.map {
        ["seq": $0.seq, "device": hex($0.device), "entry": hex($0.entry), "tag": hex($0.tag)]
      },
      "rows": chain.rows.map { ["id": hex($0.id), "seq": $0.seq, "body": hex($0.body)] },
    ]
    return Array(
      try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys]))
  }

  static func load(_ name: String) throws -> Chain {
    let bytes = try #require(Fixtures.bytes(name), "no fixture \(name)")
    let object = try #require(
      try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
    func hex(_ value: Any?) -> [UInt8] { Hex.bytes(value as? String ?? "") ?? [] }
    func number(_ value: Any?) -> Int64 { (value as? NSNumber)?.int64Value ?? -1 }
    let links = (object["links"] as? [[String: Any]] ?? []).map {
      ServerLink(
        seq: number($0["seq"]), device: hex($0["device"]), entry: hex($0["entry"]),
        tag: hex($0["tag"]))
    }
    let rows = (object["rows"] as? [[String: Any]] ?? []).map {
      ServerRow(id: hex($0["id"]), seq: number($0["seq"]), body: hex($0["body"]))
    }
    return Chain(
      state: ServerState(
        counter: number(object["counter"]), header: hex(object["header"]), links: links),
      rows: rows)
  }

  static func verify(_ state: ServerState, from start: SyncSettings) throws -> VerifiedChain {
    let keys = try Fixtures.keys()
    return try VerifiedChain.verify(
      state, from: start, vaultID: keys.vaultID, key: keys.syncKey,
      localHeader: SyncLink.hash(ServerHeader.encode(try Fixtures.keyHeader())))
  }

  // MARK: - Tests

  /// Every version of the links and rows has a fixture that today's chain check accepts
  /// from the start and from the middle, whose rows open to what was written, and that
  /// today's encoders write again byte for byte.
  @Test(arguments: 1...Int(max(SyncLink.version, SyncRowCodec.version)))
  func chainOfEveryVersion(version: Int) throws {
    // Given
    let chain = try Self.load("sync/chain-v\(version).json")
    let keys = try Fixtures.keys()
    #expect(chain.state.links.allSatisfy { $0.entry.first == SyncLink.version })
    #expect(ServerHeader.decode(chain.state.header) == (try Fixtures.keyHeader()))

    // When: a new device reads it all.
    let verified = try Self.verify(
      chain.state, from: SyncSettings(server: "fixture", device: Self.deviceB))

    // Then
    #expect(verified.head == chain.state.links.last?.tag)
    #expect(verified.header == SyncLink.hash(chain.state.header))
    #expect(verified.latest[Fixtures.sessions[2].id] == .remove)
    let cipher = try RecordCipher(key: keys.syncKey, random: SeededRandom(seed: 1))
    var opened: [SessionID: SyncMerge.Version] = [:]
    for row in chain.rows {
      let id = try verified.check(row)
      let (decoded, plain) = try cipher.open(
        row.body, id: row.id, column: .syncRow, revision: UInt64(row.seq)
      ) { plain in (try SyncRowCodec.decode(plain, id: id), Array(plain)) }
      #expect(plain.first == UInt8(version))
      #expect(plain == SyncRowCodec.encode(decoded, layout: UInt8(version)))
      opened[id] = decoded
    }
    #expect(opened == Self.expected(layout: UInt8(version)))

    // And a device that read up to the first link goes on from there.
    var start = SyncSettings(server: "fixture", device: Self.deviceA)
    start.seq = 1
    start.head = chain.state.links.first?.tag
    start.headerHash = SyncLink.hash(chain.state.header)
    #expect(try Self.verify(chain.state, from: start).head == chain.state.links.last?.tag)

    // And today's encoders write the same bytes.
    #expect(
      try Self.chain(layout: UInt8(version)) == chain,
      "the sync layouts are no longer written as they were")
  }

  /// A byte changed in any link, tag, row or the header, a link dropped, or the counter set
  /// back is refused.
  @Test(arguments: 1...Int(max(SyncLink.version, SyncRowCodec.version)))
  func changedBytesAreRefused(version: Int) throws {
    let chain = try Self.load("sync/chain-v\(version).json")
    let start = SyncSettings(server: "fixture", device: Self.deviceB)
    let state = chain.state
    func with(links: [ServerLink], counter: Int64? = nil, header: [UInt8]? = nil) -> ServerState {
      ServerState(
        counter: counter ?? state.counter, header: header ?? state.header, links: links)
    }
    for (index, link) in state.links.enumerated() {
      for offset in [0, 5, 20, 40, 70, link.entry.count - 1] {
        var entry = link.entry
        entry[offset] ^= 0x01
        var links = state.links
        links[index] = ServerLink(seq: link.seq, device: link.device, entry: entry, tag: link.tag)
        #expect(throws: SyncError.self) { try Self.verify(with(links: links), from: start) }
      }
      var tag = link.tag
      tag[7] ^= 0x80
      var links = state.links
      links[index] = ServerLink(seq: link.seq, device: link.device, entry: link.entry, tag: tag)
      #expect(throws: SyncError.self) { try Self.verify(with(links: links), from: start) }
      var dropped = state.links
      dropped.remove(at: index)
      #expect(throws: SyncError.self) { try Self.verify(with(links: dropped), from: start) }
    }
    var header = state.header
    header[40] ^= 0x01
    #expect(throws: SyncError.tampered(.changedHeader)) {
      try Self.verify(with(links: state.links, header: header), from: start)
    }
    var ahead = start
    ahead.seq = state.counter + 1
    #expect(throws: SyncError.self) { try Self.verify(state, from: ahead) }

    let verified = try Self.verify(state, from: start)
    for row in chain.rows {
      var body = row.body
      body[body.count / 2] ^= 0x01
      #expect(throws: SyncError.self) {
        try verified.check(ServerRow(id: row.id, seq: row.seq, body: body))
      }
      #expect(throws: SyncError.self) {
        try verified.check(ServerRow(id: row.id, seq: row.seq - 1, body: row.body))
      }
    }
  }

  // MARK: - A new key (link layout 2)

  /// The passphrase the new key of the key change's fixture is wrapped under.
  static let newPassphrase = "fixture passphrase v2"

  /// The chain of `chain()`, then device A's `passwd --new-key` (4): a link of layout 2
  /// setting the header of a new key, whose items write every session the server holds,
  /// sealed again under the new sync key at 4, as `SyncEngine.sendNewKey` pushes it.
  static func newKeyChain() throws -> Chain {
    let old = try Fixtures.keys()
    let before = try chain(layout: 1)
    let random = SeededRandom(seed: 2035)
    let new = try VaultKeys.fresh(vaultID: old.vaultID, random: random)
    let passphrase = try SecureBytes(copying: Array(newPassphrase.utf8))
    let (rotating, wrapped) = try old.wrap(
      passphrase: passphrase, limits: TestKDF.limits, alongside: new, random: random)
    let header = ServerHeader.encode(
      KeyHeader(
        vaultID: rotating.vaultID, limits: rotating.limits, salt: rotating.salt,
        wrappedKey: wrapped))
    let opener = try RecordCipher(key: old.syncKey, random: random)
    let sealer = try RecordCipher(key: new.syncKey, random: random)
    let seq = before.state.counter + 1
    var rows: [ServerRow] = []
    var items: [SyncLink.Item] = []
    for row in before.rows {
      let id = try #require(SessionID(exactly: row.id))
      let body = try opener.open(
        row.body, id: row.id, column: .syncRow, revision: UInt64(row.seq)
      ) { plain in
        try sealer.seal(Array(plain), id: row.id, column: .syncRow, revision: UInt64(seq))
      }
      rows.append(ServerRow(id: row.id, seq: seq, body: body))
      items.append(.put(id, hash: SyncLink.hash(body)))
    }
    var link = SyncLink(
      seq: seq, device: deviceA, previous: try #require(before.state.links.last?.tag),
      header: SyncLink.hash(header), items: items, newKey: true)
    link.keyTag = try SyncLink.keyTag(link.body, vaultID: old.vaultID, key: new.syncKey)
    let tag = try SyncLink.tag(link.entry, vaultID: old.vaultID, key: old.syncKey)
    let links =
      before.state.links + [ServerLink(seq: seq, device: deviceA, entry: link.entry, tag: tag)]
    return Chain(state: ServerState(counter: seq, header: header, links: links), rows: rows)
  }

  /// The keys of the new key's header, opened with `newPassphrase`.
  static func newKeys(_ chain: Chain) throws -> VaultKeys {
    let header = try #require(ServerHeader.decode(chain.state.header))
    return try VaultKeys.open(
      header: header, passphrase: try SecureBytes(copying: Array(newPassphrase.utf8)),
      policy: TestKDF.policy)
  }

  /// A key change's link (layout 2) stops a device that holds the old key, where it read up
  /// to and from the first; a device with the new key begins at it, and reads every session
  /// from its rows; today's encoders write it again byte for byte.
  @Test func keyChangeOfLayoutTwo() throws {
    // Given
    let chain = try Self.load("sync/newkey-v2.json")
    let old = try Fixtures.keys()
    let new = try Self.newKeys(chain)
    let change = try #require(chain.state.links.last)
    #expect(change.entry.first == SyncLink.newKeyVersion)
    #expect(chain.state.links.dropLast().allSatisfy { $0.entry.first == SyncLink.version })

    // When / Then: the old key's devices stop at the change, applying nothing.
    var behind = SyncSettings(server: "fixture", device: Self.deviceB)
    behind.seq = 3
    behind.head = chain.state.links[2].tag
    behind.headerHash = SyncLink.hash(ServerHeader.encode(try Fixtures.keyHeader()))
    let fromThree = ServerState(
      counter: chain.state.counter, header: chain.state.header,
      links: Array(chain.state.links.dropFirst(2)))
    #expect(throws: SyncError.keyChanged(seq: 4)) { try Self.verify(fromThree, from: behind) }
    #expect(throws: SyncError.keyChanged(seq: 4)) {
      try Self.verify(chain.state, from: SyncSettings(server: "fixture", device: Self.deviceB))
    }

    // When: a new device, holding only the new key, reads it all.
    let verified = try VerifiedChain.verify(
      chain.state, from: SyncSettings(server: "fixture", device: Self.deviceB),
      vaultID: new.vaultID, key: new.syncKey,
      localHeader: SyncLink.hash(chain.state.header))

    // Then
    #expect(verified.newKeyAt == 4)
    #expect(verified.newKeyPrevious == chain.state.links[2].tag)
    #expect(verified.head == change.tag)
    #expect(verified.header == SyncLink.hash(chain.state.header))
    #expect(verified.latest.count == 2)
    let cipher = try RecordCipher(key: new.syncKey, random: SeededRandom(seed: 1))
    var opened: [SessionID: SyncMerge.Version] = [:]
    for row in chain.rows {
      let id = try verified.check(row)
      opened[id] = try cipher.open(
        row.body, id: row.id, column: .syncRow, revision: UInt64(row.seq)
      ) { plain in try SyncRowCodec.decode(plain, id: id) }
      #expect(throws: (any Error).self) {
        try RecordCipher(key: old.syncKey, random: SeededRandom(seed: 1)).open(
          row.body, id: row.id, column: .syncRow, revision: UInt64(row.seq)
        ) { $0.count }
      }
    }
    #expect(opened == Self.expected(layout: 1))

    // And the link's entry reads back as it was written, and nothing longer or shorter does.
    let link = try #require(SyncLink(entry: change.entry))
    #expect(link.newKey && link.keyTag?.count == SyncLink.tagBytes)
    #expect(link.entry == change.entry)
    #expect(try link.madeKey(vaultID: new.vaultID, key: new.syncKey))
    #expect(try !link.madeKey(vaultID: old.vaultID, key: old.syncKey))
    for link in chain.state.links {
      #expect(SyncLink(entry: link.entry)?.entry == link.entry)
      for length in 0..<link.entry.count {
        #expect(SyncLink(entry: Array(link.entry.prefix(length))) == nil, "\(length)")
      }
      #expect(SyncLink(entry: link.entry + [0]) == nil)
      #expect(SyncLink(entry: link.entry + [UInt8](repeating: 0, count: 32)) == nil)
    }
    var asOne = change.entry
    asOne[0] = SyncLink.version
    #expect(SyncLink(entry: asOne) == nil)

    // And today's encoders write the same bytes.
    #expect(try Self.newKeyChain() == chain, "a key change's link is no longer written as it was")
  }

  /// A byte changed in the key change's link or its key tag, or the link dropped, is refused
  /// by a device with either key; its tag changed, by one with the old key (one with the new
  /// key only cannot check it: the link after it, tagged under the new key, names it).
  @Test func changedKeyChangeIsRefused() throws {
    let chain = try Self.load("sync/newkey-v2.json")
    let new = try Self.newKeys(chain)
    let state = chain.state
    let change = try #require(state.links.last)
    let start = SyncSettings(server: "fixture", device: Self.deviceB)
    func with(_ link: ServerLink?) -> ServerState {
      ServerState(
        counter: state.counter, header: state.header,
        links: Array(state.links.dropLast()) + (link.map { [$0] } ?? []))
    }
    func newDevice(_ altered: ServerState) throws -> VerifiedChain {
      try VerifiedChain.verify(
        altered, from: start, vaultID: new.vaultID, key: new.syncKey,
        localHeader: SyncLink.hash(state.header))
    }
    var altered: [ServerState] = [with(nil)]
    for offset in [0, 5, 20, 40, 70, 93, change.entry.count - 33, change.entry.count - 1] {
      var entry = change.entry
      entry[offset] ^= 0x01
      altered.append(
        with(ServerLink(seq: change.seq, device: change.device, entry: entry, tag: change.tag)))
    }
    for bad in altered {
      #expect(throws: SyncError.self) { try Self.verify(bad, from: start) }
      #expect(throws: SyncError.self) { try newDevice(bad) }
    }
    var tag = change.tag
    tag[7] ^= 0x80
    let retagged = with(
      ServerLink(seq: change.seq, device: change.device, entry: change.entry, tag: tag))
    #expect(throws: SyncError.tampered(.brokenChain(seq: 4))) {
      try Self.verify(retagged, from: start)
    }

    var header = state.header
    header[40] ^= 0x01
    #expect(throws: SyncError.tampered(.changedHeader)) {
      try newDevice(ServerState(counter: state.counter, header: header, links: state.links))
    }
    let verified = try newDevice(state)
    for row in chain.rows {
      var body = row.body
      body[body.count / 2] ^= 0x01
      #expect(throws: SyncError.self) {
        try verified.check(ServerRow(id: row.id, seq: row.seq, body: body))
      }
      #expect(throws: SyncError.self) {
        try verified.check(ServerRow(id: row.id, seq: row.seq - 1, body: row.body))
      }
    }
  }

  /// Writes the sync fixtures that are missing (JOURNAL_WRITE_FIXTURES=1; never in a normal
  /// run).
  @Test(.enabled(if: Fixtures.writing)) func writeFixtures() throws {
    for layout in 1...SyncRowCodec.version {
      try Fixtures.writeIfMissing(
        "sync/chain-v\(layout).json", try Self.json(try Self.chain(layout: layout)))
    }
    try Fixtures.writeIfMissing("sync/newkey-v2.json", try Self.json(try Self.newKeyChain()))
  }
}
