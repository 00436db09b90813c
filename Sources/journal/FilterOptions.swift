import ArgumentParser
import JournalApp
import JournalCore

/// The options that choose sessions: the same words, help and meaning for `list`, `export`
/// and `search` (SessionFilter is the one definition behind them).
struct FilterOptions: ParsableArguments {
  @Option(help: "Only sessions on or after this date.")
  var since: String?
  @Option(help: "Only sessions on or before this date (a day without a time means all of it).")
  var until: String?
  @Option(
    help: "Only sessions of this treatment (psilocybin, mdma, …; other, or other:NAME).",
    completion: Completions.treatmentFilters)
  var treatment: String?
  @Option(
    help: "Only sessions with this status: needs-reflection, complete, closed or planned.")
  var status: StatusChoice?
  @Flag(help: "Only the sessions waiting for your reflection (--status needs-reflection).")
  var needsReflection = false
  @Flag(help: "Only the sessions reflected on (--status complete).")
  var complete = false
  @Option(
    name: .customLong("tag"),
    help: ArgumentHelp("Only sessions with this tag (repeatable: all of them).", valueName: "name"))
  var tags: [String] = []
  @Option(name: [.customShort("n"), .long], help: "Only the newest this many.")
  var limit: Int?

  func validate() throws {
    guard [status != nil, needsReflection, complete].filter({ $0 }).count <= 1 else {
      throw ValidationError("choose one of --status, --needs-reflection or --complete")
    }
  }

  /// Whether any option narrows the sessions taken.
  var narrows: Bool {
    since != nil || until != nil || treatment != nil || chosenStanding != nil || limit != nil
      || !tags.isEmpty
  }

  /// The standing asked for, whichever way.
  var chosenStanding: SessionFilter.Standing? {
    if needsReflection { return .status(.needsReflection) }
    if complete { return .status(.complete) }
    return status?.standing
  }

  func filter(_ runtime: Runtime) throws -> SessionFilter {
    try SessionFilter.parse(
      since: since, until: until, standing: chosenStanding, treatment: treatment, limit: limit,
      tags: tags, runtime)
  }
}
