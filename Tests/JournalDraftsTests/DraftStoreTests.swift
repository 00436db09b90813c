import Foundation
import Glibc
import JournalCore
import JournalCrypto
import JournalDrafts
import JournalSystem
import JournalTestSupport
import Testing

struct DraftStoreTests {
  let directory = TemporaryDirectory()
  let random = SeededRandom(seed: 11)

  func keys(_ passphrase: String = "draft test passphrase") throws -> VaultKeys {
    try VaultKeys.create(
      passphrase: try SecureBytes(copying: Array(passphrase.utf8)), limits: TestKDF.limits,
      random: random
    ).0
  }

  func stored(_ seed: UInt8, intention: String? = "SECRET-INTENTION") -> StoredDraft {
    StoredDraft(
      draft: SessionDraft(
        id: SessionID(randomBytes: [UInt8](repeating: seed, count: 16)), date: TestClock.reference,
        treatment: .other("SECRET-BREW"), dose: "SECRET-DOSE", intention: intention),
      started: TestClock.reference, updated: TestClock.reference + 30)
  }

  var draftsPath: String { directory.file("drafts") }

  /// A draft written is read back whole; the file is 0600 in a 0700 directory, holds no
  /// plaintext, and no temp file is left.
  @Test func roundTrip() throws {
    let store = try DraftStore(directory: draftsPath, keys: try keys(), random: random)
    let handle = try store.create(stored(1))
    handle.release()
    let entries = try store.scan()
    #expect(entries == [DraftStore.Entry(id: stored(1).draft.id, state: .ready(stored(1)))])
    let names = try FileManager.default.contentsOfDirectory(atPath: draftsPath)
    #expect(names.filter { $0.hasSuffix(".tmp") }.isEmpty)
    var info = stat()
    lstat(draftsPath, &info)
    #expect(info.st_mode & 0o777 == 0o700)
    for file in directory.allFiles() {
      lstat(file.path, &info)
      #expect(info.st_mode & 0o777 == 0o600)
      for word in ["SECRET-INTENTION", "SECRET-BREW", "SECRET-DOSE"] {
        #expect(file.bytes.range(of: Data(word.utf8)) == nil)
      }
    }
  }

  /// While one handle holds a draft, it is "in use" to everyone else and cannot be opened or
  /// discarded; released, it can.
  @Test func lockContention() throws {
    let store = try DraftStore(directory: draftsPath, keys: try keys(), random: random)
    let id = stored(2).draft.id
    let handle = try store.create(stored(2))
    #expect(try store.scan().first?.state == .inUse)
    #expect(throws: DraftError.inUse(id: id.short)) { try store.open(id) }
    #expect(throws: DraftError.inUse(id: id.short)) { try store.discard(id) }
    handle.release()
    let (reopened, back) = try store.open(id)
    #expect(back == stored(2))
    try reopened.remove()
    #expect(try store.scan().isEmpty)
    #expect(try FileManager.default.contentsOfDirectory(atPath: draftsPath).isEmpty)
  }

  /// A draft holding a reflection is written as version 2 and read back whole; the same
  /// bytes under a version 1 header are unreadable (tag 20 is not a version 1 field).
  @Test func reflectionDraftIsVersionTwo() throws {
    let store = try DraftStore(directory: draftsPath, keys: try keys(), random: random)
    let id = SessionID(randomBytes: [UInt8](repeating: 7, count: 16))
    let reflection = StoredDraft(
      draft: SessionDraft(id: id, reflection: "SECRET-REFLECTION\nline two"),
      started: TestClock.reference, updated: TestClock.reference + 5)
    try store.create(reflection).release()
    #expect(try store.scan() == [DraftStore.Entry(id: id, state: .ready(reflection))])
    let path = store.path(id, ".draft")
    var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
    #expect(bytes[8] == 2)
    #expect(bytes.range(of: Data("SECRET-REFLECTION".utf8)) == nil)
    try store.create(stored(4)).release()
    #expect(
      try Data(contentsOf: URL(fileURLWithPath: store.path(stored(4).draft.id, ".draft")))[8] == 1)
    bytes[8] = 1
    try bytes.write(to: URL(fileURLWithPath: path))
    #expect(try store.scan().first { $0.id == id }?.state == .unreadable)
  }

  /// Damaged, truncated, emptied and foreign files, a directory and a symbolic link in a
  /// draft's place are "unreadable", never a crash, and reading one names the draft as
  /// damaged; the other drafts still read. A newer format is left alone.
  @Test(arguments: [
    "flip", "truncate", "empty", "foreign", "garbage-tail", "newer", "directory", "symlink",
  ])
  func unreadable(_ damage: String) throws {
    // Given a draft of this vault
    let ours = try keys()
    let store = try DraftStore(directory: draftsPath, keys: ours, random: random)
    try store.create(stored(3)).release()
    let name = try #require(
      try FileManager.default.contentsOfDirectory(atPath: draftsPath).first {
        $0.hasSuffix(".draft")
      })
    let path = draftsPath + "/" + name
    var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
    // When it is damaged
    switch damage {
    case "flip": bytes[bytes.count - 20] ^= 0x01
    case "truncate": bytes = bytes.prefix(bytes.count / 2)
    case "empty": bytes = Data()
    case "garbage-tail": bytes.append(0)
    case "newer": bytes[8] = 4
    case "directory", "symlink": break
    default:
      // A draft sealed under another vault's keys, given our file name.
      let otherDirectory = directory.file("other")
      let other = try DraftStore(
        directory: otherDirectory, keys: try keys("another vault"), random: random)
      try other.create(stored(3)).release()
      let otherName = try #require(
        try FileManager.default.contentsOfDirectory(atPath: otherDirectory).first {
          $0.hasSuffix(".draft")
        })
      bytes = try Data(contentsOf: URL(fileURLWithPath: otherDirectory + "/" + otherName))
    }
    if damage == "directory" || damage == "symlink" {
      // The draft's own bytes, whole, moved aside: only the kind of file is wrong.
      let aside = directory.file("aside.draft")
      try FileManager.default.moveItem(atPath: path, toPath: aside)
      if damage == "directory" {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
      } else {
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: aside)
      }
    } else {
      try bytes.write(to: URL(fileURLWithPath: path))
    }
    // And another draft beside it
    try store.create(stored(5)).release()
    // Then
    let id = stored(3).draft.id
    let entries = try store.scan()
    let state = try #require(entries.first { $0.id == id }?.state)
    #expect(state == (damage == "newer" ? .newer(version: 4) : .unreadable))
    // (Read without taking the lock, which a process another test spawns may briefly hold
    // a copy of between its fork and exec; `open` reads the same way under it.)
    if damage != "newer" {
      #expect(throws: DraftError.damaged(id: id.short)) { try store.read(id) }
    }
    // (Its lock too can be held for a moment by such a copy: in use, then ready.)
    let ready = eventually(timeout: 10) {
      (try? store.scan())?.first { $0.id == stored(5).draft.id }?.state == .ready(stored(5))
    }
    #expect(ready, "\(entries)")
    #expect(try store.read(stored(5).draft.id) == stored(5))
  }

  /// Another vault's drafts in the same directory are not this vault's business.
  @Test func otherVaultsDraftsIgnored() throws {
    let mine = try DraftStore(directory: draftsPath, keys: try keys(), random: random)
    let theirs = try DraftStore(
      directory: draftsPath, keys: try keys("another vault"), random: random)
    try theirs.create(stored(4)).release()
    #expect(try mine.scan().isEmpty)
    #expect(try theirs.scan().count == 1)
  }

  /// A temp file left by a crash mid-write is removed; the last whole draft stands.
  @Test func leftoverTempFile() throws {
    let store = try DraftStore(directory: draftsPath, keys: try keys(), random: random)
    try store.create(stored(5)).release()
    let name = try #require(
      try FileManager.default.contentsOfDirectory(atPath: draftsPath).first {
        $0.hasSuffix(".draft")
      })
    let temporary = draftsPath + "/" + name.replacingOccurrences(of: ".draft", with: ".tmp")
    try Data("half a write".utf8).write(to: URL(fileURLWithPath: temporary))
    #expect(try store.scan().first?.state == .ready(stored(5)))
    #expect(!FileManager.default.fileExists(atPath: temporary))
  }

  /// A draft directory open to others is refused, not used.
  @Test func unsafeDirectory() throws {
    mkdir(draftsPath, 0o755)
    chmod(draftsPath, 0o755)
    #expect(
      throws: SystemError.unsafePermissions(path: draftsPath, mode: 0o755, expected: 0o700)
    ) {
      try DraftStore(directory: draftsPath, keys: try keys(), random: random)
    }
  }
}
