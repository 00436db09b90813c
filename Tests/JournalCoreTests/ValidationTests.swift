import Foundation
import JournalCore
import Testing

struct ValidationTests {
  /// Moods outside 1–10 and non-numbers are refused, each with its own error.
  @Test func moods() throws {
    #expect(try Mood.parse(" 7 ", field: .moodBefore).value == 7)
    #expect(throws: FieldError.moodOutOfRange(field: .moodBefore, value: 0)) {
      try Mood.parse("0", field: .moodBefore)
    }
    #expect(throws: FieldError.moodOutOfRange(field: .moodAfter, value: 11)) {
      try Mood.parse("11", field: .moodAfter)
    }
    #expect(throws: FieldError.moodNotANumber(field: .moodBefore)) {
      try Mood.parse("calm", field: .moodBefore)
    }
  }

  /// Known treatments in any case, custom ones as other:<name>, unknown ones refused with
  /// the nearest known one when there is one, and nothing of what was typed.
  @Test func treatments() throws {
    #expect(try Treatment.parse("MDMA") == .mdma)
    #expect(try Treatment.parse("other: San Pedro") == .other("San Pedro"))
    #expect(try Treatment.parse("other:5-MeO") == .other("5-MeO"))
    #expect(throws: FieldError.unknownTreatment(suggestion: nil)) {
      try Treatment.parse("mushrooms")
    }
    #expect(throws: FieldError.unknownTreatment(suggestion: "psilocybin")) {
      try Treatment.parse("psilocibin")
    }
    #expect(throws: FieldError.unknownTreatment(suggestion: "mdma")) {
      try Treatment.parse(" MDNA ")
    }
    #expect(throws: FieldError.emptyCustomTreatment) { try Treatment.parse("other:") }
    #expect(Treatment(key: "other", customName: "x") == .other("x"))
    #expect(Treatment(key: "nope", customName: nil) == nil)
  }

  /// Texts are trimmed, empty becomes nil, control characters are refused, sizes capped.
  @Test func texts() throws {
    #expect(
      try Text.normalise("  hi \r\nthere \n", field: .reflection, multiline: true) == "hi \nthere")
    #expect(try Text.normalise(" \n ", field: .reflection, multiline: true) == nil)
    #expect(throws: FieldError.controlCharacters(field: .dose)) {
      try Text.normalise("2\u{1B}[31m g", field: .dose, multiline: false)
    }
    #expect(throws: FieldError.controlCharacters(field: .dose)) {
      try Text.normalise("2\ng", field: .dose, multiline: false)
    }
    #expect(throws: FieldError.textTooLong(field: .dose, maximumBytes: 200)) {
      try Text.normalise(String(repeating: "x", count: 201), field: .dose, multiline: false)
    }
    let long = String(repeating: "a reflection that goes on. ", count: 2000)
    #expect(try Text.normalise(long, field: .reflection, multiline: true)?.count == long.count - 1)
  }
}
