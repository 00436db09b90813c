import CSodium

/// Where random bytes come from: the system's CSPRNG for users, a seeded stream in tests.
public protocol RandomSource: Sendable {
  /// Fills `buffer` with random bytes.
  func fill(_ buffer: UnsafeMutableRawBufferPointer)
}

extension RandomSource {
  /// `count` random bytes in an ordinary array (for nonces, salts, ids: not secret).
  public func bytes(_ count: Int) -> [UInt8] {
    var out = [UInt8](repeating: 0, count: count)
    out.withUnsafeMutableBytes { fill($0) }
    return out
  }

  /// 8 random bytes as a number (a note's id or version: not secret).
  public func uint64() -> UInt64 {
    var value: UInt64 = 0
    withUnsafeMutableBytes(of: &value) { fill($0) }
    return value
  }
}

/// libsodium's `randombytes_buf`: getrandom(2) on Linux.
public struct SystemRandom: RandomSource {
  public init() {}

  public func fill(_ buffer: UnsafeMutableRawBufferPointer) {
    guard let base = buffer.baseAddress else { return }
    randombytes_buf(base, buffer.count)
  }
}
