import Foundation

/// The pause before an act that cannot be undone, right after a session (issue 36):
/// decisions made in an altered state are the ones people regret. The rule alone, over the
/// instants it is handed; the words and the question are the caller's.
public enum CoolingOff {
  /// How long ago the most recent session that has already happened was, when that is less
  /// than `window` ago; nil when none was so recent, or when `window` is 0 (the pause is
  /// off). A session dated after `now` has not happened yet (a planned one) and does not
  /// count, however near.
  public static func sinceLastSession(
    _ dates: some Sequence<Date>, now: Date, window: TimeInterval
  ) -> TimeInterval? {
    guard window > 0 else { return nil }
    let past = dates.filter { $0 <= now }
    guard let last = past.max() else { return nil }
    let since = now.timeIntervalSince(last)
    return since < window ? since : nil
  }
}
