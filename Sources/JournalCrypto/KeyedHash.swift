import CSodium

/// BLAKE2b-256 keyed with one of the vault's subkeys, fed in pieces: the ledger's tag over
/// every row of the vault, and this machine's record of it (SECURITY.md, "The ledger").
///
/// What it hashes is not secret (ids, statuses, revision numbers); the key is, and it stays in
/// guarded memory. The state holds a copy of the key's block, so it is kept in guarded memory
/// too and wiped when done.
public final class KeyedHash {
  public static let bytes = 32
  private let state: SecureBytes
  private var finished = false

  public init(key: SecureBytes) throws(CryptoError) {
    // crypto_generichash_state is 64-byte aligned; sodium_malloc places the end of the
    // region at a page end, so a size that is a multiple of 64 starts 64-aligned.
    let size = (crypto_generichash_statebytes() + 63) / 64 * 64
    state = try SecureBytes(count: size)
    try restart(key: key)
  }

  /// Begins a new hash under `key` in the same guarded state (a new state is a guarded
  /// allocation: several system calls and a locked page, too many for a hash per field of
  /// every session a sync sends).
  public func restart(key: SecureBytes) throws(CryptoError) {
    let status = withState { state in
      key.withUnsafeBytes { key in
        crypto_generichash_init(state, key.bytes, key.count, Self.bytes)
      }
    }
    guard status == 0 else { throw .integrity }
    finished = false
  }

  /// Adds `bytes` to what is hashed.
  public func update(_ bytes: UnsafeRawBufferPointer) {
    precondition(!finished, "a keyed hash is finished once")
    _ = withState { state in
      crypto_generichash_update(
        state, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(bytes.count))
    }
  }

  public func update(_ bytes: [UInt8]) {
    bytes.withUnsafeBytes { update($0) }
  }

  /// Adds `value` as 8 bytes, little-endian.
  public func update(_ value: UInt64) {
    withUnsafeBytes(of: value.littleEndian) { update($0) }
  }

  /// The 32-byte result; the state is wiped.
  public func finish() -> [UInt8] {
    precondition(!finished, "a keyed hash is finished once")
    finished = true
    var out = [UInt8](repeating: 0, count: Self.bytes)
    _ = withState { state in crypto_generichash_final(state, &out, Self.bytes) }
    state.wipe()
    return out
  }

  /// Lends the hash state to libsodium (which sees it as an opaque pointer).
  private func withState(_ body: (OpaquePointer) -> Int32) -> Int32 {
    state.withUnsafeMutableBytes { state in
      guard let base = state.baseAddress else { return -1 }
      return body(OpaquePointer(base))
    }
  }

  /// BLAKE2b-256 of `bytes` with no key (for names that should not show what they stand
  /// for, such as a vault's path).
  public static func unkeyed(_ bytes: [UInt8]) -> [UInt8] {
    var out = [UInt8](repeating: 0, count: Self.bytes)
    _ = crypto_generichash(&out, Self.bytes, bytes, UInt64(bytes.count), nil, 0)
    return out
  }

  /// BLAKE2b-256 with no key of `head` then `body`, written into `out` (32 bytes): no array
  /// made, for the thousands of small digests of the ledger's tree. `state` is scratch space
  /// of at least `stateBytes`, 64-byte aligned (`UnkeyedScratch`).
  static func unkeyed(
    _ head: UnsafeRawBufferPointer, _ body: UnsafeRawBufferPointer,
    into out: UnsafeMutableRawBufferPointer, state: UnsafeMutableRawPointer
  ) {
    guard out.count >= Self.bytes, let digest = out.baseAddress else {
      preconditionFailure("a digest is 32 bytes")
    }
    let state = OpaquePointer(state)
    func update(_ part: UnsafeRawBufferPointer) {
      guard let bytes = part.baseAddress else { return }
      _ = crypto_generichash_update(
        state, bytes.assumingMemoryBound(to: UInt8.self), UInt64(part.count))
    }
    _ = crypto_generichash_init(state, nil, 0, Self.bytes)
    update(head)
    update(body)
    _ = crypto_generichash_final(
      state, digest.assumingMemoryBound(to: UInt8.self), Self.bytes)
  }

  /// Whether two tags are equal, in constant time.
  public static func same(_ a: [UInt8], _ b: [UInt8]) -> Bool {
    a.count == b.count && sodium_memcmp(a, b, a.count) == 0
  }
}

/// Scratch space for `KeyedHash.unkeyed(_:_:into:state:)`'s state, made once for many
/// digests. What it hashes is not secret (the ledger's entries are in the clear beside it).
public final class UnkeyedScratch {
  let state: UnsafeMutableRawPointer

  public init() {
    state = .allocate(byteCount: (crypto_generichash_statebytes() + 63) / 64 * 64, alignment: 64)
  }

  deinit { state.deallocate() }

  /// BLAKE2b-256 with no key of `head` then `body`, into `out` (32 bytes).
  public func digest(
    _ head: UnsafeRawBufferPointer, _ body: UnsafeRawBufferPointer,
    into out: UnsafeMutableRawBufferPointer
  ) {
    KeyedHash.unkeyed(head, body, into: out, state: state)
  }

  /// Begins a BLAKE2b-256 with no key fed in pieces (`update`, then `finish`), in this
  /// state: not to be mixed with `digest` before it finishes.
  public func start() {
    _ = crypto_generichash_init(OpaquePointer(state), nil, 0, KeyedHash.bytes)
  }

  public func update(_ part: UnsafeRawBufferPointer) {
    guard let bytes = part.baseAddress else { return }
    _ = crypto_generichash_update(
      OpaquePointer(state), bytes.assumingMemoryBound(to: UInt8.self), UInt64(part.count))
  }

  /// The digest of what `start` began.
  public func finish() -> [UInt8] {
    var out = [UInt8](repeating: 0, count: KeyedHash.bytes)
    _ = crypto_generichash_final(OpaquePointer(state), &out, KeyedHash.bytes)
    return out
  }
}
