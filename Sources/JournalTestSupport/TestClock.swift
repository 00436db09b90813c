import Foundation
import JournalCore

/// A clock tests move by hand.
public final class TestClock: @unchecked Sendable {
  private var current: Date
  private let lock = NSLock()

  public init(_ start: Date) { current = start }

  /// 2026-11-21 18:30:00 UTC: a fixed "now" for tests.
  public static let reference = Date(timeIntervalSince1970: 1_795_285_800)

  public var now: Now { Now { [self] in self.read() } }

  public func read() -> Date {
    lock.lock()
    defer { lock.unlock() }
    return current
  }

  public func advance(by seconds: TimeInterval) {
    lock.lock()
    current += seconds
    lock.unlock()
  }
}

extension Now {
  /// A clock that was not configured: any read stops the test run.
  public static let unimplemented = Now { fatalError("Now.unimplemented was read") }
}
