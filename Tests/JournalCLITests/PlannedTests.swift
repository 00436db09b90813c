import Foundation
import JournalTestSupport
import Testing

/// A session prepared ahead (issue 36): dated up to 60 days from now, it is planned — not
/// waiting for reflection, not reflected on or closed, given no reminder — until its date
/// has passed; then it waits like any other. The clock is journal's debug clock, moved by
/// each run's environment.
@Suite struct PlannedTests {
  static let today = ["JOURNAL_DEBUG_NOW": "2026-11-21T18:00:00Z"]
  static let afterIt = ["JOURNAL_DEBUG_NOW": "2026-12-01T21:00:00Z"]

  /// A planned session with its intention written ahead.
  func planned(_ f: CLIFixture, _ extra: String...) -> String {
    let result = f.cli.run(
      [
        "new", "--intention", "to meet it openly", "--mood-before", "5", "--date",
        "2026-12-01 19:00",
      ]
        + extra)
    precondition(result.status == 0, "new failed: \(result)")
    return result.stdout.trimmingCharacters(in: .newlines)
  }

  /// Listed as planned, not waiting; its reflection and closing wait for its date, its
  /// setting can be prepared; once the date has passed it waits, and reflect completes it.
  @Test func plannedWaitsForItsDate() {
    let f = CLIFixture(extra: Self.today).initialise()
    let waiting = f.new()
    let id = planned(f)
    // Listed, marked planned; not among those waiting
    let listed = f.run("list")
    #expect(listed.stdout.contains("\(id)  Tue 2026-12-01 19:00"), "\(listed)")
    #expect(
      listed.stdout.split(separator: "\n").first { $0.hasPrefix(id) }?.hasSuffix("planned") == true)
    let needs = f.run("list", "--needs-reflection")
    #expect(needs.stdout.contains(waiting) && !needs.stdout.contains(id), "\(needs)")
    let plannedOnly = f.run("list", "--status", "planned")
    #expect(plannedOnly.stdout.contains(id) && !plannedOnly.stdout.contains(waiting))
    #expect(f.run("show", id).stdout.hasPrefix("Session \(id)  planned\n"))
    // The stored status is the waiting one: planned is the date's doing
    #expect(f.show(id)["status"] as? String == "needs_reflection")
    // What belongs after the session waits; one line each, exit 7, nothing changed
    let message =
      "journal: error: session \"\(id)\" is planned: its date is still ahead\n"
      + "journal: hint: reflections come once it has passed; if it happened already, "
      + "\"journal edit \(id) --date …\"\n"
    for arguments in [
      ["reflect", id, "--reflection", "too soon"], ["close", id], ["reflect", id],
    ] {
      let refused = f.cli.run(arguments)
      #expect(refused.status == 7, "\(arguments) \(refused)")
      #expect(refused.stderr == message, "\(arguments)")
    }
    let edit = f.run("edit", id, "--reflection", "too soon")
    #expect(edit.status == 7 && edit.stderr == message, "\(edit)")
    #expect(f.show(id)["reflection"] is NSNull)
    // The setting can be prepared
    #expect(f.run("edit", id, "--environment", "a quiet room, with my guide").status == 0)
    #expect(f.show(id)["environment"] as? String == "a quiet room, with my guide")
    #expect(f.run("list", "--status", "planned").stdout.contains(id))
    // Once its date has passed, it waits like any other
    let later = f.run("list", "--needs-reflection", extra: Self.afterIt)
    #expect(later.stdout.contains(id) && later.stdout.contains(waiting), "\(later)")
    #expect(
      f.run("list", "--status", "planned", extra: Self.afterIt).stderr
        == "journal: no sessions are planned\n")
    let reflected = f.run("reflect", id, "--reflection", "it was gentle", extra: Self.afterIt)
    #expect(reflected.status == 0, "\(reflected)")
    #expect(f.show(id)["status"] as? String == "complete")
  }

  /// A date moved into the past makes it happen now: it waits at once.
  @Test func dateMovedBackMakesItWait() {
    let f = CLIFixture(extra: Self.today).initialise()
    let id = planned(f)
    #expect(f.run("edit", id, "--date", "2026-11-21 10:00").status == 0)
    #expect(f.run("list", "--needs-reflection").stdout.contains(id))
    #expect(f.run("close", id).status == 0)
  }

  /// A session reflected on (or closed) has happened: a date ahead is refused, exit 7.
  @Test func doneSessionCannotMoveAhead() {
    let f = CLIFixture(extra: Self.today).initialise()
    let id = f.new("--reflection", "it was kind")
    let moved = f.run("edit", id, "--date", "2026-12-01 19:00")
    #expect(moved.status == 7, "\(moved)")
    #expect(
      moved.stderr
        == "journal: error: session \"\(id)\" is reflected on or closed, so its date cannot be ahead\n"
        + "journal: hint: check the date; only a session still to come is dated ahead (planned)\n")
    #expect(f.show(id)["date"] as? String == "2026-11-20T18:00:00.000Z")
  }

  /// A session made planned by a change (its date moved ahead, or reopened with a date
  /// ahead after the clock went back) loses its reminder: none comes before it happens.
  @Test func madePlannedLosesItsReminder() {
    let f = CLIFixture(extra: Self.today).initialise()
    let id = f.new("--remind", "tomorrow")
    #expect(f.run("reminders").stdout.contains(id))
    #expect(f.run("edit", id, "--date", "2026-12-01 19:00").status == 0)
    #expect(!f.run("reminders").stdout.contains(id), "the reminder is withdrawn")
    // Closed today, reopened by a clock a day earlier: its date is ahead of that clock
    let closed = f.run(
      "new", "--intention", "soon", "--mood-before", "5", "--date", "2026-11-21 10:00")
    let other = closed.stdout.trimmingCharacters(in: .newlines)
    #expect(f.run("close", other).status == 0)
    let reopened = f.run("reopen", other, extra: ["JOURNAL_DEBUG_NOW": "2026-11-20T18:00:00Z"])
    #expect(reopened.status == 0, "\(reopened)")
    #expect(
      reopened.stderr
        == "journal: session \(other) is open again, and planned: it waits for your reflection "
        + "once its date has passed\n")
    #expect(!f.run("reminders").stdout.contains(other))
  }

  /// No reminder for a planned session: asked for with the date, it is refused before
  /// anything is saved.
  @Test func plannedTakesNoReminder() {
    let f = CLIFixture(extra: Self.today).initialise()
    let result = f.run(
      "new", "--intention", "soon", "--mood-before", "5", "--date", "2026-12-01 19:00",
      "--remind", "tomorrow")
    #expect(result.status == 2)
    #expect(
      result.stderr
        == "journal: error: a session dated ahead is planned, and gets no reminder before it happens\n"
        + "journal: hint: leave out --remind; \"journal remind ID --at …\" can set one for after it\n"
    )
    #expect(f.sessions().isEmpty)
    // A later field that waits for the session is refused too, before anything is saved
    let reflected = f.run(
      "new", "--intention", "soon", "--mood-before", "5", "--date", "2026-12-01 19:00",
      "--reflection", "too soon")
    #expect(reflected.status == 7, "\(reflected)")
    // Named without an id: nothing was saved under one
    #expect(
      reflected.stderr
        == "journal: error: the session is planned: its date is still ahead\n"
        + "journal: hint: a reflection comes once its date has passed; save the session without one\n"
    )
    #expect(f.sessions().isEmpty)
  }

  /// Sixty days ahead is the limit; beyond it, one line and exit 2.
  @Test func sixtyDaysAhead() {
    let f = CLIFixture(extra: Self.today).initialise()
    let result = f.run(
      "new", "--intention", "soon", "--mood-before", "5", "--date", "2027-01-20 18:01")
    #expect(result.status == 2)
    #expect(
      result.stderr
        == "journal: error: the date is more than 60 days ahead\n"
        + "journal: hint: a session can be planned at most 60 days from now\n")
    let last = f.run(
      "new", "--intention", "soon", "--mood-before", "5", "--date", "2027-01-20 18:00")
    #expect(last.status == 0, "\(last)")
  }

  /// Trends are of sessions that happened: a planned one is not counted, nor one dated
  /// ahead that a reflection written locked completed.
  @Test func trendsLeavePlannedOut() throws {
    let f = CLIFixture(extra: Self.today).initialise()
    _ = f.new()
    let ahead = planned(f)
    #expect(
      CLI(home: f.home.path, extra: Self.today).run(["reflect", ahead, "--reflection", "early"])
        .status == 0)
    _ = planned(f)
    let before = try #require(
      try JSONSerialization.jsonObject(with: Data(f.run("trends", "--json").stdout.utf8))
        as? [String: Any])
    let after = try #require(
      try JSONSerialization.jsonObject(
        with: Data(f.run("trends", "--json", extra: Self.afterIt).stdout.utf8)) as? [String: Any])
    let overall = { (object: [String: Any]) in
      (object["overall"] as? [String: Any])?["sessions"] as? Int
    }
    #expect(overall(before) == 1)
    #expect(overall(after) == 3)
  }

  /// A reflection written locked (its date cannot be read without the passphrase) on a
  /// planned session is kept when the journal is next opened: the rule never costs a word
  /// already written, nor locks the journal.
  @Test func lockedReflectionOnAPlannedSessionIsKept() {
    let f = CLIFixture(extra: Self.today).initialise()
    let id = planned(f)
    let locked = CLI(home: f.home.path, extra: Self.today)
    let sealed = locked.run(["reflect", id, "--reflection", "written early"])
    #expect(sealed.status == 0, "\(sealed)")
    let opened = f.run("list")
    #expect(opened.status == 0, "\(opened)")
    #expect(f.show(id)["reflection"] as? String == "written early")
  }

  /// In a terminal: saved as planned, and neither the reminder nor the later fields are
  /// offered.
  @Test func guidedNewPlanned() {
    let f = CLIFixture(extra: Self.today).initialise()
    let process = f.cli.interactive(["new"])
    #expect(process.expect("When was it? [now] "))
    process.write("2026-12-01 19:00\n")
    #expect(process.expect("Treatment [psilocybin] "))
    process.write("\n")
    #expect(process.expect("Dose (optional) "))
    process.write("\n")
    #expect(process.expect("Intention — what you bring to this session"))
    process.write("to meet it openly\n.\n")
    #expect(process.expect("Mood before, 1 (low) to 10 (high) "))
    process.write("6\n")
    let result = process.wait()
    #expect(result.status == 0, "\(result)")
    let id = result.stdout.trimmingCharacters(in: .newlines)
    #expect(
      process.screenText.contains("Saved. Session \(id) is planned for Tue 2026-12-01 19:00."))
    #expect(process.screenText.contains("Once its date has passed it waits for your reflection"))
    #expect(!process.screenText.contains("No thanks [3]"))
    #expect(!process.screenText.contains("Add them now?"))
    #expect(f.run("reminders").stdout.contains(id) == false)
  }
}
