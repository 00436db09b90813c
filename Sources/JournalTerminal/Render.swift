import Foundation
import JournalCore

/// Turns sessions into what stdout carries: aligned text for people, JSON for programs.
public struct Render: Sendable {
  let format: DisplayFormat
  let presentation: Presentation
  /// The time that decides which sessions read as planned.
  let now: Date
  var colour: Bool { presentation.colour }

  public init(timeZone: TimeZone, presentation: Presentation, now: Date) {
    self.format = DisplayFormat(timeZone: timeZone)
    self.presentation = presentation
    self.now = now
  }

  // MARK: - Text

  /// One line a session: id, date, mood (before → after; "–" for a mood before that was not
  /// recorded), treatment, status badge, handed to
  /// `write` as UTF-8 a chunk (about 64 KiB) at a time: a list of 100,000 sessions is several
  /// megabytes that need never be in memory at once. A terminal too narrow for that line gets
  /// two lines a session instead; nothing is cut.
  public func list(_ list: ListRows, write: ([UInt8]) throws -> Void) rethrows {
    let sessions = list.rows
    // Only the treatments listed count towards the column's width.
    var used = [Bool](repeating: false, count: list.treatments.count)
    for row in sessions { used[Int(row.treatment)] = true }
    let width =
      list.treatments.indices.filter { used[$0] }.map { list.treatments[$0].displayName.count }
      .max() ?? 0
    let lineWidth = 8 + 2 + 21 + 7 + 7 + 2 + width + 2 + 16
    if presentation.spoken {
      for start in stride(from: 0, to: sessions.count, by: 1024) {
        let part = sessions[start..<min(start + 1024, sessions.count)]
        try write(Array(part.map { spokenRow($0, list) }.joined().utf8))
      }
      return
    }
    if let columns = presentation.width, columns < lineWidth {
      try write(Array(narrowList(list).utf8))
      return
    }
    // Padded to the widest: "  " ‖ name ‖ padding ‖ "  ".
    let cells = list.treatments.map { treatment in
      Array("  \(treatment.displayName)".utf8)
        + [UInt8](repeating: 0x20, count: max(0, width - treatment.displayName.count) + 2)
    }
    let badges = SessionStatus.allCases.map { Array(badge($0).utf8) }
    let plannedBadge = Array(badge(planned: true, .needsReflection).utf8)
    let marked = Array(Self.markedInList.utf8)
    let laterMarked = Array(Self.laterMarkedInList.utf8)
    let mood = Array("  mood ".utf8)
    let arrow = Array(" → ".utf8)
    let noAfter = Array("     ".utf8)
    let notRecorded = Array(" –".utf8)
    let chunk = 1 << 16
    var out: [UInt8] = []
    // Not the whole chunk for a few rows: search renders one row per match.
    out.reserveCapacity(min(chunk, sessions.count * 128) + 512)
    for s in sessions {
      s.id.appendShort(to: &out)
      out.append(0x20)
      out.append(0x20)
      format.appendDateTime(s.date, to: &out)
      out.append(contentsOf: mood)
      if let before = s.moodBefore {
        appendMood(before, &out)
      } else {
        out.append(contentsOf: notRecorded)
      }
      if let after = s.moodAfter {
        out.append(contentsOf: arrow)
        appendMood(after, &out)
      } else {
        out.append(contentsOf: noAfter)
      }
      out.append(contentsOf: cells[Int(s.treatment)])
      if s.isPlanned(at: now) {
        out.append(contentsOf: plannedBadge)
      } else if let index = SessionStatus.allCases.firstIndex(of: s.status) {
        out.append(contentsOf: badges[index])
      }
      if s.addedSealed {
        out.append(contentsOf: marked)
      } else if s.laterSealed {
        out.append(contentsOf: laterMarked)
      }
      out.append(0x0A)
      if out.count >= chunk {
        try write(out)
        out.removeAll(keepingCapacity: true)
      }
    }
    if !out.isEmpty { try write(out) }
  }

  /// One sentence a session, for the ear: "5 b 5 4 9 6 b 7: Thursday 26 November 2026,
  /// 19:30; Psilocybin; mood 4 to 8; needs reflection" (no arrow, dash or bare id a voice
  /// would read as a symbol or a number), wrapped at spaces to the terminal's width.
  private func spokenRow(_ s: ListRow, _ list: ListRows) -> String {
    let mood =
      s.moodBefore.map { before in
        "mood \(before)" + (s.moodAfter.map { " to \($0)" } ?? "")
      }
      ?? (s.moodAfter.map { "mood not recorded before, \($0) after" } ?? "mood not recorded")
    let row =
      "\(DisplayFormat.spokenID(s.id.short)): \(format.spokenDateTime(s.date)); "
      + "\(list.treatment(of: s).displayName); \(mood); "
      + "\(label(planned: s.isPlanned(at: now), s.status))"
    return wrap(row, indent: "  ") + "\n"
  }

  /// Two lines a session, for a narrow terminal: id and date, then mood, treatment, status.
  private func narrowList(_ list: ListRows) -> String {
    var out = ""
    for s in list.rows {
      out += s.id.short + "  " + format.dateTime(s.date) + "\n"
      var second = "  mood " + (s.moodBefore.map { String($0) } ?? "not recorded")
      if let after = s.moodAfter { second += " → \(after)" }
      second +=
        ", " + list.treatment(of: s).displayName + ", "
        + badge(planned: s.isPlanned(at: now), s.status)
      if s.addedSealed {
        second += "," + Self.markedInList
      } else if s.laterSealed {
        second += "," + Self.laterMarkedInList
      }
      out += Wrap.lines(second, width: presentation.width ?? 80, indent: "    ").joined(
        separator: "\n")
      out += "\n"
    }
    return out
  }

  private func appendMood(_ mood: Int, _ out: inout [UInt8]) {
    out.append(mood < 10 ? 0x20 : 0x31)
    out.append(mood < 10 ? UInt8(0x30 + mood) : 0x30)
  }

  /// The whole session, grouped Before / Setting / Reflection.
  public func detail(_ s: Session, shownID: String) -> String {
    if presentation.spoken { return spokenDetail(s, shownID: shownID) }
    let dot = presentation.plain ? ", " : " · "
    var out = "Session \(shownID)  \(badge(s.summary))\n"
    out += wrap(
      "\(format.dateTime(s.date))\(dot)\(s.treatment.displayName)"
        + (s.dose.map { dot + $0 } ?? ""),
      indent: "  ")
    if !s.tags.isEmpty {
      out += "\n" + wrap("  Tags: " + s.tags.joined(separator: ", "), indent: "    ")
    }
    out += "\n\n"
    out += heading("Before")
    out += line("Mood before", s.moodBefore.map(mood) ?? "not recorded")
    out += block("Intention", s.intention)
    out += "\n" + heading("Setting")
    out += line("Environment", s.environment)
    out += line("Music", s.music)
    out += "\n" + heading("Reflection")
    out += line("Mood after", s.moodAfter.map(mood))
    out += block("Reflection", s.reflection)
    let notes = s.shownNotes
    if !notes.isEmpty {
      out += "\n" + heading("Notes")
      for (index, note) in notes.enumerated() {
        let about = [
          note.mood.map { "mood " + mood($0) },
          note.edited.map { "corrected \(format.dateTime($0))" },
          note.keptFrom.map { _ in "kept from another device's correction, written at the same time"
          },
          note.addedSealed ? "added without the passphrase" : nil,
        ].compactMap { $0 }
        out +=
          wrap(
            "  \(index + 1)  \(format.dateTime(note.written))"
              + about.map { dot + $0 }.joined(), indent: "     ") + "\n"
        out +=
          note.text.split(separator: "\n", omittingEmptySubsequences: false)
          .map { $0.isEmpty ? "" : wrap("    " + $0, indent: "    ") }.joined(separator: "\n")
          + "\n"
      }
    }
    out +=
      "\n"
      + dim(
        wrap(
          "Created \(format.dateTime(s.created))\(dot)updated \(format.dateTime(s.updated))",
          indent: "  "))
    if !s.conflicts.isEmpty {
      // Two devices wrote the same text at once: the other one is kept, never dropped.
      out += "\n\n" + heading("Also written on another device at the same time")
      for conflict in s.conflicts {
        out += block(
          "\(conflict.field.label.prefix(1).uppercased())\(conflict.field.label.dropFirst())",
          conflict.text)
        out += dim(wrap("    written \(format.dateTime(conflict.written))", indent: "    ")) + "\n"
      }
      out += wrap(
        #"Keep one or both: "journal resolve \#(shownID) <field> --keep shown|kept|both""#,
        indent: "  ")
    }
    // Anyone who can write the vault file can seal an addition: what came that way says so.
    for mark in Self.marks(s.summary, format) { out += "\n" + wrap(mark, indent: "  ") }
    return out + "\n"
  }

  /// The whole session for the ear: each field named and followed by a colon, dates in
  /// words, the id spelled out, "none" for an empty field, no symbol a voice would read.
  private func spokenDetail(_ s: Session, shownID: String) -> String {
    func field(_ label: String, _ value: String?) -> String {
      wrap("  \(label): \(value ?? "none")", indent: "    ") + "\n"
    }
    func text(_ label: String, _ value: String?) -> String {
      guard let value else { return field(label, nil) }
      return "  \(label):\n"
        + value.split(separator: "\n", omittingEmptySubsequences: false)
        .map { $0.isEmpty ? "" : wrap("    " + $0, indent: "    ") }.joined(separator: "\n") + "\n"
    }
    func spokenMood(_ mood: Mood?) -> String? { mood.map { "\($0.value), \($0.word)" } }
    var out = wrap(
      "Session \(DisplayFormat.spokenID(shownID)): \(label(s.summary))", indent: "  ")
    out += "\n"
    out += wrap(
      "\(format.spokenDateTime(s.date)); \(s.treatment.displayName)"
        + (s.dose.map { "; " + $0 } ?? ""),
      indent: "  ")
    out += "\n\nBefore\n"
    out += field("Mood before", spokenMood(s.moodBefore) ?? "not recorded")
    out += text("Intention", s.intention)
    out += "\nSetting\n"
    out += field("Environment", s.environment)
    out += field("Music", s.music)
    out += "\nReflection\n"
    out += field("Mood after", spokenMood(s.moodAfter))
    out += text("Reflection", s.reflection)
    if !s.tags.isEmpty { out += "\n" + field("Tags", s.tags.joined(separator: ", ")) }
    let notes = s.shownNotes
    if !notes.isEmpty { out += "\nNotes\n" }
    for (index, note) in notes.enumerated() {
      let about = [
        note.mood.map { "mood " + (spokenMood($0) ?? "") },
        note.edited.map { "corrected \(format.spokenDateTime($0))" },
        note.keptFrom.map { _ in "kept from another device's correction" },
        note.addedSealed ? "added without the passphrase" : nil,
      ].compactMap { $0 }
      out += text(
        "Note \(index + 1), \(format.spokenDateTime(note.written))"
          + about.map { "; " + $0 }.joined(), note.text)
    }
    out += "\n"
    out += wrap(
      "Created \(format.spokenDateTime(s.created)); updated \(format.spokenDateTime(s.updated))",
      indent: "  ")
    for conflict in s.conflicts {
      out += "\n\n" + text("Also written on another device: \(conflict.field.label)", conflict.text)
      out += wrap("  written \(format.spokenDateTime(conflict.written))", indent: "    ")
    }
    if !s.conflicts.isEmpty {
      out += "\n" + wrap(#"Keep one or both with "journal resolve""#, indent: "  ")
    }
    for mark in Self.marks(s.summary, format, spoken: true) {
      out += "\n" + wrap(mark, indent: "  ")
    }
    return out + "\n"
  }

  /// What `list` shows after the status of a session written (in part) without the
  /// passphrase.
  static let markedInList = "  (added without the passphrase)"
  /// ...and of one only whose later fields were.
  static let laterMarkedInList = "  (later fields added without the passphrase)"

  /// The marks of what was written without the passphrase, one sentence each, as `show` and
  /// the Markdown export say them.
  public static func marks(
    _ s: SessionSummary, _ format: DisplayFormat, spoken: Bool = false
  ) -> [String] {
    let said = spoken ? format.spokenDateTime : format.dateTime
    return [
      s.addedSealed.map { "Added without the passphrase on \(said($0))" },
      s.laterSealed.map { "Later fields added without the passphrase, last on \(said($0))" },
    ].compactMap { $0 }
  }

  /// A session's status in words: planned while it waits with its date still ahead.
  private func label(_ s: SessionSummary) -> String {
    label(planned: s.isPlanned(at: now), s.status)
  }

  private func label(planned: Bool, _ status: SessionStatus) -> String {
    planned ? Self.plannedLabel : status.label
  }
  static let plannedLabel = "planned"

  private func badge(_ s: SessionSummary) -> String {
    badge(planned: s.isPlanned(at: now), s.status)
  }

  private func badge(planned: Bool = false, _ status: SessionStatus) -> String {
    if planned { return colour ? "\u{1B}[34m◇ planned\u{1B}[0m" : Self.plannedLabel }
    guard colour else { return status.label }
    switch status {
    case .needsReflection: return "\u{1B}[33m● needs reflection\u{1B}[0m"
    case .complete: return "\u{1B}[32m✓ complete\u{1B}[0m"
    case .closed: return "\u{1B}[36m○ closed, no reflection\u{1B}[0m"
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

  /// A search hit's line under its session's row: the field, then the words around the hit,
  /// the hit marked (reverse video) unless in plain mode or without colour.
  public func searchContext(field: Field, before: String, hit: String, after: String) -> String {
    let marked = colour && !presentation.plain ? "\u{1B}[7m\(hit)\u{1B}[0m" : hit
    // One line: a phrase found across a line break is shown with a space there.
    let line = (before + marked + after).map { $0.isNewline || $0 == "\t" ? " " : String($0) }
      .joined()
    return "    \(field.label): \(line)\n"
  }

  /// `search --json`: each match's id, short id and hits (field, offset and length in
  /// Unicode scalars of the field as stored), and the ids that could not be read.
  public struct SearchJSON {
    private var json = JSONWriter()

    public init() {}

    public mutating func begin() -> [UInt8] {
      json.beginObject()
      json.key("matches")
      json.beginArray()
      return json.take()
    }

    public mutating func add(_ summary: SessionSummary, hits: [TextSearch.Hit]) -> [UInt8] {
      json.beginObject()
      json.key("hits")
      json.beginArray()
      for hit in hits {
        json.beginObject()
        json.key("field")
        json.value(hit.field.jsonName)
        json.key("length")
        json.value(hit.length)
        json.key("offset")
        json.value(hit.offset)
        json.endObject()
      }
      json.endArray()
      json.key("id")
      json.value(summary.id.hex)
      json.key("short_id")
      json.value(summary.id.short)
      json.endObject()
      return json.take()
    }

    public mutating func end(damaged: [SessionID]) -> [UInt8] {
      json.endArray()
      json.key("damaged")
      json.value(ids: damaged)
      json.key("schema_version")
      json.value(schemaVersion)
      json.endDocument()
      return json.take()
    }

  }

  // MARK: - JSON (schema version 1, documented in Docs/USER-GUIDE.md)

  static let schemaVersion = 1

  /// `list --json`: every summary's document, and the ids that could not be read.
  public static func json(list: [SessionSummary], damaged: [SessionID]) -> String {
    var writer = ListJSON()
    var bytes = writer.begin(damaged: damaged)
    for summary in list { bytes += writer.add(summary) }
    bytes += writer.end()
    return String(decoding: bytes, as: UTF8.self)
  }

  /// `list --json` written a summary at a time, as the list is read: `begin` with the ids
  /// that could not be read, `add` for each summary, then `end`, each returning the next
  /// bytes; the same document `json(list:damaged:)` makes (keys sorted: damaged,
  /// schema_version, sessions).
  public struct ListJSON {
    private var json = JSONWriter()

    public init() {}

    public mutating func begin(damaged: [SessionID]) -> [UInt8] {
      json.beginObject()
      json.key("damaged")
      json.value(ids: damaged)
      json.key("schema_version")
      json.value(schemaVersion)
      json.key("sessions")
      json.beginArray()
      return json.take()
    }

    public mutating func add(_ summary: SessionSummary) -> [UInt8] {
      SessionDocument(summary, shortID: true).write(to: &json)
      return json.take()
    }

    public mutating func end() -> [UInt8] {
      json.endArray()
      json.endDocument()
      return json.take()
    }

  }

  /// `show --json` and `new --json`: the whole session's document.
  public static func json(session: Session) -> String {
    struct Detail: Encodable {
      let schema_version: Int
      let session: SessionDocument
    }
    return SessionDocument.text(
      Detail(schema_version: schemaVersion, session: SessionDocument(session, shortID: true)))
  }

  public static func json(trends: Trends) -> String {
    func object(_ row: Trends.Row) -> [String: Any] {
      [
        "name": row.name, "sessions": row.sessions,
        "average_mood_before": row.averageBefore.map { rounded($0) as Any } ?? NSNull(),
        "with_mood_before": row.withBefore,
        "average_mood_after": row.averageAfter.map { rounded($0) as Any } ?? NSNull(),
        "with_mood_after": row.withAfter,
        "average_change": row.averageChange.map { rounded($0) as Any } ?? NSNull(),
      ]
    }
    return encode([
      "schema_version": schemaVersion,
      "closed_without_reflection": trends.closed,
      "overall": object(trends.overall),
      "months": trends.months.map(object),
      "treatments": trends.treatments.map(object),
      "after_sessions": trends.afterSessions.map {
        ["period": $0.period, "notes": $0.notes, "average_mood": rounded($0.average)]
      },
    ])
  }

  private static func rounded(_ value: Double) -> Double { (value * 100).rounded() / 100 }

  /// JSON's null, as a value of an `encode` object.
  public static var null: Any { NSNull() }

  public static func encode(_ object: [String: Any]) -> String {
    guard
      let data = try? JSONSerialization.data(
        withJSONObject: object, options: [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]),
      let text = String(data: data, encoding: .utf8)
    else { return "{}\n" }
    return text + "\n"
  }
}
