import Foundation
import Glibc
import JournalCore
import JournalCrypto
import JournalSystem

/// The drafts of one vault, in a private directory, each in its own encrypted file with its
/// own lock.
///
/// Ordering rules kept here:
/// - A draft's lock (`<name>.lock`, flock) is taken before its file is read for editing,
///   written or removed, and held for the whole edit; a file whose lock is held elsewhere is
///   only ever looked at, never changed.
/// - Every write goes to `<name>.tmp` (created exclusively, 0600, no symlinks), is fsynced,
///   then renamed over `<name>.draft`, and the directory is fsynced: a crash leaves the old
///   draft or the new one, never a torn one.
/// - Saving a session writes the vault first and removes the draft after; a draft whose id
///   is already in the vault is a leftover of that gap and is removed, not offered again.
public final class DraftStore {
  /// The directory holding the draft files (0700).
  public let directory: String
  private let vaultID: [UInt8]
  /// Seals under the draft key; nil for a store opened without the key.
  private let cipher: RecordCipher?
  /// Opens drafts sealed to the public key (version 3); nil without the key.
  private let keys: VaultKeys?
  /// Without the key: the public key new drafts are sealed to (version 3).
  private let sealingKey: [UInt8]?
  private let prefix: String

  /// The largest draft file read: far above five fields at their limits, far below memory.
  static let maximumFileBytes = 8 * 1024 * 1024
  public static let magic = Array("JRNLDRFT".utf8)
  /// The newest draft file version read: 1, or 2 for a draft holding a reflection
  /// (`DraftCodec.fileVersion`), or 3 for one written without the passphrase, sealed to the
  /// vault's public key (its plaintext as version 2's).
  public static let formatVersion: UInt8 = 3
  /// The version of a draft sealed to the vault's public key.
  public static let sealedVersion: UInt8 = 3
  public static let headerBytes = magic.count + 1 + 16 + 16

  public init(directory: String, keys: VaultKeys, random: some RandomSource) throws {
    try FileSafety.privateDirectory(directory, create: true)
    self.directory = directory
    self.vaultID = keys.vaultID
    self.cipher = try RecordCipher(key: keys.draftKey, random: random)
    self.keys = keys
    self.sealingKey = nil
    self.prefix = Hex.lowercase(keys.vaultID) + "-"
  }

  /// The drafts of the vault `vaultID` without its key: new drafts are sealed to
  /// `sealingKey` (version 3), and no draft can be read back until the key is at hand.
  public init(directory: String, vaultID: [UInt8], sealingKey: [UInt8]) throws {
    try FileSafety.privateDirectory(directory, create: true)
    self.directory = directory
    self.vaultID = vaultID
    self.cipher = nil
    self.keys = nil
    self.sealingKey = sealingKey
    self.prefix = Hex.lowercase(vaultID) + "-"
  }

  /// Whether a draft file of this id is there (read or not).
  public func exists(_ id: SessionID) -> Bool {
    var info = stat()
    return lstat(path(id, ".draft"), &info) == 0
  }

  /// The ids of this vault's draft files, without reading them (a store without the key).
  public func ids() throws -> [SessionID] {
    try names().compactMap { name in
      guard name.hasPrefix(prefix), name.hasSuffix(".draft") else { return nil }
      return SessionID(String(name.dropFirst(prefix.count).dropLast(6)))
    }
  }

  /// What is found for one draft file of this vault.
  public enum State: Sendable, Equatable {
    /// Readable and free: it can be resumed, kept or discarded.
    case ready(StoredDraft)
    /// Its lock is held by another journal process, editing it now.
    case inUse
    /// It cannot be opened: damaged, truncated, or sealed under another key.
    case unreadable
    /// Written by a newer journal; left alone.
    case newer(version: Int)
  }

  public struct Entry: Sendable, Equatable {
    public let id: SessionID
    public let state: State

    public init(id: SessionID, state: State) {
      self.id = id
      self.state = state
    }
  }

  /// Every draft file of this vault, in no particular order. Leftover temp files and locks
  /// whose draft is gone are cleaned up on the way.
  public func scan() throws -> [Entry] {
    var entries: [Entry] = []
    for name in try names() {
      guard name.hasPrefix(prefix) else { continue }
      let stem = String(name.dropFirst(prefix.count))
      if stem.hasSuffix(".draft"), let id = SessionID(String(stem.dropLast(6))) {
        entries.append(Entry(id: id, state: try inspect(id)))
      } else if stem.hasSuffix(".tmp") || stem.hasSuffix(".lock"),
        let id = SessionID(String(stem.split(separator: ".")[0]))
      {
        try cleanLeftovers(id)
      }
    }
    return entries
  }

  /// Starts a new draft: takes its lock and writes its first version.
  public func create(_ stored: StoredDraft) throws -> DraftHandle {
    let handle = try lock(stored.draft.id)
    try handle.save(stored)
    return handle
  }

  /// Takes the lock of an existing draft for editing; `DraftError.inUse` if it is held.
  public func open(_ id: SessionID) throws -> (DraftHandle, StoredDraft) {
    let handle = try lock(id)
    do {
      guard let stored = try read(id) else { throw DraftError.noMatch(prefix: id.short) }
      return (handle, stored)
    } catch {
      handle.release()
      throw error
    }
  }

  /// Takes the lock of a draft that may not exist yet (a reflection about to be kept);
  /// `DraftError.inUse` if it is held.
  public func take(_ id: SessionID) throws -> DraftHandle {
    try lock(id)
  }

  /// Removes a draft that no process is editing.
  public func discard(_ id: SessionID) throws {
    let handle = try lock(id)
    try handle.remove()
  }

  /// Re-seals every draft this store can read into `other` (the same vault's drafts under a
  /// new key, a key rotation), each under its lock; how many. Drafts open in another journal
  /// now, and those this store cannot read (already re-sealed), are left as they are.
  @discardableResult
  public func reseal(into other: DraftStore) throws -> Int {
    precondition(other.vaultID == vaultID && other.directory == directory)
    var count = 0
    for entry in try scan() {
      guard case .ready = entry.state, let handle = try? lock(entry.id) else { continue }
      defer { handle.release() }
      guard let stored = try? read(entry.id) else { continue }
      try other.write(stored)
      count += 1
    }
    return count
  }

  /// The one draft whose id starts with `prefix`.
  public func resolve(_ prefix: String, among entries: [Entry]) throws -> SessionID {
    let matches = entries.filter { $0.id.hex.hasPrefix(prefix) }
    guard let first = matches.first else { throw DraftError.noMatch(prefix: prefix) }
    guard matches.count == 1 else { throw DraftError.ambiguous(prefix: prefix) }
    return first.id
  }

  // MARK: - Files

  public func path(_ id: SessionID, _ suffix: String) -> String {
    directory + "/" + prefix + id.hex + suffix
  }

  private func names() throws -> [String] {
    do {
      return try FileSafety.names(in: directory)
    } catch {
      guard case .io(_, let code) = error else { throw DraftError.io(path: directory, errno: EIO) }
      throw DraftError.io(path: directory, errno: code)
    }
  }

  private func inspect(_ id: SessionID) throws -> State {
    let lockFD = try openLock(id)
    defer { close(lockFD) }
    guard flock(lockFD, LOCK_SH | LOCK_NB) == 0 else { return .inUse }
    do {
      guard let stored = try read(id) else { return .unreadable }
      return .ready(stored)
    } catch let error as NewerDraft {
      return .newer(version: error.version)
    } catch DraftError.needsKey {
      // Without the key nothing is judged unreadable: it opens once the key is at hand.
      return .inUse
    } catch DraftError.damaged {
      return .unreadable
    } catch let error as DraftError {
      // The system failed us (no descriptors, an I/O error): not the draft's fault. It is
      // left alone and the error reported, never the draft deleted.
      throw error
    } catch {
      return .unreadable
    }
  }

  private struct NewerDraft: Error { let version: Int }

  /// Reads and opens a draft file; nil when it is gone.
  public func read(_ id: SessionID) throws -> StoredDraft? {
    let draftPath = path(id, ".draft")
    let fd = Glibc.open(draftPath, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
    guard fd >= 0 else {
      if errno == ENOENT { return nil }
      if errno == ELOOP { throw DraftError.damaged(id: id.short) }  // a symbolic link: not ours
      throw DraftError.io(path: draftPath, errno: errno)
    }
    defer { close(fd) }
    var info = stat()
    guard fstat(fd, &info) == 0 else { throw DraftError.io(path: draftPath, errno: errno) }
    guard info.st_mode & S_IFMT == S_IFREG, info.st_uid == getuid(),
      info.st_size <= Self.maximumFileBytes
    else { throw DraftError.damaged(id: id.short) }
    var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
    defer { wipe(&bytes) }
    let read = bytes.withUnsafeMutableBytes { buffer in
      Result { () throws(Descriptor.Failure) in try Descriptor(fd).readFully(into: buffer) }
    }
    let offset: Int
    switch read {
    case .success(let count): offset = count
    case .failure(let failure): throw DraftError.io(path: draftPath, errno: failure.errno)
    }
    guard offset == bytes.count, bytes.count > Self.headerBytes,
      Array(bytes[0..<Self.magic.count]) == Self.magic
    else { throw DraftError.damaged(id: id.short) }
    let version = bytes[Self.magic.count]
    guard version <= Self.formatVersion else { throw NewerDraft(version: Int(version)) }
    let vaultStart = Self.magic.count + 1
    guard Array(bytes[vaultStart..<(vaultStart + 16)]) == vaultID,
      Array(bytes[(vaultStart + 16)..<(vaultStart + 32)]) == id.bytes
    else { throw DraftError.damaged(id: id.short) }
    let sealed = Array(bytes[Self.headerBytes...])
    // What does not open, or opens to no draft, is this file's damage: named as the draft's.
    do {
      if version == Self.sealedVersion {
        guard let keys else { throw DraftError.needsKey(id: id.short) }
        return try SealedBox.open(sealed, keys: keys) { plain in
          try DraftCodec.decode(plain, id: id, fileVersion: version)
        }
      }
      guard let cipher else { throw DraftError.needsKey(id: id.short) }
      return try cipher.open(sealed, id: id.bytes, column: .draft) { plain in
        try DraftCodec.decode(plain, id: id, fileVersion: version)
      }
    } catch CryptoError.integrity, CryptoError.malformedPlaintext, is FieldCodec.Malformed {
      throw DraftError.damaged(id: id.short)
    }
  }

  private func openLock(_ id: SessionID) throws -> Int32 {
    let lockPath = path(id, ".lock")
    let fd = Glibc.open(lockPath, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
    guard fd >= 0 else { throw DraftError.io(path: lockPath, errno: errno) }
    return fd
  }

  private func lock(_ id: SessionID) throws -> DraftHandle {
    // A lock file is removed with its draft; a process that opened the old file just before
    // would then hold a lock nobody else sees. So after locking, check that the file locked
    // is still the one at the path, and try again if not.
    for _ in 0..<3 {
      let fd = try openLock(id)
      guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
        close(fd)
        throw DraftError.inUse(id: id.short)
      }
      if let held = FileIdentity(descriptor: fd), FileIdentity(path: path(id, ".lock")) == held {
        return DraftHandle(store: self, id: id, lockFD: fd)
      }
      close(fd)
    }
    throw DraftError.inUse(id: id.short)
  }

  private func cleanLeftovers(_ id: SessionID) throws {
    let fd = try openLock(id)
    defer { close(fd) }
    guard flock(fd, LOCK_EX | LOCK_NB) == 0 else { return }
    unlink(path(id, ".tmp"))
    if access(path(id, ".draft"), F_OK) != 0 { unlink(path(id, ".lock")) }
  }

  /// Seals and writes `stored` atomically (temp file, fsync, rename, fsync the directory).
  func write(_ stored: StoredDraft) throws {
    let id = stored.draft.id
    var plain = DraftCodec.encode(stored)
    defer { wipe(&plain) }
    var bytes: [UInt8]
    if let cipher {
      bytes = Self.magic + [DraftCodec.fileVersion(stored)] + vaultID + id.bytes
      bytes += try cipher.seal(plain, id: id.bytes, column: .draft)
    } else if let sealingKey {
      bytes = Self.magic + [Self.sealedVersion] + vaultID + id.bytes
      bytes += try SealedBox.seal(plain, to: sealingKey)
    } else {
      preconditionFailure("a draft store seals one way or the other")
    }
    let temporary = path(id, ".tmp")
    unlink(temporary)
    let fd = Glibc.open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
    guard fd >= 0 else { throw DraftError.io(path: temporary, errno: errno) }
    if let error = FileSafety.writeAndSync(fd, bytes, removingOnFailure: temporary) {
      throw DraftError.io(path: temporary, errno: error)
    }
    guard rename(temporary, path(id, ".draft")) == 0 else {
      let error = errno
      unlink(temporary)
      throw DraftError.io(path: path(id, ".draft"), errno: error)
    }
    syncDirectory()
  }

  func syncDirectory() {
    let fd = Glibc.open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    if fd >= 0 {
      fsync(fd)
      close(fd)
    }
  }
}
