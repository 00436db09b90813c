import Foundation
import JournalApp
import JournalCore

/// Turns sessions into what stdout carries: aligned text for people, JSON for programs.
struct Render {
  let format: DisplayFormat
  let presentation: Presentation
  var colour: Bool { presentation.colour }

  init(timeZone: TimeZone, presentation: Presentation) {
    self.format = DisplayFormat(timeZone: timeZone)
    self.presentation = presentation
  }

  // MARK: - Text

  /// One line a session: id, date, mood (before → after), treatment, status badge. Built as
  /// bytes: a list of 100,000 sessions is one string of several megabytes. A terminal too
  /// narrow for that line gets two lines a session instead; nothing is cut.
  func list(_ sessions: [SessionSummary]) -> String {
    let treatmentWidth = sessions.map { $0.treatment.displayName.count }.max() ?? 0
    let lineWidth = 8 + 2 + 21 + 7 + 7 + 2 + treatmentWidth + 2 + 16
    if let width = presentation.width, width < lineWidth { return narrowList(sessions) }
    let names = Dictionary(
      sessions.map { ($0.treatment, Array($0.treatment.displayName.utf8)) },
      uniquingKeysWith: { a, _ in a })
    let width = sessions.map { $0.treatment.displayName.count }.max() ?? 0
    let badges = Dictionary(
      uniqueKeysWithValues: SessionStatus.allCases.map { ($0, Array(badge($0).utf8)) })
    let arrow = Array(" → ".utf8)
    var out: [UInt8] = []
    out.reserveCapacity(sessions.count * 72)
    for s in sessions {
      out += s.id.hex.utf8.prefix(8)
      out += [0x20, 0x20]
      format.appendDateTime(s.date, to: &out)
      out += Array("  mood ".utf8)
      appendMood(s.moodBefore.value, &out)
      if let after = s.moodAfter {
        out += arrow
        appendMood(after.value, &out)
      } else {
        out += [0x20, 0x20, 0x20, 0x20, 0x20]
      }
      out += [0x20, 0x20]
      let name = names[s.treatment] ?? []
      out += name
      let pad = width - s.treatment.displayName.count
      if pad > 0 { out += [UInt8](repeating: 0x20, count: pad) }
      out += [0x20, 0x20]
      out += badges[s.status] ?? []
      out.append(0x0A)
    }
    return String(decoding: out, as: UTF8.self)
  }

  /// Two lines a session, for a narrow terminal: id and date, then mood, treatment, status.
  private func narrowList(_ sessions: [SessionSummary]) -> String {
    var out = ""
    for s in sessions {
      out += s.id.short + "  " + format.dateTime(s.date) + "\n"
      var second = "  mood \(s.moodBefore.value)"
      if let after = s.moodAfter { second += " → \(after.value)" }
      second += ", " + s.treatment.displayName + ", " + badge(s.status)
      out += Wrap.lines(second, width: presentation.width ?? 80, indent: "    ").joined(
        separator: "\n")
      out += "\n"
    }
    return out
  }

  private func appendMood(_ mood: Int, _ out: inout [UInt8]) {
    if mood < 10 { out += [0x20, UInt8(0x30 + mood)] } else { out += [0x31, 0x30] }
  }

  /// The whole session, grouped Before / Setting / Reflection.
  func detail(_ s: Session, shownID: String) -> String {
    let dot = presentation.plain ? ", " : " · "
    var out = "Session \(shownID)  \(badge(s.status))\n"
    out += wrap(
      "\(format.dateTime(s.date))\(dot)\(s.treatment.displayName)"
        + (s.dose.map { dot + $0 } ?? ""),
      indent: "  ")
    out += "\n\n"
    out += heading("Before")
    out += line("Mood before", mood(s.moodBefore))
    out += block("Intention", s.intention)
    out += "\n" + heading("Setting")
    out += line("Environment", s.environment)
    out += line("Music", s.music)
    out += "\n" + heading("Reflection")
    out += line("Mood after", s.moodAfter.map(mood))
    out += block("Reflection", s.reflection)
    out +=
      "\n"
      + dim(
        wrap(
          "Created \(format.dateTime(s.created))\(dot)updated \(format.dateTime(s.updated))",
          indent: ""))
    return out + "\n"
  }

  private func badge(_ status: SessionStatus) -> String {
    guard colour else { return status.label }
    switch status {
    case .needsReflection: return "\u{1B}[33m● needs reflection\u{1B}[0m"
    case .complete: return "\u{1B}[32m✓ complete\u{1B}[0m"
    case .draft: return "\u{1B}[2mdraft\u{1B}[0m"
    }
  }

  private func mood(_ mood: Mood) -> String {
    presentation.plain ? "\(mood.value) (\(mood.word))" : "\(mood.value) \(mood.emoji) \(mood.word)"
  }

  private func heading(_ text: String) -> String {
    colour ? "\u{1B}[1m\(text)\u{1B}[0m\n" : "\(text)\n"
  }

  private func dim(_ text: String) -> String {
    colour ? "\u{1B}[2m\(text)\u{1B}[0m" : text
  }

  private func line(_ label: String, _ value: String?) -> String {
    let padded = label + String(repeating: " ", count: max(1, 14 - label.count))
    guard let value else { return "  \(padded)\(presentation.plain ? "none" : dim("—"))\n" }
    let lines = value.split(separator: "\n", omittingEmptySubsequences: false)
    let indent = String(repeating: " ", count: 16)
    return wrap("  \(padded)" + lines.joined(separator: "\n" + indent), indent: indent) + "\n"
  }

  /// Wraps to the terminal's width; output to a pipe stays as it is.
  private func wrap(_ text: String, indent: String) -> String {
    guard let width = presentation.width else { return text }
    return Wrap.lines(text, width: width, indent: indent).joined(separator: "\n")
  }

  private func block(_ label: String, _ value: String?) -> String {
    guard let value else { return line(label, nil) }
    let body = value.split(separator: "\n", omittingEmptySubsequences: false)
      .map { $0.isEmpty ? "" : wrap("    " + $0, indent: "    ") }.joined(separator: "\n")
    return "  \(label)\n\(body)\n"
  }

  // MARK: - JSON (schema version 1, documented in Docs/USER-GUIDE.md)

  static let schemaVersion = 1

  static func json(list: [SessionSummary], damaged: [SessionID]) -> String {
    encode([
      "schema_version": schemaVersion,
      "sessions": list.map(summaryObject),
      "damaged": damaged.map(\.hex),
    ])
  }

  static func json(session: Session) -> String {
    var object = summaryObject(session.summary)
    object["dose"] = session.dose ?? NSNull()
    object["intention"] = session.intention
    object["environment"] = session.environment ?? NSNull()
    object["music"] = session.music ?? NSNull()
    object["reflection"] = session.reflection ?? NSNull()
    return encode(["schema_version": schemaVersion, "session": object])
  }

  static func json(trends: Trends) -> String {
    func object(_ row: Trends.Row) -> [String: Any] {
      [
        "name": row.name, "sessions": row.sessions,
        "average_mood_before": rounded(row.averageBefore),
        "average_mood_after": row.averageAfter.map { rounded($0) as Any } ?? NSNull(),
        "with_mood_after": row.withAfter,
        "average_change": row.averageChange.map { rounded($0) as Any } ?? NSNull(),
      ]
    }
    return encode([
      "schema_version": schemaVersion,
      "overall": object(trends.overall),
      "months": trends.months.map(object),
      "treatments": trends.treatments.map(object),
    ])
  }

  private static func rounded(_ value: Double) -> Double { (value * 100).rounded() / 100 }

  private static func summaryObject(_ s: SessionSummary) -> [String: Any] {
    [
      "id": s.id.hex,
      "short_id": s.id.short,
      "date": DisplayFormat.iso8601(s.date),
      "treatment": s.treatment.key,
      "treatment_name": s.treatment.customName ?? NSNull(),
      "mood_before": s.moodBefore.value,
      "mood_after": s.moodAfter.map { $0.value as Any } ?? NSNull(),
      "status": s.status.rawValue,
      "created": DisplayFormat.iso8601(s.created),
      "updated": DisplayFormat.iso8601(s.updated),
    ]
  }

  static func encode(_ object: [String: Any]) -> String {
    guard
      let data = try? JSONSerialization.data(
        withJSONObject: object, options: [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]),
      let text = String(data: data, encoding: .utf8)
    else { return "{}\n" }
    return text + "\n"
  }
}
