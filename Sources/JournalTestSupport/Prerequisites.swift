import Foundation

/// What a test run needs from outside the package, and whether it may do without. A
/// developer's run skips what it cannot have, with a note; a CI run (CI=true, as .ci/run
/// sets it) never may: a skipped test there would let the run pass without the tests it
/// claims, so the missing prerequisite fails it instead.
public enum Prerequisites {
  /// Whether this is a CI run.
  public static let areRequired = ProcessInfo.processInfo.environment["CI"] == "true"
}
