import Foundation
import JournalDiagnostics

/// How long after a session an act that cannot be undone first pauses to ask again (issue
/// 36): the `cooling-off` setting, `JOURNAL_COOLING_OFF` ("24h", "90m", "2d"; "0" turns it
/// off), 24 h by default: a day is how long an altered state and its afterglow commonly last.
public enum CoolingOffWindow {
  public static let standard: TimeInterval = 24 * 3600

  /// A week: a pause longer than that stops being about the session.
  public static let maximum: TimeInterval = 7 * 86400

  public static func duration(environment: [String: String]) throws(AppError) -> TimeInterval {
    guard let text = environment["JOURNAL_COOLING_OFF"]?.trimmingCharacters(in: .whitespaces),
      !text.isEmpty
    else { return standard }
    if text == "0" { return 0 }
    guard let duration = DurationText.parse(text), duration <= maximum else {
      throw .badSetting(
        name: "JOURNAL_COOLING_OFF",
        expected: #"a duration up to 7 days such as "24h" or "90m", or "0" for no pause"#)
    }
    return duration
  }
}
