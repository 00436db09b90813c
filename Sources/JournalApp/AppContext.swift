import Foundation
import JournalCore
import JournalCrypto

/// Everything the use cases take from the outside world, injected: the clock, the time zone,
/// random bytes, the accepted key-derivation limits, and the environment variables.
public struct AppContext: Sendable {
  public var now: Now
  public var timeZone: TimeZone
  public var random: any RandomSource
  public var kdfPolicy: KDFPolicy
  public var environment: [String: String]

  public init(
    now: Now, timeZone: TimeZone, random: any RandomSource, kdfPolicy: KDFPolicy,
    environment: [String: String]
  ) {
    self.now = now
    self.timeZone = timeZone
    self.random = random
    self.kdfPolicy = kdfPolicy
    self.environment = environment
  }

  /// The real world: system clock and zone, libsodium's CSPRNG, the standard KDF policy.
  public static func live(environment: [String: String]) -> AppContext {
    AppContext(
      now: .system, timeZone: .current, random: SystemRandom(), kdfPolicy: .standard,
      environment: environment)
  }

  /// Reads field values against this context's clock and zone.
  public var fields: FieldParser {
    FieldParser(dates: DateInput(timeZone: timeZone), now: now())
  }

  /// A fresh session id.
  public func newSessionID() -> SessionID {
    SessionID(randomBytes: random.bytes(16))
  }
}
