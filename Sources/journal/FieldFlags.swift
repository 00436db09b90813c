import ArgumentParser
import JournalApp
import JournalCore
import JournalDiagnostics

/// One flag per session field. A long text may be "-" to read standard input.
struct FieldFlags: ParsableArguments {
  @Option(help: ArgumentHelp(#"When: "now", "yesterday 20:00", "18:30", "2026-11-21 18:30"."#))
  var date: String?
  @Option(
    help: ArgumentHelp(
      "psilocybin (default), mdma, ketamine, lsd, ayahuasca, mescaline, "
        + "dmt, ibogaine, cannabis, or other:<name>."),
    completion: Completions.treatments)
  var treatment: String?
  @Option(help: ArgumentHelp(#"Free text, such as "2.5 g dried"."#))
  var dose: String?
  @Option(help: ArgumentHelp(#"What you bring to the session ("-" reads standard input)."#))
  var intention: String?
  @Option(help: ArgumentHelp("Mood before, 1 to 10."))
  var moodBefore: String?
  @Option(help: ArgumentHelp(#"Where, and with whom ("-" reads standard input)."#))
  var environment: String?
  @Option(help: ArgumentHelp(#"Music notes ("-" reads standard input)."#))
  var music: String?
  @Option(help: ArgumentHelp("Mood after, 1 to 10."))
  var moodAfter: String?
  @Option(help: ArgumentHelp(#"Your reflection ("-" reads standard input)."#))
  var reflection: String?

  /// The raw text given for each field, in form order.
  var given: [(Field, String)] {
    let all: [(Field, String?)] = [
      (.date, date), (.treatment, treatment), (.dose, dose), (.intention, intention),
      (.moodBefore, moodBefore), (.environment, environment), (.music, music),
      (.moodAfter, moodAfter), (.reflection, reflection),
    ]
    return all.compactMap { field, text in text.map { (field, $0) } }
  }

  /// The changes the flags ask for, validated, with "-" read from standard input.
  func changes(_ parser: FieldParser) throws -> [Session.Change] {
    try Self.changes(given, parser)
  }

  /// Validates given field texts, reading standard input for the one given as "-".
  static func changes(_ given: [(Field, String)], _ parser: FieldParser) throws -> [Session.Change]
  {
    guard given.filter({ $0.1 == "-" }).count <= 1 else { throw AppError.stdinUsedTwice }
    return try given.map { field, text in
      let value = text == "-" ? try Runtime.readStandardInput(for: field) : text
      return try parser.change(field, value)
    }
  }
}
