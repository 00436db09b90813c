import Foundation
import JournalApp
import JournalCore
import JournalTerminal
import JournalTestSupport
import Testing

struct FormsTests {
  /// The "Now" form takes defaults on Enter, asks again after a bad answer (with the reason,
  /// never the answer), and fills every field.
  @Test func nowForm() throws {
    // Given
    let f = try AppFixture()
    let terminal = ScriptedTerminal([
      .line(""), .line("mushrooms"), .line("LSD"), .line("100 µg"),
      .text("to meet what comes\nwith care"), .line("11"), .line("6"),
    ])
    var draft = SessionDraft(id: f.context.newSessionID())
    // When
    try Forms(terminal: terminal, context: f.context).fillNow(&draft, skipping: [])
    // Then
    #expect(draft.date == f.clock.read())
    #expect(draft.treatment == .lsd)
    #expect(draft.dose == "100 µg")
    #expect(draft.intention == "to meet what comes\nwith care")
    #expect(draft.moodBefore == Mood(6))
    #expect(terminal.remaining == 0)
    #expect(terminal.transcript.contains("unknown treatment"))
    #expect(terminal.transcript.contains("mood before 11 is outside 1 to 10"))
    #expect(terminal.transcript.components(separatedBy: "Treatment [psilocybin]").count == 3)
  }

  /// A mistyped treatment at the prompt is answered with the nearest known one, and the
  /// line that says so does not repeat what was typed.
  @Test func treatmentTypoSuggestsTheNearest() throws {
    let f = try AppFixture()
    let terminal = ScriptedTerminal([.line("Psilocibin"), .line("psilocybin")])
    var draft = SessionDraft(id: f.context.newSessionID(), date: f.clock.read())
    try Forms(terminal: terminal, context: f.context).fillNow(
      &draft, skipping: [.date, .dose, .intention, .moodBefore])
    #expect(draft.treatment == .psilocybin)
    #expect(
      terminal.transcript.contains(
        #"  unknown treatment; did you mean "psilocybin"? — choose one of psilocybin,"#))
    #expect(terminal.transcript.components(separatedBy: "Psilocibin").count == 2)
  }

  /// Fields given as flags are not asked; an empty intention is asked again.
  @Test func nowFormSkipsGivenFields() throws {
    let f = try AppFixture()
    let terminal = ScriptedTerminal([.text("   "), .text("to rest"), .line("4")])
    var draft = SessionDraft(
      id: f.context.newSessionID(), date: f.clock.read(), treatment: .ketamine, dose: "1 ml")
    try Forms(terminal: terminal, context: f.context).fillNow(
      &draft, skipping: [.date, .treatment, .dose])
    #expect(draft.intention == "to rest")
    #expect(draft.moodBefore == Mood(4))
    #expect(terminal.transcript.contains("the intention is needed"))
    #expect(!terminal.transcript.contains("When was it?"))
  }

  /// Each "Later" answer is saved as it is entered: interrupted after two answers, the vault
  /// holds both, and the reflection completed the session.
  @Test func laterFormSavesEachAnswer() throws {
    // Given
    let f = try AppFixture()
    let session = try f.saved()
    let terminal = ScriptedTerminal([.line("8"), .text("it was gentle"), .interrupt])
    // When
    #expect(throws: TerminalError.stopped) {
      try Forms(terminal: terminal, context: f.context).fillLater(session) {
        try f.journal.apply($0, to: session.id)
      }
    }
    // Then
    let stored = try f.reopen().session(session.id)
    #expect(stored.moodAfter == Mood(8))
    #expect(stored.reflection == "it was gentle")
    #expect(stored.status == .complete)
    #expect(stored.environment == nil)
  }

  /// Editing: Enter keeps, "-" clears an optional field, and a required one cannot be cleared.
  @Test func editForm() throws {
    let f = try AppFixture()
    var session = try f.saved()
    session = try f.journal.apply([.dose("2 g"), .environment("home")], to: session.id)
    let terminal = ScriptedTerminal([
      .line(""), .line(""), .line("-"), .text(""), .line("-"), .line("7"),
      .line(""), .text(""), .line("-"), .line("quiet piano"),
    ])
    let edited = try Forms(terminal: terminal, context: f.context).edit(session) {
      try f.journal.apply($0, to: session.id)
    }
    #expect(edited.dose == nil)
    #expect(edited.moodBefore == Mood(7))
    #expect(edited.intention == "to be open")
    #expect(edited.environment == nil)
    #expect(edited.music == "quiet piano")
    #expect(terminal.transcript.contains("the mood before is required and cannot be cleared"))
    #expect(try f.reopen().session(session.id) == edited)
  }
}
