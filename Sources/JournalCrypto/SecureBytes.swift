import CSodium
import Synchronization

/// Bytes in libsodium-guarded memory: `sodium_malloc` places them between guard pages,
/// locks them out of swap (mlock), and excludes them from core dumps (MADV_DONTDUMP);
/// `sodium_free` wipes them when the value goes away.
///
/// For keys, passphrases and decrypted record buffers. Never copied implicitly: a class, so
/// that one allocation has one owner and one wipe (or, for `parts`, one allocation the parts
/// share, wiped when the last of them goes).
public final class SecureBytes: @unchecked Sendable {
  // @unchecked: the buffer is written only while the creating code holds the sole reference
  // (filling a key or reading a passphrase); after that it is only read.
  private let pointer: UnsafeMutableRawPointer
  /// The number of bytes held.
  public let count: Int
  /// The allocation these bytes are a part of (`parts`), kept alive by each part; nil when
  /// they are an allocation of their own.
  private let whole: SecureBytes?

  /// Allocates `count` zeroed bytes of guarded memory.
  public init(count: Int) throws(CryptoError) {
    try Sodium.ready()
    // sodium_malloc(0) is valid but returns a pointer we must not write to; keep one byte.
    guard let pointer = sodium_malloc(max(count, 1)) else {
      throw .secureMemoryUnavailable(bytes: count)
    }
    sodium_memzero(pointer, max(count, 1))
    // sodium_malloc locks the pages but does not say when it could not (the locked-memory
    // limit, RLIMIT_MEMLOCK, reached): asked again here, where a failure can be known.
    if sodium_mlock(pointer, max(count, 1)) != 0 {
      Self.unlockedSeen.store(true, ordering: .relaxed)
    }
    self.pointer = pointer
    self.count = count
    self.whole = nil
  }

  private init(part whole: SecureBytes, offset: Int, count: Int) {
    self.pointer = whole.pointer + offset
    self.count = count
    self.whole = whole
  }

  /// Buffers of these sizes, zeroed, in one guarded allocation: one `mmap`, `mprotect`s
  /// and `mlock` where each buffer of its own would cost its own (~70 µs a buffer here, 18
  /// of them a command before keys were grouped). The guard pages are around the group, not
  /// between its parts: for keys, whose sizes are fixed, and a buffer that grows placed last,
  /// where an overrun still meets the guard page. The allocation is wiped and freed when the
  /// last part goes away; `wipe()` on a part zeroes that part now.
  public static func parts(_ counts: [Int]) throws(CryptoError) -> [SecureBytes] {
    let whole = try SecureBytes(count: counts.reduce(0, +))
    var offset = 0
    return counts.map { count in
      defer { offset += count }
      return SecureBytes(part: whole, offset: offset, count: count)
    }
  }

  private static let unlockedSeen = Atomic(false)

  /// Whether any guarded memory of this process could not be locked out of swap: a key or a
  /// passphrase may then be written to a swap device. The command line says so (SECURITY.md,
  /// "Memory"); journal goes on, as refusing would lock a person out over a system limit.
  public static var someUnlocked: Bool { unlockedSeen.load(ordering: .relaxed) }

  /// Copies `bytes` into guarded memory. The caller should wipe its own copy.
  public convenience init(copying bytes: some Collection<UInt8>) throws(CryptoError) {
    try self.init(count: bytes.count)
    let target = pointer.assumingMemoryBound(to: UInt8.self)
    for (offset, byte) in bytes.enumerated() { target[offset] = byte }
  }

  deinit { if whole == nil { sodium_free(pointer) } }

  /// Overwrites the bytes with zeros now (before the process exits without deinit).
  public func wipe() { sodium_memzero(pointer, whole == nil ? max(count, 1) : count) }

  /// Reads the bytes.
  public func withUnsafeBytes<R, E: Error>(
    _ body: (UnsafeRawBufferPointer) throws(E) -> R
  ) throws(E) -> R {
    try body(UnsafeRawBufferPointer(start: pointer, count: count))
  }

  /// Writes the bytes.
  public func withUnsafeMutableBytes<R, E: Error>(
    _ body: (UnsafeMutableRawBufferPointer) throws(E) -> R
  ) throws(E) -> R {
    try body(UnsafeMutableRawBufferPointer(start: pointer, count: count))
  }

  /// Constant-time comparison.
  public func isEqual(to other: SecureBytes) -> Bool {
    count == other.count && sodium_memcmp(pointer, other.pointer, count) == 0
  }

  /// A guarded copy of the first `length` bytes (for trimming a passphrase's newline).
  public func prefix(_ length: Int) throws(CryptoError) -> SecureBytes {
    let copy = try SecureBytes(count: min(length, count))
    copy.pointer.copyMemory(from: pointer, byteCount: copy.count)
    return copy
  }
}

/// Overwrites an ordinary array's bytes with zeros (best effort for unguarded copies).
public func wipe(_ bytes: inout [UInt8]) {
  bytes.withUnsafeMutableBytes { buffer in
    if let base = buffer.baseAddress { sodium_memzero(base, buffer.count) }
  }
}
