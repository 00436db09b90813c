import Foundation
import JournalCore
import JournalTerminal

/// The plaintext exports: JSON (every field; what `import` reads back), Markdown (to read
/// and print), and CSV (for spreadsheets, safe against formula injection).
public enum ExportFormat: String, CaseIterable, Sendable {
  case json, markdown, csv
}

/// Which sessions an export takes.
public struct ExportFilter: Sendable {
  public var since: Date?
  public var until: Date?
  public var status: SessionStatus?
  public var treatment: String?
  /// With `treatment` "other": only the custom treatment of this name (any case).
  public var treatmentName: String?

  public init(
    since: Date? = nil, until: Date? = nil, status: SessionStatus? = nil, treatment: String? = nil
  ) {
    self.since = since
    self.until = until
    self.status = status
    self.treatment = treatment
  }

  public func includes(_ s: Session) -> Bool {
    if let since, s.date < since { return false }
    if let until, s.date > until { return false }
    if let status, s.status != status { return false }
    if let treatment, s.treatment.key != treatment { return false }
    if let treatmentName,
      s.treatment.customName?.lowercased() != treatmentName.lowercased()
    {
      return false
    }
    return true
  }
}

public enum Export {
  /// The export document's format name and version; `import` refuses a newer version.
  public static let formatName = "journal-export"
  public static let version = 1

  /// Renders sessions (oldest first, which reads like a diary) in `format`.
  public static func render(
    _ sessions: [Session], as format: ExportFormat, exported: Date, timeZone: TimeZone
  ) -> String {
    let ordered = sessions.sorted { $0.date != $1.date ? $0.date < $1.date : $0.id < $1.id }
    switch format {
    case .json: return json(ordered, exported: exported)
    case .csv: return csv(ordered)
    case .markdown: return markdown(ordered, exported: exported, timeZone: timeZone)
    }
  }

  // MARK: - JSON

  /// The export document: its format name and version, when, and every session's
  /// SessionDocument (what `import` reads back).
  struct Document: Encodable {
    let format: String
    let version: Int
    let exported: String
    let sessions: [SessionDocument]
  }

  public static func json(_ sessions: [Session], exported: Date) -> String {
    SessionDocument.text(
      Document(
        format: formatName, version: version, exported: ISO8601.string(exported),
        sessions: sessions.map { SessionDocument($0, shortID: false) }))
  }

  // MARK: - CSV

  static let csvColumns = [
    "id", "date", "treatment", "treatment_name", "dose", "intention", "mood_before",
    "environment", "music", "mood_after", "reflection", "status", "created", "updated",
  ]

  static func csv(_ sessions: [Session]) -> String {
    var out = csvColumns.joined(separator: ",") + "\r\n"
    for s in sessions {
      let cells: [String?] = [
        s.id.hex, DisplayFormat.iso8601(s.date), s.treatment.key, s.treatment.customName, s.dose,
        s.intention, s.moodBefore.map { String($0.value) }, s.environment, s.music,
        s.moodAfter.map { String($0.value) }, s.reflection, s.status.rawValue,
        DisplayFormat.iso8601(s.created), DisplayFormat.iso8601(s.updated),
      ]
      out += cells.map { csvCell($0 ?? "") }.joined(separator: ",") + "\r\n"
    }
    return out
  }

  /// One RFC 4180 cell. A text a spreadsheet would run as a formula (starting with =, +, -,
  /// @, a tab or a carriage return) is prefixed with ' so it stays text (OWASP's advice).
  static func csvCell(_ text: String) -> String {
    var value = text
    if let first = value.unicodeScalars.first, ["=", "+", "-", "@", "\t", "\r"].contains(first) {
      value = "'" + value
    }
    guard
      value.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" || $0 == "\r\n" })
    else { return value }
    return "\"" + value.replacingOccurrences(of: "\"", with: "\"\"") + "\""
  }

  // MARK: - Markdown

  static func markdown(_ sessions: [Session], exported: Date, timeZone: TimeZone) -> String {
    let format = DisplayFormat(timeZone: timeZone)
    let noun = sessions.count == 1 ? "session" : "sessions"
    var blocks = ["# Journal", "Exported \(format.dateTime(exported)) · \(sessions.count) \(noun)"]
    for s in sessions {
      blocks.append("---")
      blocks.append(
        "## \(format.dateTime(s.date)) · \(s.treatment.displayName)"
          + (s.dose.map { " · \($0)" } ?? ""))
      let status = s.status.label.prefix(1).uppercased() + s.status.label.dropFirst()
      let moods =
        "mood \(s.moodBefore.map { String($0.value) } ?? "not recorded")"
        + (s.moodAfter.map { " → \($0.value)" } ?? "")
      blocks.append("*\(status)* · \(moods) · id `\(s.id.short)`")
      blocks += ["### Before", "**Intention**", s.intention]
      if s.environment != nil || s.music != nil {
        blocks.append("### Setting")
        if let environment = s.environment { blocks.append("**Environment:** \(environment)") }
        if let music = s.music { blocks.append("**Music:** \(music)") }
      }
      if let reflection = s.reflection { blocks += ["### Reflection", reflection] }
    }
    return blocks.joined(separator: "\n\n") + "\n"
  }
}
