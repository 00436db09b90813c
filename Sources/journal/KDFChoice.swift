import ArgumentParser
import JournalCrypto

/// The Argon2id strengths a person can choose.
enum KDFChoice: String, ExpressibleByArgument, CaseIterable {
  case interactive, moderate, sensitive

  var limits: KDFLimits {
    switch self {
    case .interactive: .interactive
    case .moderate: .moderate
    case .sensitive: .sensitive
    }
  }
}
