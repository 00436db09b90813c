import CSodium

/// The process-wide libsodium initialisation.
public enum Sodium {
  private static let status: Int32 = sodium_init()

  /// Initialises libsodium once; safe to call from any thread, any number of times.
  public static func ready() throws(CryptoError) {
    // sodium_init returns 0 on first success, 1 when already initialised, -1 on failure.
    guard status >= 0 else { throw .sodiumUnavailable }
  }
}
