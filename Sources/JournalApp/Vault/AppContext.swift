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
  ///
  /// In debug builds only, `JOURNAL_DEBUG_NOW` (an ISO 8601 instant) fixes the clock, so
  /// that end-to-end tests of dates ("a week ago", "tomorrow 09:00") do not depend on the
  /// day they run. A release build does not read it at all: the code is not compiled in.
  public static func live(environment: [String: String]) -> AppContext {
    var now = Now.system
    #if DEBUG
      if let text = environment["JOURNAL_DEBUG_NOW"], let fixed = ISO8601.parse(text) {
        now = Now { fixed }
      }
    #endif
    return AppContext(
      now: now, timeZone: .current, random: SystemRandom(), kdfPolicy: .standard,
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
