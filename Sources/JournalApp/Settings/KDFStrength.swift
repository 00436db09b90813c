import JournalCrypto

/// The Argon2id strengths a person can choose.
public enum KDFStrength: String, CaseIterable, Sendable {
  case interactive, moderate, sensitive

  public var limits: KDFLimits {
    switch self {
    case .interactive: .interactive
    case .moderate: .moderate
    case .sensitive: .sensitive
    }
  }
}
