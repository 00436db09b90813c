import Foundation
import JournalCore

/// Reads an import file into validated sessions: journal's own JSON export, or a jrnl JSON
/// export (`jrnl --export json`). Any problem refuses the whole file, naming the place; jrnl's
/// own plain-text journal is recognised and refused with the command that exports it.
public struct ImportParser {
  /// What kind of file it was.
  public enum Kind: String, Sendable { case journal, jrnl }

  /// The largest import file read: a generous 256 MiB, so a wrong file cannot exhaust memory.
  public static let maximumBytes = 256 * 1024 * 1024

  let timeZone: TimeZone
  let now: Date

  public init(timeZone: TimeZone, now: Date) {
    self.timeZone = timeZone
    self.now = now
  }

  public func parse(_ data: Data) throws -> (Kind, [Session]) {
    guard data.count <= Self.maximumBytes else {
      throw AppError.importRefused(place: "the file", reason: "is larger than 256 MiB")
    }
    let root: Any
    do {
      root = try JSONSerialization.jsonObject(with: data)
    } catch {
      if Self.isJrnlJournal(data) { throw AppError.importJrnlJournal }
      throw AppError.importRefused(
        place: Self.syntaxPlace(error, data), reason: "is not valid JSON")
    }
    guard let object = root as? [String: Any] else {
      throw AppError.importRefused(place: "the file", reason: "is not a JSON object")
    }
    if object["format"] as? String == Export.formatName { return (.journal, try journal(object)) }
    if object["entries"] is [Any] { return (.jrnl, try jrnl(object)) }
    throw AppError.importRefused(
      place: "the file", reason: "is neither a journal export nor a jrnl JSON export")
  }

  /// "line 3, column 7" from Foundation's "around character N", when it says so.
  static func syntaxPlace(_ error: any Error, _ data: Data) -> String {
    let description = (error as NSError).userInfo["NSDebugDescription"] as? String ?? ""
    if description.contains("end of file") { return "the end of the file" }
    guard let range = description.range(of: #"character \d+"#, options: .regularExpression),
      let offset = Int(description[range].dropFirst("character ".count))
    else { return "the file" }
    var line = 1
    var column = 1
    for byte in data.prefix(offset) {
      if byte == 0x0A {
        line += 1
        column = 1
      } else if byte & 0xC0 != 0x80 {
        column += 1
      }
    }
    return "line \(line), column \(column)"
  }

  /// Whether `data` reads as jrnl's plain-text journal: its first line that is not blank
  /// starts with an entry's date and time, "[2026-11-01 20:00] Title" (jrnl 2 and later,
  /// also with seconds or AM/PM) or "2026-11-01 20:00 Title" (jrnl 1). Only the first 200
  /// bytes are looked at, and nothing of them is kept.
  static func isJrnlJournal(_ data: Data) -> Bool {
    let head = String(decoding: data.prefix(200), as: UTF8.self)
    guard
      let first = head.split(whereSeparator: \.isNewline).first(where: {
        !$0.allSatisfy(\.isWhitespace)
      })
    else { return false }
    let pattern =
      #"^(\[\d{4}-\d{2}-\d{2} \d{1,2}:\d{2}(:\d{2})?( ?[AaPp][Mm])?\]|"#
      + #"\d{4}-\d{2}-\d{2} \d{1,2}:\d{2}(:\d{2})?( ?[AaPp][Mm])? )"#
    return first.range(of: pattern, options: .regularExpression) != nil
  }

  // MARK: - journal's own export

  func journal(_ object: [String: Any]) throws -> [Session] {
    guard let version = object["version"] as? Int else {
      throw AppError.importRefused(place: "version", reason: "is missing or not a number")
    }
    guard version <= Export.version else {
      throw AppError.importVersion(found: version, supported: Export.version)
    }
    guard let items = object["sessions"] as? [Any] else {
      throw AppError.importRefused(place: "sessions", reason: "is missing or not a list")
    }
    var seen: Set<SessionID> = []
    return try items.enumerated().map { index, item in
      let place = "sessions[\(index)]"
      guard let fields = item as? [String: Any] else {
        throw AppError.importRefused(place: place, reason: "is not an object")
      }
      let session = try Self.session(fields, place: place)
      guard seen.insert(session.id).inserted else {
        throw AppError.importRefused(
          place: place + ".id", reason: "repeats an earlier session's id")
      }
      return session
    }
  }

  static func session(_ f: [String: Any], place: String) throws -> Session {
    typealias Key = SessionDocument.Key
    func refuse(_ field: Key, _ reason: String) -> AppError {
      .importRefused(place: "\(place).\(field.rawValue)", reason: reason)
    }
    func string(_ field: Key, required: Bool) throws -> String? {
      switch f[field.rawValue] {
      case let text as String: return text
      case nil, is NSNull:
        if required { throw refuse(field, "is missing") }
        return nil
      default: throw refuse(field, "is not text")
      }
    }
    func time(_ field: Key) throws -> Date {
      guard let text = try string(field, required: true), let date = ISO8601.parse(text) else {
        throw refuse(field, "is not an ISO 8601 date")
      }
      return date
    }
    func mood(_ field: Key, required: Bool) throws -> Mood? {
      switch f[field.rawValue] {
      case let number as Int:
        guard let mood = Mood(number) else { throw refuse(field, "\(number) is outside 1 to 10") }
        return mood
      case nil, is NSNull:
        if required { throw refuse(field, "is missing") }
        return nil
      default: throw refuse(field, "is not a whole number")
      }
    }
    func text(_ field: Field, _ key: Key, multiline: Bool) throws -> String? {
      guard let raw = try string(key, required: false) else { return nil }
      do {
        return try Text.normalise(raw, field: field, multiline: multiline)
      } catch {
        throw refuse(key, Diagnosis.validation(error).message)
      }
    }
    guard let idText = try string(.id, required: true), let id = SessionID(idText) else {
      throw refuse(.id, "is not a 32-digit hex id")
    }
    guard let key = try string(.treatment, required: true) else {
      throw refuse(.treatment, "is missing")
    }
    let treatment: Treatment
    if key == "other" {
      // Checked as typed names are: a length limit, no control characters.
      guard let name = try string(.treatmentName, required: false),
        let parsed = try? Treatment.parse("other:" + name)
      else { throw refuse(.treatmentName, "is missing, too long, or holds control characters") }
      treatment = parsed
    } else {
      guard let known = Treatment(key: key, customName: nil) else {
        throw refuse(.treatment, "is not a known treatment")
      }
      treatment = known
    }
    guard let intention = try text(.intention, .intention, multiline: true) else {
      throw refuse(.intention, "is missing or empty")
    }
    let reflection = try text(.reflection, .reflection, multiline: true)
    let status: SessionStatus = reflection == nil ? .needsReflection : .complete
    if let given = try string(.status, required: false), given != status.rawValue {
      throw refuse(
        .status, "does not match the reflection (a session is complete exactly when it has one)")
    }
    let created = try time(.created)
    let updated = try time(.updated)
    guard created <= updated else { throw refuse(.updated, "is before created") }
    return Session(
      id: id, date: try time(.date), treatment: treatment,
      dose: try text(.dose, .dose, multiline: false), intention: intention,
      // Absent or null: not recorded (a session imported from jrnl, exported again).
      moodBefore: try mood(.moodBefore, required: false),
      environment: try text(.environment, .environment, multiline: true),
      music: try text(.music, .music, multiline: true),
      moodAfter: try mood(.moodAfter, required: false),
      reflection: reflection, created: created, updated: updated, status: status)
  }

  // MARK: - jrnl

  /// A jrnl entry becomes a complete session: its title and body are the reflection, its
  /// date and time are kept (in the local time zone, as jrnl writes them). What jrnl does
  /// not record is marked as such, never invented: the intention reads "(imported from
  /// jrnl; no intention recorded)", the treatment is the first tag naming a known treatment
  /// (@mdma) or else "other: not recorded", and the moods are absent (shown "not recorded",
  /// left out of trends). The id is derived from the entry's date and text, so importing
  /// the same file twice changes nothing.
  func jrnl(_ object: [String: Any]) throws -> [Session] {
    guard let entries = object["entries"] as? [Any] else { return [] }
    var seen: Set<SessionID> = []
    var sessions: [Session] = []
    for (index, item) in entries.enumerated() {
      let place = "entries[\(index)]"
      guard let entry = item as? [String: Any] else {
        throw AppError.importRefused(place: place, reason: "is not an object")
      }
      guard let day = entry["date"] as? String, let clock = entry["time"] as? String else {
        throw AppError.importRefused(place: place + ".date", reason: "is missing its date or time")
      }
      guard let date = try? DateInput(timeZone: timeZone).parseInstant("\(day) \(clock)", now: now)
      else {
        throw AppError.importRefused(place: place + ".date", reason: "is not a date jrnl writes")
      }
      let title = (entry["title"] as? String) ?? ""
      let body = (entry["body"] as? String) ?? ""
      let combined = body.trimmingWhitespace().isEmpty ? title : title + "\n\n" + body
      let reflection: String?
      do {
        reflection = try Text.normalise(combined, field: .reflection, multiline: true)
      } catch {
        throw AppError.importRefused(
          place: place + ".body", reason: Diagnosis.validation(error).message)
      }
      guard let reflection else { continue }  // an empty entry carries nothing to keep
      let tags = (entry["tags"] as? [String] ?? []).map {
        $0.trimmingCharacters(in: ["@"]).lowercased()
      }
      let treatment =
        tags.lazy.compactMap { Treatment(key: $0, customName: nil) }.first
        ?? .other("not recorded")
      let id = Self.derivedID(day: day, clock: clock, text: combined)
      guard seen.insert(id).inserted else { continue }  // jrnl can hold exact duplicates
      sessions.append(
        Session(
          id: id, date: date, treatment: treatment, dose: nil,
          intention: "(imported from jrnl; no intention recorded)",
          moodBefore: nil, environment: nil, music: nil, moodAfter: nil,
          reflection: reflection, created: date, updated: date, status: .complete))
    }
    return sessions
  }

  /// A stable id for a jrnl entry: its date, time and text hashed (FNV-1a over two lanes,
  /// enough to tell entries apart; not a security boundary).
  static func derivedID(day: String, clock: String, text: String) -> SessionID {
    var bytes: [UInt8] = []
    for lane: UInt64 in [0xCBF2_9CE4_8422_2325, 0x8422_2325_CBF2_9CE4] {
      var hash = lane
      for byte in "\(day) \(clock)\n\(text)".utf8 {
        hash ^= UInt64(byte)
        hash = hash &* 0x0000_0100_0000_01B3
      }
      bytes += (0..<8).map { UInt8(truncatingIfNeeded: hash >> (8 * $0)) }
    }
    return SessionID(randomBytes: bytes)
  }
}
