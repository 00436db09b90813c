import JournalCrypto

/// Argon2id settings for library tests: the algorithm's minimum, allowed by a policy whose
/// floor is lowered explicitly. Never used by the command line.
public enum TestKDF {
  public static let limits = KDFLimits.testingMinimum
  public static let policy = KDFPolicy(floor: .testingMinimum, ceiling: .sensitive)
}
