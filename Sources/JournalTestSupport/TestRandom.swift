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

/// SplitMix64: reproducible random choices (kill moments, sample positions) from a seed
/// that a failing test prints, so that the failure can be replayed.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
  /// The seed: JOURNAL_TEST_SEED when set (to replay a failure), else a new one per run.
  public static let runSeed: UInt64 = {
    if let text = ProcessInfo.processInfo.environment["JOURNAL_TEST_SEED"], let seed = UInt64(text)
    {
      return seed
    }
    return UInt64.random(in: 1...UInt64(UInt32.max))
  }()

  private var state: UInt64

  public init(seed: UInt64, salt: UInt64 = 0) {
    state = seed &* 0x9E37_79B9_7F4A_7C15 &+ salt
  }

  public mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}
