import Foundation
import JournalCore
import JournalTerminal

/// The plaintext exports: JSON (every field; what `import` reads back), Markdown (to read
/// and print), and CSV (for spreadsheets, safe against formula injection).
public enum ExportFormat: String, CaseIterable, Sendable {
  case json, markdown, csv
}

public enum Export {
  /// The export document's format name and version; `import` refuses a newer version.
  /// Version 2 (vault format 14) adds `tags` and `notes`: a journal of version 1 would
  /// import such a file without them, so it refuses it instead.
  public static let formatName = "journal-export"
  public static let version = 2

  /// Renders sessions (oldest first, which reads like a diary) in `format`: the whole export
  /// at once, exactly what `Writer` streams.
  public static func render(
    _ sessions: [Session], as format: ExportFormat, exported: Date, timeZone: TimeZone
  ) -> String {
    let ordered = sessions.sorted { $0.date != $1.date ? $0.date < $1.date : $0.id < $1.id }
    var writer = Writer(format: format, exported: exported, timeZone: timeZone)
    var bytes = writer.begin(count: ordered.count)
    for session in ordered { bytes += writer.add(session) }
    bytes += writer.end()
    return String(decoding: bytes, as: UTF8.self)
  }

  public static func json(_ sessions: [Session], exported: Date) -> String {
    render(sessions, as: .json, exported: exported, timeZone: .gmt)
  }

  /// An export written a session at a time, in the order given (oldest first): `begin`, then
  /// `add` for each session, then `end`, each returning the next bytes. What it keeps between
  /// calls does not grow with the sessions.
  public struct Writer {
    let format: ExportFormat
    let exported: Date
    let display: DisplayFormat
    /// Only these fields (a share of chosen fields), or every field (nil: the export that
    /// `import` reads back).
    let fields: Set<Field>?
    private var json = JSONWriter()

    public init(format: ExportFormat, exported: Date, timeZone: TimeZone, fields: Set<Field>? = nil)
    {
      self.format = format
      self.exported = exported
      self.display = DisplayFormat(timeZone: timeZone)
      self.fields = fields
    }

    /// The export's opening, for `count` sessions.
    public mutating func begin(count: Int) -> [UInt8] {
      switch format {
      case .json:
        // The document's keys sorted, as SessionDocument.text writes them.
        json.beginObject()
        json.key("exported")
        json.value(ISO8601.string(exported))
        json.key("format")
        json.value(fields == nil ? formatName : shareFormatName)
        json.key("sessions")
        json.beginArray()
        return json.take()
      case .csv:
        let columns = fields.map { Export.columns(for: $0) } ?? csvColumns
        return Array((columns.joined(separator: ",") + "\r\n").utf8)
      case .markdown:
        let noun = count == 1 ? "session" : "sessions"
        return Array("# Journal\n\nExported \(display.dateTime(exported)) · \(count) \(noun)".utf8)
      }
    }

    /// One session's part.
    public mutating func add(_ session: Session) -> [UInt8] {
      switch format {
      case .json:
        if let fields {
          Export.writeChosen(session, fields, to: &json)
        } else {
          SessionDocument(session, shortID: false).write(to: &json)
        }
        return json.take()
      case .csv: return Array(csvRow(session, fields: fields).utf8)
      case .markdown: return Array(("\n\n" + markdown(session, display, fields: fields)).utf8)
      }
    }

    /// The export's close.
    public mutating func end() -> [UInt8] {
      switch format {
      case .json:
        json.endArray()
        json.key("version")
        json.value(version)
        json.endDocument()
        return json.take()
      case .csv: return []
      case .markdown: return [0x0A]
      }
    }

  }

  // MARK: - CSV

  static let csvColumns = [
    "id", "date", "treatment", "treatment_name", "dose", "intention", "mood_before",
    "environment", "music", "mood_after", "reflection", "status", "created", "updated",
    SessionDocument.Key.addedWithoutPassphrase.rawValue,
    SessionDocument.Key.laterWithoutPassphrase.rawValue,
    SessionDocument.Key.tags.rawValue, SessionDocument.Key.notes.rawValue,
  ]

  /// The columns of the marks of what was written without the passphrase: in every CSV,
  /// whatever fields were chosen (the marks travel wherever the session does).
  static let markColumns = [
    SessionDocument.Key.addedWithoutPassphrase.rawValue,
    SessionDocument.Key.laterWithoutPassphrase.rawValue,
  ]

  /// The notes as one cell: each "written (mood N): text", a blank line between, oldest
  /// first; nil without notes.
  static func notesCell(_ s: Session) -> String? {
    let notes = s.shownNotes
    guard !notes.isEmpty else { return nil }
    return notes.map { note in
      DisplayFormat.iso8601(note.written) + (note.mood.map { " (mood \($0.value))" } ?? "")
        + ": " + note.text
    }.joined(separator: "\n\n")
  }

  /// One session's CSV line, with its CRLF: every column, or only those of `fields`.
  static func csvRow(_ s: Session, fields: Set<Field>? = nil) -> String {
    let cells: [String?] = [
      s.id.hex, DisplayFormat.iso8601(s.date), s.treatment.key, s.treatment.customName, s.dose,
      s.intention, s.moodBefore.map { String($0.value) }, s.environment, s.music,
      s.moodAfter.map { String($0.value) }, s.reflection, s.status.rawValue,
      DisplayFormat.iso8601(s.created), DisplayFormat.iso8601(s.updated),
      s.addedSealed.map(DisplayFormat.iso8601), s.laterSealed.map(DisplayFormat.iso8601),
      s.tags.isEmpty ? nil : s.tags.joined(separator: ", "), notesCell(s),
    ]
    let chosen = fields.map { fields in
      zip(csvColumns, cells).filter { column, _ in columns(for: fields).contains(column) }.map(
        \.1)
    }
    return (chosen ?? cells).map { csvCell($0 ?? "") }.joined(separator: ",") + "\r\n"
  }

  // MARK: - Chosen fields (journal share, export --fields)

  /// A document of chosen fields is not an export `import` reads back: it says so.
  public static let shareFormatName = "journal-share"

  /// The CSV columns (and JSON keys) of chosen fields, in the export's order; a treatment
  /// brings its custom name.
  static func columns(for fields: Set<Field>) -> [String] {
    csvColumns.filter { column in
      switch column {
      case "treatment_name": fields.contains(.treatment)
      case _ where markColumns.contains(column): true
      default: fields.contains { $0.jsonName == column || $0.rawValue == column }
      }
    }
  }

  /// One session with only the chosen fields, keys sorted; an empty field is null.
  static func writeChosen(_ s: Session, _ fields: Set<Field>, to json: inout JSONWriter) {
    enum Value {
      case text(String?), number(Int?), notes([SessionDocument.NoteDocument])
    }
    var values: [String: Value] = [:]
    for field in fields {
      switch field {
      case .date: values["date"] = .text(ISO8601.string(s.date))
      case .treatment:
        values["treatment"] = .text(s.treatment.key)
        values["treatment_name"] = .text(s.treatment.customName)
      case .dose: values["dose"] = .text(s.dose)
      case .intention: values["intention"] = .text(s.intention)
      case .moodBefore: values["mood_before"] = .number(s.moodBefore?.value)
      case .environment: values["environment"] = .text(s.environment)
      case .music: values["music"] = .text(s.music)
      case .moodAfter: values["mood_after"] = .number(s.moodAfter?.value)
      case .reflection: values["reflection"] = .text(s.reflection)
      case .notes: values["notes"] = .notes(s.shownNotes.map(SessionDocument.NoteDocument.init))
      }
    }
    // The marks go with the session whatever fields were chosen, when it has them.
    typealias Key = SessionDocument.Key
    if let time = s.addedSealed {
      values[Key.addedWithoutPassphrase.rawValue] = .text(ISO8601.string(time))
    }
    if let time = s.laterSealed {
      values[Key.laterWithoutPassphrase.rawValue] = .text(ISO8601.string(time))
    }
    json.beginObject()
    for (key, value) in values.sorted(by: { $0.key < $1.key }) {
      json.key(key)
      switch value {
      case .text(let text): json.value(text)
      case .number(let number): json.value(number)
      case .notes(let notes):
        json.beginArray()
        for note in notes { note.write(to: &json) }
        json.endArray()
      }
    }
    json.endObject()
  }

  /// One RFC 4180 cell. A text a spreadsheet would run as a formula (starting with =, +, -,
  /// @, a tab or a carriage return) is prefixed with ' so it stays text (OWASP's advice).
  static func csvCell(_ text: String) -> String {
    // By bytes, not Characters: every cell of every session is looked at, and comparing
    // grapheme clusters was most of a CSV export. The bytes that matter are all ASCII.
    let utf8 = text.utf8
    let formulaStarts: [UInt8] = [0x3D, 0x2B, 0x2D, 0x40, 0x09, 0x0D]  // = + - @ tab CR
    let formula = utf8.first.map { formulaStarts.contains($0) } ?? false
    let quoted = utf8.contains { (byte: UInt8) -> Bool in
      byte == 0x2C || byte == 0x22 || byte == 0x0A || byte == 0x0D
    }
    guard formula || quoted else { return text }
    var out: [UInt8] = []
    out.reserveCapacity(utf8.count + 4)
    if quoted { out.append(0x22) }
    if formula { out.append(0x27) }
    for byte in utf8 {
      out.append(byte)
      if quoted, byte == 0x22 { out.append(0x22) }
    }
    if quoted { out.append(0x22) }
    return String(decoding: out, as: UTF8.self)
  }

  // MARK: - Markdown

  /// One session's Markdown blocks, from its rule on: every field, or only `fields`.
  static func markdown(_ s: Session, _ format: DisplayFormat, fields: Set<Field>? = nil)
    -> String
  {
    let has = { (field: Field) in fields?.contains(field) ?? true }
    var blocks = ["---"]
    let heading = [
      has(.date) ? format.dateTime(s.date) : nil, has(.treatment) ? s.treatment.displayName : nil,
      has(.dose) ? s.dose : nil,
    ].compactMap { $0 }
    blocks.append("## " + (heading.isEmpty ? "A session" : heading.joined(separator: " · ")))
    if fields == nil {
      let status = s.status.label.prefix(1).uppercased() + s.status.label.dropFirst()
      let moods =
        "mood \(s.moodBefore.map { String($0.value) } ?? "not recorded")"
        + (s.moodAfter.map { " → \($0.value)" } ?? "")
      blocks.append(
        "*\(status)* · \(moods) · id `\(s.id.short)`"
          + (s.tags.isEmpty ? "" : " · tags: " + s.tags.joined(separator: ", ")))
    } else if has(.moodBefore) || has(.moodAfter) {
      let before = has(.moodBefore) ? s.moodBefore.map { String($0.value) } ?? "not recorded" : nil
      let after = has(.moodAfter) ? s.moodAfter.map { String($0.value) } ?? "not yet" : nil
      blocks.append(
        [before.map { "mood before \($0)" }, after.map { "mood after \($0)" }].compactMap { $0 }
          .joined(separator: " · "))
    }
    if has(.intention) { blocks += ["### Before", "**Intention**", s.intention] }
    let environment = has(.environment) ? s.environment : nil
    let music = has(.music) ? s.music : nil
    if environment != nil || music != nil {
      blocks.append("### Setting")
      if let environment { blocks.append("**Environment:** \(environment)") }
      if let music { blocks.append("**Music:** \(music)") }
    }
    if has(.reflection), let reflection = s.reflection {
      blocks += ["### Reflection", reflection]
    }
    if has(.notes), !s.shownNotes.isEmpty {
      blocks.append("### Notes")
      for note in s.shownNotes {
        blocks += [
          "**\(format.dateTime(note.written))**" + (note.mood.map { " · mood \($0.value)" } ?? ""),
          note.text,
        ]
      }
    }
    blocks += Render.marks(s.summary, format).map { "*\($0).*" }
    return blocks.joined(separator: "\n\n")
  }
}
