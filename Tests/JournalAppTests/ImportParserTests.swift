import Foundation
import JournalApp
import JournalCore
import JournalDiagnostics
import JournalTerminal
import JournalTestSupport
import Testing

struct ImportParserTests {
  let parser = ImportParser(timeZone: .gmt, now: TestClock.reference)

  static let fixture: Data = {
    let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .appendingPathComponent("../Fixtures/jrnl-4.6-export.json").standardized
    return (try? Data(contentsOf: path)) ?? Data()
  }()

  /// A real jrnl 4.6 export: every entry becomes a complete session, text and date kept,
  /// a treatment tag used, the rest marked as not recorded (the mood before is absent, never
  /// a number jrnl did not have); ids are stable.
  @Test func jrnlFixture() throws {
    let (kind, sessions) = try parser.parse(Self.fixture)
    #expect(kind == .jrnl)
    #expect(sessions.count == 4)
    let first = try #require(sessions.first)
    #expect(first.treatment == .psilocybin)
    #expect(
      first.reflection
        == "First @psilocybin session.\n\nThe room felt enormous and safe; I cried for a long time and then laughed."
    )
    #expect(DisplayFormat.iso8601(first.date) == "2026-11-01T20:00:00.000Z")
    #expect(first.status == .complete)
    #expect(sessions.allSatisfy { $0.moodBefore == nil && $0.moodAfter == nil })
    #expect(first.intention == "(imported from jrnl; no intention recorded)")
    #expect(sessions[1].treatment == .mdma)
    #expect(sessions[2].treatment == .other("not recorded"))
    #expect(sessions[3].reflection?.hasPrefix("Ünïcödé check — ✨ and 日本語") == true)
    let again = try parser.parse(Self.fixture).1
    #expect(again.map(\.id) == sessions.map(\.id))
    #expect(Set(sessions.map(\.id)).count == 4)
  }

  func document(_ session: [String: Any], version: Int = 1) -> Data {
    let object: [String: Any] = [
      "format": "journal-export", "version": version, "sessions": [session],
    ]
    return (try? JSONSerialization.data(withJSONObject: object)) ?? Data()
  }

  var valid: [String: Any] {
    [
      "id": "3f2a1b2c4d5e4f60a1b2c3d4e5f60718", "date": "2026-11-20T18:00:00.000Z",
      "treatment": "lsd", "treatment_name": NSNull(), "dose": "100 µg", "intention": "to see",
      "mood_before": 5, "environment": NSNull(), "music": NSNull(), "mood_after": 8,
      "reflection": "seen", "status": "complete", "created": "2026-11-20T18:01:00.000Z",
      "updated": "2026-11-21T09:00:00.000Z",
    ]
  }

  /// Our own export reads back with every field.
  @Test func ownFormat() throws {
    let (kind, sessions) = try parser.parse(document(valid))
    #expect(kind == .journal)
    let s = try #require(sessions.first)
    #expect(s.treatment == .lsd && s.dose == "100 µg" && s.moodAfter == Mood(8))
    #expect(s.status == .complete)
  }

  /// A session with no mood before (one imported from jrnl, exported again) reads back
  /// without one; a missing or null mood before is "not recorded", not a refusal.
  @Test func ownFormatWithoutMoodBefore() throws {
    var unrecorded = valid
    unrecorded["mood_before"] = NSNull()
    let s = try #require(try parser.parse(document(unrecorded)).1.first)
    #expect(s.moodBefore == nil)
    unrecorded.removeValue(forKey: "mood_before")
    #expect(try parser.parse(document(unrecorded)).1.first?.moodBefore == nil)
  }

  /// jrnl's own journal file (plain text, not its JSON export) is recognised, in the
  /// bracketed form jrnl 2 and later write and the older bare one, and refused with words
  /// that say how to export it; nothing of the file is in them.
  @Test func jrnlPlainTextFile() {
    let files = [
      "[2026-11-01 20:00] First session, secret words.\nThe room felt enormous.\n\n"
        + "[2026-11-08 19:30] Integration walk.\n",
      "\n2026-11-01 20:00 First session, secret words.\nThe room felt enormous.\n",
      "[2026-11-01 08:00 PM] First session, secret words.\n",
    ]
    for file in files {
      #expect(throws: AppError.importJrnlJournal) { try parser.parse(Data(file.utf8)) }
    }
    let words = Diagnosis(AppError.importJrnlJournal)
    #expect(words.exitCode == .usage)
    #expect(words.message == "nothing was imported: this is a jrnl journal file, not its export")
    #expect(
      words.hint == #"export it with "jrnl --export json > journal.json" and import that file"#)
    #expect(
      throws: AppError.importRefused(place: "line 1, column 1", reason: "is not valid JSON")
    ) { try parser.parse(Data("First session 2026-11-01 20:00\n".utf8)) }
  }

  /// Fractions of a second longer than milliseconds are read to the millisecond; a very long
  /// one is refused, never handed to ICU (whose parser crashed on it: found by the fuzzer).
  @Test func longFractionsOfASecond() throws {
    var micro = valid
    micro["updated"] = "2026-11-21T09:00:00.123456Z"
    let session = try #require(try parser.parse(document(micro)).1.first)
    #expect(session.updated.timeIntervalSince1970 == 1_795_251_600.123)
    var long = valid
    long["updated"] = "2026-11-21T09:00:00.0222222222222222200Z"
    #expect(try parser.parse(document(long)).1.count == 1)
    var huge = valid
    huge["updated"] = "2026-11-18T11:07:40." + String(repeating: "2", count: 70) + "00Z"
    #expect(
      throws: AppError.importRefused(
        place: "sessions[0].updated", reason: "is not an ISO 8601 date")
    ) { try parser.parse(document(huge)) }
  }

  /// Each kind of malformed file is refused whole, naming the place and what is wrong.
  /// A byte order mark, which some editors write at the start of a file, is skipped.
  @Test func byteOrderMark() throws {
    let plain = document(valid)
    let (kind, sessions) = try parser.parse(Data([0xEF, 0xBB, 0xBF]) + plain)
    #expect(kind == .journal && sessions.count == 1)
  }

  @Test func malformed() throws {
    func refusal(_ data: Data) -> AppError? {
      do {
        _ = try parser.parse(data)
        return nil
      } catch {
        return error as? AppError
      }
    }
    var wrongType = valid
    wrongType["mood_before"] = "five"
    #expect(
      refusal(document(wrongType))
        == .importRefused(place: "sessions[0].mood_before", reason: "is not a whole number"))
    // JSON's true and false are not numbers, though Foundation hands them over as such.
    for value: Any in [true, false, 5.5] {
      var boolean = valid
      boolean["mood_before"] = value
      #expect(
        refusal(document(boolean))
          == .importRefused(place: "sessions[0].mood_before", reason: "is not a whole number"),
        "\(value)")
    }
    let trueVersion: [String: Any] = [
      "format": "journal-export", "version": true, "sessions": [valid],
    ]
    #expect(
      refusal(try JSONSerialization.data(withJSONObject: trueVersion))
        == .importRefused(place: "version", reason: "is missing or not a number"))
    var outOfRange = valid
    outOfRange["mood_after"] = 11
    #expect(
      refusal(document(outOfRange))
        == .importRefused(place: "sessions[0].mood_after", reason: "11 is outside 1 to 10"))
    var huge = valid
    huge["intention"] = String(repeating: "x", count: 1_048_577)
    #expect(
      refusal(document(huge))
        == .importRefused(
          place: "sessions[0].intention", reason: "the intention is longer than 1 MiB"))
    var contradiction = valid
    contradiction["status"] = "needs_reflection"
    #expect(refusal(document(contradiction))?.isRefusal(at: "sessions[0].status") == true)
    var escape = valid
    escape["treatment"] = "other"
    escape["treatment_name"] = "\u{1B}]52;c;aGk=\u{07}"
    #expect(refusal(document(escape))?.isRefusal(at: "sessions[0].treatment_name") == true)
    var noID = valid
    noID["id"] = "not an id"
    #expect(
      refusal(document(noID))
        == .importRefused(place: "sessions[0].id", reason: "is not a 32-digit hex id"))
    #expect(refusal(document(valid, version: 3)) == .importVersion(found: 3, supported: 2))
    let twice: [String: Any] = [
      "format": "journal-export", "version": 1, "sessions": [valid, valid],
    ]
    #expect(
      refusal(try JSONSerialization.data(withJSONObject: twice))
        == .importRefused(place: "sessions[1].id", reason: "repeats an earlier session's id"))
    let text = String(decoding: document(valid), as: UTF8.self)
    #expect(
      refusal(Data(text.prefix(text.count / 2).utf8))
        == .importRefused(place: "the end of the file", reason: "is not valid JSON"))
    #expect(
      refusal(Data("{\n  \"format\": \"journal-export\",\n  \"version\": tru\n}".utf8))
        == .importRefused(place: "line 3, column 17", reason: "is not valid JSON"))
    #expect(
      refusal(Data("[1, 2]".utf8))
        == .importRefused(place: "the file", reason: "is not a JSON object"))
  }

  /// CSV cells that a spreadsheet would run as formulas stay text.
  @Test func csvInjection() {
    let row = ExportSample.csvCells([
      "=1+1", "+cmd", "-2", "@SUM(A1)", "plain", "a,b", "say \"hi\"",
    ])
    #expect(
      row == ["'=1+1", "'+cmd", "'-2", "'@SUM(A1)", "plain", "\"a,b\"", "\"say \"\"hi\"\"\""])
  }
}

extension AppError {
  fileprivate func isRefusal(at place: String) -> Bool {
    if case .importRefused(let at, _) = self { return at == place }
    return false
  }
}
