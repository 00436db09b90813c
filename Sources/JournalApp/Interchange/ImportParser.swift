import Foundation
import JournalCore
import JournalDiagnostics

/// Reads an import file into validated sessions: journal's own JSON export, or a jrnl JSON
/// export (`jrnl --export json`). Any problem refuses the whole file, naming the place; jrnl's
/// own plain-text journal is recognised and refused with the command that exports it.
public struct ImportParser {
  /// What kind of file it was.
  public enum Kind: String, Sendable { case journal, jrnl }

  /// The largest single value read (one session's JSON): its four long texts at their
  /// limit of 1 MiB each, every byte escaped, fit.
  public static let maximumValueBytes = 32 * 1024 * 1024

  let timeZone: TimeZone
  let now: Date

  public init(timeZone: TimeZone, now: Date) {
    self.timeZone = timeZone
    self.now = now
  }

  /// Parses a whole file in memory (tests, the fuzzer): the same reading as `parse(_:_:)`.
  public func parse(_ data: Data) throws -> (Kind, [Session]) {
    var stream = JSONStream(Array(data))
    var sessions: [Session] = []
    let kind = try parse(&stream) { sessions.append($0) }
    return (kind, sessions)
  }

  /// Reads the file a session at a time, handing each valid session to `take` as it is
  /// read; what kind of file it was. Any problem throws, naming the place: the caller undoes
  /// what `take` did (import writes in one transaction), so a file is taken all or nothing.
  ///
  /// The keys of journal's export come sorted ("format" before "sessions", "version" after),
  /// so a session is read before the version is: a problem in a session is remembered, the
  /// rest of the file is read for its structure only, and the version is judged first.
  func parse(_ stream: inout JSONStream, _ take: (Session) throws -> Void) throws -> Kind {
    do {
      return try parseDocument(&stream, take)
    } catch let failure as JSONStream.Failure {
      switch failure {
      case .syntax(let line, let column):
        if Self.isJrnlJournal(stream.head) { throw AppError.importJrnlJournal }
        throw AppError.importRefused(
          place: "line \(line), column \(column)", reason: "is not valid JSON")
      case .endOfFile:
        if Self.isJrnlJournal(stream.head) { throw AppError.importJrnlJournal }
        throw AppError.importRefused(place: "the end of the file", reason: "is not valid JSON")
      case .tooLarge(let line):
        throw AppError.importRefused(
          place: "the value starting on line \(line)", reason: "is larger than 32 MiB")
      case .unreadable:
        throw AppError.importRefused(place: "the file", reason: "cannot be read")
      }
    }
  }

  /// The keys of a document's top level that are read; any other is skipped.
  static let documentKeys: Set<String> = ["format", "version", "sessions", "entries"]

  private func parseDocument(_ stream: inout JSONStream, _ take: (Session) throws -> Void) throws
    -> Kind
  {
    let limit = Self.maximumValueBytes
    try stream.skipByteOrderMark()
    guard let first = try stream.skipSpace() else { throw JSONStream.Failure.endOfFile }
    guard first == UInt8(ascii: "{") else {
      if first == UInt8(ascii: "[") || first == UInt8(ascii: "\"") {
        _ = try JSONStream.parse(try stream.value(limit: limit))
        throw AppError.importRefused(place: "the file", reason: "is not a JSON object")
      }
      throw JSONStream.Failure.syntax(line: stream.line, column: stream.column)
    }
    try stream.expect(UInt8(ascii: "{"))
    var format: Any?
    var version: Any?
    var seenKeys: Set<String> = []
    var sessions: Bool?  // nil: absent; false: not a list; true: read
    var entries: Bool?
    var problem: (any Error)?
    var seen: Set<SessionID> = []  // jrnl's: an entry repeated exactly is skipped
    var ids = IDs()
    if try stream.skipSpace() == UInt8(ascii: "}") {
      try stream.expect(UInt8(ascii: "}"))
    } else {
      repeat {
        let key = try JSONStream.parse(try stream.value(limit: limit)) as? String
        guard let key else {
          throw JSONStream.Failure.syntax(line: stream.line, column: stream.column)
        }
        try stream.expect(UInt8(ascii: ":"))
        // The keys read are held, and a repeat refused, only where a repeat could change
        // what is read; any other key is skipped, as often as it comes (holding every one
        // would take memory without bound, and its text, the file's, is never shown).
        if Self.documentKeys.contains(key) {
          guard seenKeys.insert(key).inserted else {
            throw AppError.importRefused(place: key, reason: "appears twice")
          }
        }
        let list = key == "sessions" || key == "entries"
        if list, try stream.skipSpace() == UInt8(ascii: "[") {
          try stream.expect(UInt8(ascii: "["))
          if key == "sessions" { sessions = true } else { entries = true }
          var index = 0
          if try stream.skipSpace() == UInt8(ascii: "]") {
            try stream.expect(UInt8(ascii: "]"))
          } else {
            repeat {
              let value = try stream.value(limit: limit)
              // A session is nearly always a flat object, read quickly (see FlatJSON).
              let flat = key == "sessions" ? FlatJSON.object(value.bytes) : nil
              let item = try flat ?? JSONStream.parse(value)
              defer { index += 1 }
              guard problem == nil else { continue }
              do {
                let session: Session?
                if key == "sessions" {
                  session = try journalSession(item, place: "sessions[\(index)]")
                  if let session { ids.append(session.id) }
                } else {
                  session = try jrnlSession(item, place: "entries[\(index)]", seen: &seen)
                }
                if let session { try take(session) }
              } catch let error as AppError {
                problem = error
              }
            } while try stream.expectOne(of: [UInt8(ascii: ","), UInt8(ascii: "]")])
              == UInt8(ascii: ",")
          }
        } else {
          let value = try JSONStream.parse(try stream.value(limit: limit))
          switch key {
          case "format": format = value
          case "version": version = value
          case "sessions": sessions = false
          case "entries": entries = false
          default: break
          }
        }
      } while try stream.expectOne(of: [UInt8(ascii: ","), UInt8(ascii: "}")]) == UInt8(ascii: ",")
    }
    if try stream.skipSpace() != nil {
      throw JSONStream.Failure.syntax(line: stream.line, column: stream.column)
    }
    if format as? String == Export.formatName {
      guard let version = version.flatMap(Self.wholeNumber) else {
        throw AppError.importRefused(place: "version", reason: "is missing or not a number")
      }
      guard version <= Export.version else {
        throw AppError.importVersion(found: version, supported: Export.version)
      }
      if let problem { throw problem }
      guard sessions == true else {
        throw AppError.importRefused(place: "sessions", reason: "is missing or not a list")
      }
      guard entries == nil else {
        throw AppError.importRefused(place: "entries", reason: "has no place in a journal export")
      }
      if let index = ids.firstRepeat() {
        throw AppError.importRefused(
          place: "sessions[\(index)].id", reason: "repeats an earlier session's id")
      }
      return .journal
    }
    guard entries == true, sessions == nil else {
      throw AppError.importRefused(
        place: "the file", reason: "is neither a journal export nor a jrnl JSON export")
    }
    if let problem { throw problem }
    return .jrnl
  }

  /// "line 3, column 7" from Foundation's "around character N", when it says so.
  static func syntaxPlace(_ error: any Error, _ data: Data) -> String {
    let description = (error as NSError).userInfo["NSDebugDescription"] as? String ?? ""
    if description.contains("end of file") { return "the end of the file" }
    guard let offset = syntaxOffset(error, data) else { return "the file" }
    return "line \(offset.line), column \(offset.column)"
  }

  /// The line and column (from 1) of Foundation's "around character N", when it says so.
  static func syntaxOffset(_ error: any Error, _ data: Data) -> (line: Int, column: Int)? {
    let description = (error as NSError).userInfo["NSDebugDescription"] as? String ?? ""
    guard let range = description.range(of: #"character \d+"#, options: .regularExpression),
      let offset = Int(description[range].dropFirst("character ".count))
    else { return nil }
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
    return (line, column)
  }

  /// Whether `data` reads as jrnl's plain-text journal: its first line that is not blank
  /// starts with an entry's date and time, "[2026-11-01 20:00] Title" (jrnl 2 and later,
  /// also with seconds or AM/PM) or "2026-11-01 20:00 Title" (jrnl 1). Only the first 200
  /// bytes are looked at, and nothing of them is kept.
  static func isJrnlJournal(_ data: [UInt8]) -> Bool {
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

  /// One element of an export's "sessions".
  func journalSession(_ item: Any, place: String) throws -> Session {
    guard let fields = item as? [String: Any] else {
      throw AppError.importRefused(place: place, reason: "is not an object")
    }
    return try Self.session(fields, place: place)
  }

  /// The ids of an export's sessions in the order read, to find a repeated one once all
  /// are read (the import is still undone then): 20 bytes a session, where a set that
  /// caught it at once took 32 to 48.
  struct IDs {
    private var ids: [SessionID] = []

    mutating func append(_ id: SessionID) { ids.append(id) }

    /// The index of the first session whose id an earlier one has, if any.
    func firstRepeat() -> Int? {
      var order = [UInt32](0..<UInt32(ids.count))
      order.sort { ids[Int($0)] != ids[Int($1)] ? ids[Int($0)] < ids[Int($1)] : $0 < $1 }
      var first: Int?
      for index in order.indices.dropFirst()
      where ids[Int(order[index])] == ids[Int(order[index - 1])] {
        first = min(first ?? Int.max, Int(order[index]))
      }
      return first
    }
  }

  /// A JSON whole number, and only that: Foundation hands `true` and `false` over as numbers
  /// too (and `as? Int` reads `true` as 1), so a boolean, like a fraction or text, is not one.
  static func wholeNumber(_ value: Any) -> Int? {
    guard let number = value as? NSNumber, String(cString: number.objCType) != "c",
      number.doubleValue.rounded() == number.doubleValue, abs(number.doubleValue) < 1e15
    else { return nil }
    return number.intValue
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
      case nil, is NSNull:
        if required { throw refuse(field, "is missing") }
        return nil
      case let value?:
        guard let number = wholeNumber(value) else { throw refuse(field, "is not a whole number") }
        guard let mood = Mood(number) else { throw refuse(field, "\(number) is outside 1 to 10") }
        return mood
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
    var status: SessionStatus = reflection == nil ? .needsReflection : .complete
    if let given = try string(.status, required: false), given != status.rawValue {
      // Closed: left without a reflection on purpose.
      guard reflection == nil, given == SessionStatus.closed.rawValue else {
        throw refuse(
          .status,
          "does not match the reflection (a session is complete exactly when it has one, "
            + "and closed only without one)")
      }
      status = .closed
    }
    let created = try time(.created)
    let updated = try time(.updated)
    guard created <= updated else { throw refuse(.updated, "is before created") }
    let conflicts = try keptConflicts(f[Key.conflicts.rawValue]) { refuse(.conflicts, $0) }
    // The marks of what was written without the passphrase: kept as the file has them, and
    // never made up (absent or null: not marked).
    func mark(_ field: Key) throws -> Date? {
      guard let text = try string(field, required: false) else { return nil }
      guard let date = ISO8601.parse(text) else { throw refuse(field, "is not an ISO 8601 date") }
      return date
    }
    return Session(
      id: id, date: try time(.date), treatment: treatment,
      dose: try text(.dose, .dose, multiline: false), intention: intention,
      // Absent or null: not recorded (a session imported from jrnl, exported again).
      moodBefore: try mood(.moodBefore, required: false),
      environment: try text(.environment, .environment, multiline: true),
      music: try text(.music, .music, multiline: true),
      moodAfter: try mood(.moodAfter, required: false),
      reflection: reflection, created: created, updated: updated, status: status,
      addedSealed: try mark(.addedWithoutPassphrase),
      laterSealed: try mark(.laterWithoutPassphrase), conflicts: conflicts,
      tags: try tags(f[Key.tags.rawValue]) { refuse(.tags, $0) },
      notes: try notes(f[Key.notes.rawValue]) { refuse(.notes, $0) })
  }

  /// Tags as an export writes them: a list of names, each checked as a typed one is.
  static func tags(_ value: Any?, refuse: (String) -> AppError) throws -> [String] {
    guard let value, !(value is NSNull) else { return [] }
    guard let list = value as? [Any] else { throw refuse("is not a list of tags") }
    var tags: [String] = []
    for item in list {
      guard let name = item as? String, let tag = try? Tag.normalise(name) else {
        throw refuse("holds a tag that is empty, too long, or holds a comma or control characters")
      }
      tags.append(tag)
    }
    do {
      return try Tag.set(tags)
    } catch {
      throw refuse(Diagnosis.validation(error).message)
    }
  }

  /// Integration notes as an export writes them, oldest first: each with its id and version
  /// (16 hex digits; a hand-written note without them gets new ones), when it was written
  /// and corrected, its mood and its text, checked as a typed note is.
  static func notes(_ value: Any?, refuse: (String) -> AppError) throws -> [Note] {
    guard let value, !(value is NSNull) else { return [] }
    guard let list = value as? [[String: Any]] else { throw refuse("is not a list of objects") }
    guard list.count <= Note.maximumCount else {
      throw refuse("holds more than \(Note.maximumCount) notes")
    }
    var notes: [Note] = []
    for (index, item) in list.enumerated() {
      let place = "note \(index + 1)"
      func hex(_ key: String) throws -> UInt64? {
        guard let text = item[key], !(text is NSNull) else { return nil }
        guard let text = text as? String, text.utf8.count == 16,
          text.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }),
          let value = UInt64(text, radix: 16)
        else { throw refuse("\(place): \(key) is not 16 hex digits") }
        return value
      }
      func time(_ key: String, required: Bool) throws -> Date? {
        guard let text = item[key], !(text is NSNull) else {
          if required { throw refuse("\(place): \(key) is missing") }
          return nil
        }
        guard let text = text as? String, let date = ISO8601.parse(text) else {
          throw refuse("\(place): \(key) is not an ISO 8601 date")
        }
        // Within the years a vault stores (0001 to 9999), as it will be read back.
        let millis = (date.timeIntervalSince1970 * 1000).rounded()
        guard millis >= Double(StoredRange.millis.lowerBound),
          millis <= Double(StoredRange.millis.upperBound)
        else {
          throw refuse("\(place): \(key) is outside the years 0001 to 9999")
        }
        return Note.stored(date)
      }
      guard let raw = item["text"] as? String, let text = try? Note.normalise(raw) else {
        throw refuse("\(place): the text is missing, empty, too long or holds control characters")
      }
      var mood: Mood?
      if let given = item["mood"], !(given is NSNull) {
        guard let number = wholeNumber(given), let value = Mood(number) else {
          throw refuse("\(place): mood is not a whole number from 1 to 10")
        }
        mood = value
      }
      guard let written = try time("written", required: true) else { continue }
      // A correction is never before the note it corrects.
      let edited = try time("edited", required: false).map { max($0, written) }
      // A note written by hand, without an id or version: both made from what it holds, so
      // that importing the same file again gives the same note, never a second one.
      let made = fnv1a(
        Array("\(index)\n\(ISO8601.string(written))\n\(mood?.value ?? 0)\n\(text)".utf8))
      let sealed = item["added_without_passphrase"]
      guard
        sealed == nil || sealed is NSNull
          || (sealed as? NSNumber).map({
            String(cString: $0.objCType) == "c"
          }) == true
      else { throw refuse("\(place): added_without_passphrase is not true or false") }
      notes.append(
        Note(
          id: Note.ID(try hex("id") ?? made), written: written, edited: edited, mood: mood,
          text: text, deleted: nil, purgeAfter: nil,
          addedSealed: (sealed as? Bool) ?? false, keptFrom: try hex("kept_from").map(Note.ID.init),
          versions: [try hex("version") ?? fnv1a(Array("version \(made)".utf8))]))
    }
    guard Set(notes.map(\.id)).count == notes.count else {
      throw refuse("holds two notes with the same id")
    }
    return notes.sorted { ($0.written, $0.id) < ($1.written, $1.id) }
  }

  /// FNV-1a, 64 bits: a stable number from bytes (an identity, not a secret).
  static func fnv1a(_ bytes: [UInt8]) -> UInt64 {
    bytes.reduce(0xcbf2_9ce4_8422_2325) { ($0 ^ UInt64($1)) &* 0x0000_0100_0000_01B3 }
  }

  /// Kept conflicts as an export writes them: texts of intention, dose, environment, music
  /// or reflection, each with when it was written (its stamp: that time, on no device).
  static func keptConflicts(
    _ value: Any?, refuse: (String) -> AppError
  ) throws -> [Conflict] {
    guard let value, !(value is NSNull) else { return [] }
    guard let list = value as? [[String: Any]] else { throw refuse("is not a list of objects") }
    return try list.enumerated().map { index, item in
      guard let name = item["field"] as? String, let field = Field(rawValue: name),
        SyncField(field)?.keepsLoser == true
      else { throw refuse("names a field that keeps no conflicts") }
      guard let raw = item["text"] as? String,
        let text = try? Text.normalise(raw, field: field, multiline: true)
      else { throw refuse("holds a text that is missing, too long or not text") }
      guard let writtenText = item["written"] as? String, let written = ISO8601.parse(writtenText)
      else { throw refuse("has a time that is not an ISO 8601 date") }
      let millis = UInt64(max(0, (written.timeIntervalSince1970 * 1000).rounded()))
      // Written on no device; the counter keeps two of the same millisecond apart.
      return Conflict(
        field: field, text: text,
        stamp: SyncStamp(
          time: millis, counter: UInt32(index), device: [UInt8](repeating: 0, count: 16)))
    }
  }

  // MARK: - jrnl

  /// A jrnl entry becomes a complete session: its title and body are the reflection, its
  /// date and time are kept (in the local time zone, as jrnl writes them). What jrnl does
  /// not record is marked as such, never invented: the intention reads "(imported from
  /// jrnl; no intention recorded)", the treatment is the first tag naming a known treatment
  /// (@mdma) or else "other: not recorded", and the moods are absent (shown "not recorded",
  /// left out of trends). The id is derived from the entry's date and text, so importing
  /// the same file twice changes nothing.
  func jrnlSession(_ item: Any, place: String, seen: inout Set<SessionID>) throws -> Session? {
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
    guard let reflection else { return nil }  // an empty entry carries nothing to keep
    let tags = (entry["tags"] as? [String] ?? []).map {
      $0.trimmingCharacters(in: ["@"]).lowercased()
    }
    let treatment =
      tags.lazy.compactMap { Treatment(key: $0, customName: nil) }.first
      ?? .other("not recorded")
    let id = Self.derivedID(day: day, clock: clock, text: combined)
    guard seen.insert(id).inserted else { return nil }  // jrnl can hold exact duplicates
    return Session(
      id: id, date: date, treatment: treatment, dose: nil,
      intention: "(imported from jrnl; no intention recorded)",
      moodBefore: nil, environment: nil, music: nil, moodAfter: nil,
      reflection: reflection, created: date, updated: date, status: .complete)
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
      bytes.append(littleEndian: hash)
    }
    return SessionID(randomBytes: bytes)
  }
}
