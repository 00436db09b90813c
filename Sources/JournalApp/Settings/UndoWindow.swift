import Foundation
import JournalDiagnostics

/// How long a deletion can be undone: `JOURNAL_UNDO_WINDOW` ("10s", "1m"…), 10 s by
/// default. Adjustable because a fixed time limit excludes people who need longer.
public enum UndoWindow {
  public static let standard: TimeInterval = 10

  public static func duration(environment: [String: String]) throws(AppError) -> TimeInterval {
    guard let text = environment["JOURNAL_UNDO_WINDOW"], !text.isEmpty else { return standard }
    guard let duration = DurationText.parse(text) else {
      throw .badSetting(name: "JOURNAL_UNDO_WINDOW", expected: #"a duration such as "10s" or "2m""#)
    }
    return duration
  }
}
