import Foundation
import JournalCrypto

/// Deterministic, non-cryptographic random bytes (SplitMix64) for tests that need ids and
/// nonces to be reproducible but do not check their values.
public final class SeededRandom: RandomSource, @unchecked Sendable {
  private var state: UInt64
  private let lock = NSLock()

  public init(seed: UInt64) { state = seed }

  public func fill(_ buffer: UnsafeMutableRawBufferPointer) {
    lock.lock()
    defer { lock.unlock() }
    for index in 0..<buffer.count {
      state &+= 0x9E37_79B9_7F4A_7C15
      var z = state
      z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
      z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
      buffer[index] = UInt8(truncatingIfNeeded: z ^ (z >> 31))
    }
  }
}

/// Hands out exactly the byte strings it was given, in order, and stops the test run if
/// asked for more or for a different length: a known-answer test must know every draw.
public final class ScriptedRandom: RandomSource, @unchecked Sendable {
  private var queue: [[UInt8]]
  private let lock = NSLock()

  public init(_ draws: [[UInt8]]) { queue = draws }

  public func fill(_ buffer: UnsafeMutableRawBufferPointer) {
    lock.lock()
    defer { lock.unlock() }
    guard !queue.isEmpty else { fatalError("ScriptedRandom: asked for \(buffer.count) more bytes") }
    let next = queue.removeFirst()
    guard next.count == buffer.count else {
      fatalError("ScriptedRandom: asked for \(buffer.count) bytes, scripted \(next.count)")
    }
    buffer.copyBytes(from: next)
  }

  /// Whether every scripted draw was used.
  public var isExhausted: Bool {
    lock.lock()
    defer { lock.unlock() }
    return queue.isEmpty
  }
}
