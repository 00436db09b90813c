import Foundation
import JournalTestSupport
import Testing

/// A pause before acts that cannot be undone, right after a session (issue 36): on a
/// terminal, within the cooling-off window, each first says calmly how long ago the session
/// was and asks once more; --yes, scripts, an older session and a window of 0 go on as ever.
/// The clock is the debug build's injected one; the session is at 2026-11-20 18:00 UTC.
struct CoolingOffTests {
  /// Three hours after the session.
  static let within = ["JOURNAL_DEBUG_NOW": "2026-11-20T21:00:00Z"]
  /// A day after it to the second: the window has just closed.
  static let after = ["JOURNAL_DEBUG_NOW": "2026-11-21T18:00:00Z"]
  static let line = "Your last session was 3 hours ago. This can wait until another day."

  /// One act that pauses: how it is made ready, run and asked, and whether it happened.
  struct Act: Sendable, CustomStringConvertible {
    let description: String
    let prepare: @Sendable (CLIFixture) -> Void
    let arguments: @Sendable (CLIFixture) -> [String]
    let question: String
    let kept: String
    let happened: @Sendable (CLIFixture) -> Bool

    static let newKey = Act(
      description: "passwd --new-key", prepare: { _ in },
      arguments: { f in
        ["passwd", "--new-key", "--new-passphrase-file", f.home.write("new", "a new key now\n")]
      },
      question: "Change the key now anyway? [y/N] ", kept: "the key was not changed",
      happened: { f in f.run("list").status == 4 })

    static let removeCode = Act(
      description: "recovery-code --remove",
      prepare: { f in precondition(f.run("recovery-code").status == 0) },
      arguments: { _ in ["recovery-code", "--remove"] },
      question: "Remove the recovery code now anyway? [y/N] ", kept: "the recovery code was kept",
      happened: { f in f.run("recovery-code", "--status").stdout == "no recovery code\n" })

    static let captureOff = Act(
      description: "capture off", prepare: { _ in },
      arguments: { _ in ["capture", "off"] },
      question: "Turn off writing without the passphrase now anyway? [y/N] ",
      kept: "writing without the passphrase is still on",
      happened: { f in f.run("capture").stdout.hasPrefix("writing without the passphrase is off") })

    static let all = [newKey, removeCode, captureOff]
  }

  /// A journal with one session, made ready for `act`.
  static func journal(for act: Act) -> CLIFixture {
    let f = CLIFixture().initialise()
    _ = f.new()
    act.prepare(f)
    return f
  }

  /// On a terminal within the window: the calm line, then the question; no (Enter) changes
  /// nothing and says so, as a declined delete does.
  @Test(arguments: Act.all) func noChangesNothing(_ act: Act) {
    let f = Self.journal(for: act)
    let process = f.cli.interactive(act.arguments(f), extra: Self.within)
    #expect(process.expect(act.question), "\(process.screenText)")
    #expect(process.screenWords.contains(Self.line), "\(process.screenText)")
    process.write("\r")
    let result = process.wait()
    #expect(result.status == 130, "\(result)")
    #expect(result.stderr == "journal: \(act.kept)\n", "\(result)")
    #expect(!act.happened(f))
  }

  /// Yes goes ahead.
  @Test(arguments: Act.all) func yesGoesAhead(_ act: Act) {
    let f = Self.journal(for: act)
    let process = f.cli.interactive(act.arguments(f), extra: Self.within)
    #expect(process.expect(act.question), "\(process.screenText)")
    process.write("y\r")
    let result = process.wait()
    #expect(result.status == 0, "\(result)")
    #expect(act.happened(f))
  }

  /// Nothing is said or asked with --yes, past the window, with the window set to 0 (in the
  /// environment or the settings file), or without a terminal: the act goes ahead as ever.
  @Test(arguments: Act.all) func noPause(_ act: Act) {
    let settings = TemporaryDirectory()
    let config = ["JOURNAL_CONFIG": settings.write("config", "cooling-off = 0\n")]
    let ways: [(String, [String], [String: String], Bool)] = [
      ("--yes", ["--yes"], Self.within, true),
      ("past the window", [], Self.after, true),
      ("JOURNAL_COOLING_OFF=0", [], Self.within.merging(["JOURNAL_COOLING_OFF": "0"]) { $1 }, true),
      ("cooling-off = 0", [], Self.within.merging(config) { $1 }, true),
      ("no terminal", [], Self.within, false),
    ]
    for (way, flags, extra, terminal) in ways {
      let f = Self.journal(for: act)
      let result: CLI.Result
      var screen = ""
      if terminal {
        let process = f.cli.interactive(act.arguments(f) + flags, extra: extra)
        result = process.wait()
        screen = process.screenText
      } else {
        result = f.cli.run(act.arguments(f), extra: extra)
      }
      #expect(result.status == 0, "\(way): \(result)")
      #expect(!screen.contains("Your last session"), "\(way): \(screen)")
      #expect(!result.stderr.contains("Your last session"), "\(way): \(result)")
      #expect(act.happened(f), "\(way)")
    }
  }

  /// Only what cannot be undone pauses: turning capture on, or removing a recovery code
  /// there is not, goes ahead at once.
  @Test func whatChangesNothingLastingDoesNotPause() {
    let f = CLIFixture().initialise()
    _ = f.new()
    #expect(f.run("capture", "off").status == 0)
    for arguments in [["capture", "on"], ["recovery-code", "--remove"]] {
      let process = f.cli.interactive(arguments, extra: Self.within)
      let result = process.wait()
      #expect(result.status == 0, "\(arguments): \(result)")
      #expect(!process.screenText.contains("Your last session"), "\(process.screenText)")
    }
    #expect(f.run("capture").stdout.hasPrefix("writing without the passphrase is on"))
  }

  /// A session dated ahead (planned) has not happened: it brings no pause.
  @Test func aSessionAheadDoesNotCount() {
    let f = CLIFixture().initialise()
    let result = f.run(
      "new", "--intention", "to listen inward", "--mood-before", "5", "--date",
      "2026-11-21 10:00", extra: Self.within)
    #expect(result.status == 0, "\(result)")
    let process = f.cli.interactive(Act.captureOff.arguments(f), extra: Self.within)
    let done = process.wait()
    #expect(done.status == 0, "\(done)")
    #expect(!process.screenText.contains("Your last session"), "\(process.screenText)")
  }

  /// A value that is not a duration of a week at most stops the command before anything is
  /// asked or changed, in a message and a hint (exit 2), from the environment or the file.
  @Test func aBadSetting() {
    let f = Self.journal(for: .captureOff)
    let expected = """
      journal: error: JOURNAL_COOLING_OFF cannot be read
      journal: hint: set it to a duration up to 7 days such as "24h" or "90m", or "0" for no pause

      """
    let fromEnvironment = f.run("capture", "off", extra: ["JOURNAL_COOLING_OFF": "soon"])
    #expect(fromEnvironment.status == 2, "\(fromEnvironment)")
    #expect(fromEnvironment.stderr == expected, "\(fromEnvironment)")
    let config = f.home.write("config", "cooling-off = 8d\n")
    let fromFile = f.run("capture", "off", extra: ["JOURNAL_CONFIG": config])
    #expect(fromFile.status == 2, "\(fromFile)")
    #expect(fromFile.stderr == expected, "\(fromFile)")
    #expect(!Act.captureOff.happened(f))
  }

  /// A deletion with no undo window (JOURNAL_UNDO_WINDOW=0s) is final at once: after its
  /// own question, the pause; no keeps the session, yes deletes it; --yes asks neither.
  @Test func deletionWithoutAnUndoWindowPauses() {
    let f = CLIFixture().initialise()
    let id = f.new()
    let extra = Self.within.merging(["JOURNAL_UNDO_WINDOW": "0s"]) { $1 }
    let question = "It cannot be undone. Delete it for good now anyway? [y/N] "
    let declined = f.cli.interactive(["delete", id], extra: extra)
    #expect(declined.expect("Delete this session? [y/N] "))
    declined.write("y\r")
    #expect(declined.expect(question), "\(declined.screenText)")
    #expect(declined.screenWords.contains(Self.line), "\(declined.screenText)")
    declined.write("\r")
    let kept = declined.wait()
    #expect(kept.status == 130, "\(kept)")
    #expect(kept.stderr == "journal: nothing was deleted\n", "\(kept)")
    #expect(f.sessions().count == 1)
    let accepted = f.cli.interactive(["delete", id], extra: extra)
    #expect(accepted.expect("Delete this session? [y/N] "))
    accepted.write("y\r")
    #expect(accepted.expect(question))
    accepted.write("y\r")
    #expect(accepted.wait().status == 0)
    #expect(f.sessions().isEmpty)
    let other = f.new()
    let scripted = f.cli.interactive(["delete", other, "--yes"], extra: extra)
    let done = scripted.wait()
    #expect(done.status == 0)
    #expect(!scripted.screenText.contains("Your last session"), "\(scripted.screenText)")
    // No undo is offered for what cannot be undone
    #expect(
      done.stderr == "journal: deleted session \(other) for good (no undo window)\n", "\(done)")
    #expect(f.sessions().isEmpty)
    // A bad setting matters only where the pause can come: not with --yes, nor turning
    // capture on
    let third = f.new()
    let bad = extra.merging(["JOURNAL_COOLING_OFF": "1w"]) { $1 }
    #expect(f.run("delete", third, "--yes", extra: bad).status == 0)
    #expect(f.run("capture", "on", extra: bad).status == 0)
  }

  /// passwd's --yes belongs to --new-key, the one passwd act that pauses.
  @Test func passwdYesGoesWithNewKey() {
    let f = CLIFixture().initialise()
    let result = f.run("passwd", "--yes")
    #expect(result.status == 2, "\(result)")
    #expect(result.stderr.contains("--yes goes with --new-key"), "\(result)")
  }
}
