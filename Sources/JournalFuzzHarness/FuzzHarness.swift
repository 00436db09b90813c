import Foundation
import Glibc
import JournalAgent
import JournalApp
import JournalCore
import JournalCrypto
import JournalDrafts
import JournalStorage
import JournalStore
import Synchronization

/// One entry point per parser that reads bytes an attacker may control. Each takes any bytes
/// and must return, never crash, hang or allocate without bound; the libFuzzer targets in
/// Fuzz/ call them, and the reliability tests replay the committed corpus through them.
///
/// Uses only public API (the codecs and file constants are public for it), so a release build
/// of the whole package builds it too; it is never part of the `journal` product.
public enum FuzzHarness {
  /// The targets, by the name of their fuzzer and corpus directory.
  public static let targets: [String: @Sendable (UnsafeRawBufferPointer) -> Void] = [
    "record": record, "draft": draft, "header": header, "import": importFile, "agent": agent,
    "date": date, "addition": addition,
  ]

  /// A fixed key and id: the harness must be deterministic for libFuzzer.
  static let keys: VaultKeys = {
    let random = FixedRandom()
    do {
      let passphrase = try SecureBytes(copying: Array("fuzz".utf8))
      return try VaultKeys.create(
        passphrase: passphrase, limits: .testingMinimum, random: random
      ).0
    } catch {
      fatalError("fuzz harness: no keys (\(error))")
    }
  }()
  static let id = SessionID(randomBytes: [UInt8](repeating: 0x5A, count: 16))

  // MARK: - Verdicts

  /// What a parser made of an input: a value, or a refusal by an error of this type.
  public enum Verdict: Equatable, Sendable {
    case accepted
    case refused(String)
  }

  /// The verdict of the parser behind `name` (record, draft, import, date) on `data`, for
  /// the corpus replay to check that every refusal is a documented one; nil for the targets
  /// whose work is a side effect (header, agent).
  public static func verdict(_ name: String, _ data: UnsafeRawBufferPointer) -> Verdict? {
    func judge(_ body: () throws -> Void) -> Verdict {
      do {
        try body()
        return .accepted
      } catch {
        return .refused(String(describing: type(of: error)))
      }
    }
    let rest = UnsafeRawBufferPointer(rebasing: data.dropFirst())
    switch name {
    case "date":
      let text = String(decoding: data, as: UTF8.self)
      return judge {
        if ISO8601.parse(text) == nil {
          _ = try DateInput(timeZone: TimeZone.gmt).parseInstant(text, now: Date())
        }
      }
    case "import":
      let parser = ImportParser(
        timeZone: TimeZone.gmt, now: Date(timeIntervalSince1970: 1_795_000_000))
      return judge { _ = try parser.parse(Data(data)) }
    case "record":
      guard let mode = data.first else { return .refused("Empty") }
      if mode & 1 == 0 {
        let summary = judge { _ = try RecordCodec.decodeSummary(rest, id: id) }
        return summary == .accepted ? summary : judge { _ = try RecordCodec.decodeBody(rest) }
      }
      return judge {
        let cipher = try RecordCipher(keys: keys, random: FixedRandom())
        _ = try cipher.open(Array(rest), id: id.bytes, column: .summary) { $0.count }
      }
    case "draft":
      guard let mode = data.first else { return .refused("Empty") }
      if mode & 1 == 1 { return judge { _ = try DraftCodec.decode(rest, id: id) } }
      draft(data)
      return judge {
        guard try draftStore.read(id) != nil else { throw DraftError.noMatch(prefix: id.short) }
      }
    case "addition":
      guard let mode = data.first else { return .refused("Empty") }
      return judge { try openAddition(mode, rest) }
    default:
      return nil
    }
  }

  // MARK: - Sealed additions (SealedBox, RecordCodec's addition layouts)

  /// The first byte chooses: bit 0, a new session (even) or later fields (odd); bit 1, the
  /// bytes are the plaintext (clear) or a sealed box to open first (set). Anyone who holds
  /// the vault's public key can seal any plaintext, so both layouts face an attacker.
  public static func addition(_ data: UnsafeRawBufferPointer) {
    guard let mode = data.first else { return }
    try? openAddition(mode, UnsafeRawBufferPointer(rebasing: data.dropFirst()))
  }

  static func openAddition(_ mode: UInt8, _ bytes: UnsafeRawBufferPointer) throws {
    func decode(_ plain: UnsafeRawBufferPointer) throws {
      if mode & 1 == 0 {
        _ = try RecordCodec.decodeNewAddition(plain, id: id)
      } else {
        _ = try RecordCodec.decodeLaterAddition(plain)
      }
    }
    guard mode & 2 != 0 else { return try decode(bytes) }
    try SealedBox.open(Array(bytes), keys: keys) { try decode($0) }
  }

  // MARK: - Dates (ISO8601, DateInput)

  /// The bytes as a typed or imported date: the one ISO 8601 reader, and every form
  /// `DateInput` reads (`--date`, `--since`, `--until`, `remind --at`).
  public static func date(_ data: UnsafeRawBufferPointer) {
    let text = String(decoding: data, as: UTF8.self)
    _ = ISO8601.parse(text)
    let now = Date(timeIntervalSince1970: 1_795_000_000)
    for zone in dateZones {
      let input = DateInput(timeZone: zone)
      _ = try? input.parse(text, now: now)
      _ = try? input.parseInstant(text, now: now)
    }
  }

  static let dateZones = ["UTC", "Pacific/Chatham", "America/St_Johns"].compactMap(
    TimeZone.init(identifier:))

  // MARK: - Record envelope (RecordCipher) and plaintext layout (RecordCodec)

  /// The first byte chooses: even, the bytes are a decrypted column's plaintext (summary and
  /// body layouts); odd, they are a stored column (nonce ‖ secretbox) to open and unpad, and
  /// also the same bytes sealed properly, so unpadding and decoding see arbitrary contents.
  public static func record(_ data: UnsafeRawBufferPointer) {
    guard let mode = data.first else { return }
    let rest = UnsafeRawBufferPointer(rebasing: data.dropFirst())
    if mode & 1 == 0 {
      _ = try? RecordCodec.decodeSummary(rest, id: id)
      _ = try? RecordCodec.decodeBody(rest)
      return
    }
    guard let cipher = try? RecordCipher(keys: keys, random: FixedRandom()) else { return }
    _ = try? cipher.open(Array(rest), id: id.bytes, column: .summary) { _ in 0 }
    guard let sealed = try? cipher.seal(Array(rest), id: id.bytes, column: .body) else { return }
    _ = try? cipher.open(sealed, id: id.bytes, column: .body) { plain in
      try RecordCodec.decodeBody(plain)
    }
    _ = try? cipher.open(sealed, id: id.bytes, column: .summary) { _ in 0 }
  }

  // MARK: - Draft file (DraftStore.read, DraftCodec)

  nonisolated(unsafe) static let draftStore: DraftStore = {
    let directory = privateDirectory("drafts")
    do {
      return try DraftStore(directory: directory, keys: keys, random: FixedRandom())
    } catch {
      fatalError("fuzz harness: no draft store (\(error))")
    }
  }()

  /// The first byte chooses: even, the bytes are a whole draft file read from disk; odd,
  /// the plaintext inside one (DraftCodec), also sealed and read back as a file.
  public static func draft(_ data: UnsafeRawBufferPointer) {
    guard let mode = data.first else { return }
    let rest = Array(data.dropFirst())
    let store = draftStore
    var file = rest
    if mode & 1 == 1 {
      _ = rest.withUnsafeBytes { try? DraftCodec.decode($0, id: id) }
      guard
        let cipher = try? RecordCipher(key: keys.draftKey, random: FixedRandom()),
        let sealed = try? cipher.seal(rest, id: id.bytes, column: .draft)
      else { return }
      file = DraftStore.magic + [2] + keys.vaultID + id.bytes + sealed
    }
    let path = store.path(id, ".draft")
    unlink(path)
    let fd = Glibc.open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
    guard fd >= 0 else { return }
    AgentProtocol.writeAll(fd, file)
    close(fd)
    _ = try? store.read(id)
    _ = try? store.scan()
  }

  // MARK: - Key header (VaultKeys.open) and the vault row (Vault.open)

  /// The bytes are a key header: 1 byte for each field's length, then vault id, salt,
  /// wrapped key, and 2 + 2 bytes of limits (kept at or near Argon2id's minimum so that a
  /// run stays fast; the policy's range check is what is tested above that). Opened with
  /// the right passphrase and a wrong one.
  public static func header(_ data: UnsafeRawBufferPointer) {
    var reader = ByteReader(data)
    let vaultID = reader.take(Int(reader.byte() % 40))
    let salt = reader.take(Int(reader.byte() % 40))
    let wrapped = reader.take(Int(reader.byte()))
    let ops = UInt64(reader.byte() % 4)
    let mem = UInt64(reader.byte() % 4) * 8192
    let limits = KDFLimits(opsLimit: ops, memLimit: mem)
    let header = KeyHeader(vaultID: vaultID, limits: limits, salt: salt, wrappedKey: wrapped)
    let policy = KDFPolicy(
      floor: .testingMinimum,
      ceiling: KDFLimits(opsLimit: 3, memLimit: 3 * 8192))
    for passphrase in ["fuzz", "wrong"] {
      guard let secret = try? SecureBytes(copying: Array(passphrase.utf8)) else { return }
      _ = try? VaultKeys.open(header: header, passphrase: secret, policy: policy)
      _ = try? VaultKeys.open(header: header, passphrase: secret, policy: .standard)
    }
  }

  // MARK: - Import (ImportParser: journal's JSON export and jrnl's)

  public static func importFile(_ data: UnsafeRawBufferPointer) {
    let parser = ImportParser(
      timeZone: TimeZone(identifier: "UTC") ?? .current,
      now: Date(timeIntervalSince1970: 1_795_000_000))
    _ = try? parser.parse(Data(data))
  }

  // MARK: - Agent protocol (a real Agent answering on a socket)

  static let agentSocket: String = {
    let directory = privateDirectory("agent")
    let path = directory + "/agent.sock"
    do {
      let agent = Agent(
        vaultID: keys.vaultID, dataKey: try SecureBytes(copying: [UInt8](repeating: 7, count: 32)),
        idleTimeout: 86400, lifetime: 86400, socketPath: path)
      try agent.bind()
      // The agent runs on its own thread for the whole fuzzing run; nothing else touches it.
      let served = Unchecked(value: agent)
      let thread = Thread { served.value.serve() }
      thread.start()
    } catch {
      fatalError("fuzz harness: no agent (\(error))")
    }
    return path
  }()

  /// The bytes are one request, sent whole to a running agent, whose answer is read back
  /// through the client's own parser.
  public static func agent(_ data: UnsafeRawBufferPointer) {
    guard var address = AgentProtocol.address(agentSocket) else { return }
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { return }
    defer { close(fd) }
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
      }
    }
    guard connected == 0 else { return }
    // A lock request would stop the agent for every later input: it is sent as status.
    var request = Array(data)
    if request.count > 5, request[5] == AgentProtocol.Command.lock.rawValue { request[5] = 2 }
    AgentProtocol.write(fd, request)
    Glibc.shutdown(fd, Int32(SHUT_WR))
    _ = AgentProtocol.read(fd, count: AgentProtocol.headerBytes, timeout: 5)
  }

  // MARK: - Seeds

  /// Well-formed inputs for each target, made by journal's own writers: the start of the
  /// committed corpus (Fuzz/Corpus/<target>/seed-*).
  public static func seeds() throws -> [String: [[UInt8]]] {
    let when = Date(timeIntervalSince1970: 1_795_000_000)
    let draft = SessionDraft(
      id: id, date: when, treatment: .other("San Pedro"), dose: "a cup",
      intention: "to listen", moodBefore: Mood(6))
    var session = try Session.saving(draft, now: when)
    try session.apply(.reflection("light\nand space"), now: when + 60)
    try session.apply(.moodAfter(Mood(9)), now: when + 60)
    let cipher = try RecordCipher(keys: keys, random: FixedRandom())
    let summary = RecordCodec.encodeSummary(session)
    let body = RecordCodec.encodeBody(session)
    let stored = StoredDraft(draft: draft, started: when, updated: when + 5)
    let draftPlain = DraftCodec.encode(stored)
    let draftCipher = try RecordCipher(key: keys.draftKey, random: FixedRandom())
    let draftFile =
      DraftStore.magic + [DraftCodec.fileVersion(stored)] + keys.vaultID + id.bytes
      + (try draftCipher.seal(draftPlain, id: id.bytes, column: .draft))
    let sealedDraft =
      DraftStore.magic + [DraftStore.sealedVersion] + keys.vaultID + id.bytes
      + (try SealedBox.seal(draftPlain, to: keys.sealingPublicKey))
    let newAddition = RecordCodec.encodeNewAddition(session)
    let laterAddition = RecordCodec.encodeLaterAddition(
      [.moodAfter(Mood(8)), .reflection("the light, later")], at: when + 90)
    let (_, header) = try VaultKeys.create(
      passphrase: try SecureBytes(copying: Array("fuzz".utf8)), limits: .testingMinimum,
      random: FixedRandom())
    let headerBytes =
      [UInt8(header.vaultID.count)] + header.vaultID + [UInt8(header.salt.count)] + header.salt
      + [UInt8(header.wrappedKey.count)] + header.wrappedKey + [1, 1]
    let export = Export.json([session], exported: when)
    func frame(_ kind: UInt8, _ payload: [UInt8]) -> [UInt8] { AgentProtocol.frame(kind, payload) }
    return [
      "date": [
        "2026-11-21T18:30:00Z", "2026-11-21T18:30:00.123456+01:00", "2026-11-21 18:30",
        "yesterday 20:00", "18:30", "2024-02-29",
      ].map { Array($0.utf8) },
      "record": [
        [0] + summary, [0] + body,
        [1] + (try cipher.seal(summary, id: id.bytes, column: .summary)),
      ],
      "draft": [[1] + draftPlain, [0] + draftFile, [0] + sealedDraft],
      "addition": [
        [0] + newAddition, [1] + laterAddition,
        [2] + (try SealedBox.seal(newAddition, to: keys.sealingPublicKey)),
        [3] + (try SealedBox.seal(laterAddition, to: keys.sealingPublicKey)),
      ],
      "header": [headerBytes],
      "import": [Array(export.utf8), Array(#"{"tags": {}, "entries": []}"#.utf8)],
      "agent": [
        frame(2, []), frame(1, keys.vaultID), frame(1, [UInt8](repeating: 0, count: 16)),
        frame(9, []), Array("JRNA".utf8) + [2, 2, 0, 0], Array("JRNA".utf8) + [1, 1, 0xFF, 0xFF],
        Array("XXXX".utf8) + [1, 2, 0, 0],
      ],
    ]
  }

  // MARK: - Helpers

  /// A new private directory for the harness's files, removed when the process exits.
  public static func privateDirectory(_ name: String) -> String {
    let base = ProcessInfo.processInfo.environment["JOURNAL_FUZZ_DIR"] ?? NSTemporaryDirectory()
    var template = Array((base + "/journal-fuzz-\(name)-XXXXXX").utf8CString)
    guard mkdtemp(&template) != nil else { fatalError("fuzz harness: mkdtemp failed") }
    let path = String(
      decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    made.withLock { paths in
      if paths.isEmpty { atexit { FuzzHarness.removeDirectories() } }
      paths.append(path)
    }
    return path
  }

  /// The directories the harness made, to remove at exit.
  static let made = Mutex<[String]>([])

  /// Removes the directories the harness made (all of them at exit; `only` these, for a
  /// test that must leave the others in use).
  public static func removeDirectories(only: Set<String>? = nil) {
    let paths = made.withLock { paths in
      let chosen = paths.filter { only?.contains($0) ?? true }
      paths.removeAll { chosen.contains($0) }
      return chosen
    }
    for path in paths { try? FileManager.default.removeItem(atPath: path) }
  }

  /// The directories the harness made and has not removed yet.
  public static var directories: [String] { made.withLock { $0 } }
}

/// Reads an input as consecutive fields, giving zeros past its end.
struct ByteReader {
  let data: UnsafeRawBufferPointer
  var offset = 0

  init(_ data: UnsafeRawBufferPointer) { self.data = data }

  mutating func byte() -> UInt8 {
    guard offset < data.count else { return 0 }
    defer { offset += 1 }
    return data[offset]
  }

  mutating func take(_ count: Int) -> [UInt8] {
    let end = min(data.count, offset + count)
    defer { offset = end }
    return Array(data[offset..<end])
  }
}

/// Deterministic bytes (a counter), so that a crash found by libFuzzer replays exactly.
final class FixedRandom: RandomSource, @unchecked Sendable {
  private var counter: UInt8 = 0
  func fill(_ buffer: UnsafeMutableRawBufferPointer) {
    for index in 0..<buffer.count {
      counter &+= 1
      buffer[index] = counter
    }
  }
}

/// Hands a value to another thread that alone uses it from then on.
struct Unchecked<Value>: @unchecked Sendable {
  let value: Value
}
