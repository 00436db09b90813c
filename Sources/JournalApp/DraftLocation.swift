import Foundation

/// Where drafts and their settings come from.
///
/// Drafts are sealed under the vault's draft key, so they may live on disk: that is what
/// lets one survive a power cut (a tmpfs such as $XDG_RUNTIME_DIR would lose it). They go in
/// `$JOURNAL_DRAFTS_DIR`, else `$XDG_STATE_HOME/journal/drafts`, else
/// `~/.local/state/journal/drafts`. See Docs/DESIGN.md, "Where drafts live".
public enum DraftLocation {
  public static func directory(environment: [String: String]) throws(AppError) -> String {
    if let path = environment["JOURNAL_DRAFTS_DIR"], path.hasPrefix("/") { return path }
    if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") {
      return state + "/journal/drafts"
    }
    guard let home = environment["HOME"], !home.isEmpty else { throw .noHome }
    return home + "/.local/state/journal/drafts"
  }

  /// How old an unsaved draft may grow before it is dropped: `JOURNAL_DRAFT_MAX_AGE`
  /// ("7d", "36h", "90m", "0s"), 7 days by default.
  public static func maximumAge(environment: [String: String]) throws(AppError) -> TimeInterval {
    guard let text = environment["JOURNAL_DRAFT_MAX_AGE"], !text.isEmpty else { return 7 * 86400 }
    guard let duration = Duration.parse(text) else {
      throw .badSetting(
        name: "JOURNAL_DRAFT_MAX_AGE", expected: #"a duration such as "7d" or "12h""#)
    }
    return duration
  }
}

/// How long a deletion can be undone: `JOURNAL_UNDO_WINDOW` ("10s", "1m"…), 10 s by
/// default. Adjustable because a fixed time limit excludes people who need longer.
public enum UndoWindow {
  public static let standard: TimeInterval = 10

  public static func duration(environment: [String: String]) throws(AppError) -> TimeInterval {
    guard let text = environment["JOURNAL_UNDO_WINDOW"], !text.isEmpty else { return standard }
    guard let duration = Duration.parse(text) else {
      throw .badSetting(name: "JOURNAL_UNDO_WINDOW", expected: #"a duration such as "10s" or "2m""#)
    }
    return duration
  }
}

/// Durations as people write them in settings: a whole number and one unit (s, m, h, d).
public enum Duration {
  /// Ten years: longer makes no sense for any setting, and keeps every later conversion to
  /// integers far from overflow.
  public static let maximum: TimeInterval = 10 * 366 * 86400

  public static func parse(_ text: String) -> TimeInterval? {
    guard let value = read(text), value <= maximum else { return nil }
    return value
  }

  private static func read(_ text: String) -> TimeInterval? {
    let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
    guard let unit = trimmed.last, let number = Int(trimmed.dropLast()), number >= 0,
      number < 1_000_000_000
    else {
      return nil
    }
    switch unit {
    case "s": return TimeInterval(number)
    case "m": return TimeInterval(number) * 60
    case "h": return TimeInterval(number) * 3600
    case "d": return TimeInterval(number) * 86400
    default: return nil
    }
  }
}
