import Foundation
import JournalDiagnostics

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
    guard let duration = DurationText.parse(text) else {
      throw .badSetting(
        name: "JOURNAL_DRAFT_MAX_AGE", expected: #"a duration such as "7d" or "12h""#)
    }
    return duration
  }
}
