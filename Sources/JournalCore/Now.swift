import Foundation

/// The injectable "now". Production reads the system clock; tests pass a `MockClock`'s
/// `now`.
public struct Now: Sendable {
  private let read: @Sendable () -> Date

  public init(_ read: @escaping @Sendable () -> Date) { self.read = read }

  /// The current instant.
  public func callAsFunction() -> Date { read() }

  /// The system clock.
  public static let system = Now { Date() }
}
