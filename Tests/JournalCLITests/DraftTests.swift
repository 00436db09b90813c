import Foundation
import Glibc
import JournalTestSupport
import Testing

/// Drafts that survive an interrupted `journal new`, driven through a real pseudo-terminal.
@Suite(.serialized) struct DraftTests {
  enum Interruption: String, CaseIterable {
    case kill9, hangup, ctrlC
  }

  /// Answers date, treatment, dose and intention, then stops at the mood prompt.
  /// `cli`: the fixture's own (with its passphrase file) unless another is given.
  func startAndStop(_ f: CLIFixture, _ how: Interruption, cli: CLI? = nil) -> CLI.Result {
    let process = (cli ?? f.cli).interactive(["new"])
    #expect(process.expect("When was it? [now] "))
    process.write("2026-11-20 19:00\n")
    #expect(process.expect("Treatment [psilocybin] "))
    process.write("ayahuasca\n")
    #expect(process.expect("Dose (optional) "))
    process.write("one cup\n")
    #expect(process.expect("Intention — what you bring to this session"))
    process.write("to listen to the plant\n.\n")
    #expect(process.expect("Mood before, 1 (low) to 10 (high) "))
    switch how {
    case .kill9: process.signal(SIGKILL)
    case .hangup: process.signal(SIGHUP)
    case .ctrlC: process.write("\u{03}")
    }
    return process.wait()
  }

  /// A sealed addition renamed to the id of an unfinished draft on this computer (the
  /// reviewer's finding 4) is kept apart: the draft is still offered, not taken for saved.
  @Test func additionNeverTakesADraftsID() throws {
    let f = CLIFixture().initialise()
    _ = startAndStop(f, .hangup)
    let draftsDirectory = f.home.path + "/.local/state/journal/drafts"
    let name = try #require(
      try FileManager.default.contentsOfDirectory(atPath: draftsDirectory).first {
        $0.hasSuffix(".draft")
      })
    let draftID = String(name.split(separator: "-")[1].prefix(32))
    try ClaimedIDTests.forge(f, claiming: draftID, at: "2026-11-21T10:00:00Z")
    let listed = f.run("list")
    #expect(listed.stderr.contains(#"claimed the id "\#(draftID.prefix(8))""#), "\(listed)")
    let drafts = f.run("drafts")
    #expect(drafts.stdout.contains(String(draftID.prefix(8))), "\(drafts)")
  }

  /// Killed, hung up on, or interrupted mid-form: the next `journal new` offers the draft,
  /// resumes at the first unanswered field (the intention going on when the mood after it
  /// is unanswered), and saves one session with every answer.
  @Test(arguments: Interruption.allCases)
  func resumeAfter(_ how: Interruption) throws {
    // Given an interrupted form
    let f = CLIFixture().initialise()
    let stopped = startAndStop(f, how)
    #expect(stopped.status != 0)
    #expect(f.sessions().isEmpty, "nothing reaches the vault before saving")
    // When journal new runs again and the draft is resumed
    let process = f.cli.interactive(["new"])
    #expect(process.expect("(4 of 5 fields answered)"))
    #expect(process.expect("Resume it, discard it, or keep it for later? [R/d/k] "))
    process.write("r\n")
    // Stopped after the intention (or in it: the draft cannot tell), the intention is shown
    // as kept and goes on; "." ends it
    #expect(process.expect("to listen to the plant"))
    #expect(!process.screenText.contains("When was it?"))
    process.write(".\n")
    #expect(process.expect("Mood before, 1 (low) to 10 (high) "))
    process.write("7\n")
    #expect(process.expect("No thanks [3] "))
    process.write("\r")
    #expect(process.expect("Add them now? [y/N] "))
    process.write("\n")
    let result = process.wait()
    // Then
    #expect(result.status == 0, "\(result)")
    let sessions = f.sessions()
    #expect(sessions.count == 1)
    let session = f.show(result.stdout.trimmingCharacters(in: .newlines))
    #expect(session["treatment"] as? String == "ayahuasca")
    #expect(session["dose"] as? String == "one cup")
    #expect(session["intention"] as? String == "to listen to the plant")
    #expect(session["mood_before"] as? Int == 7)
    #expect((session["date"] as? String)?.hasPrefix("2026-11-20T19:00:00") == true)
    #expect(f.run("drafts").stderr == "journal: no unfinished drafts\n")
  }

  /// Ctrl-C says, calmly, that the draft is kept.
  @Test func ctrlCSaysDraftIsKept() {
    let f = CLIFixture().initialise()
    let process = f.cli.interactive(["new"])
    #expect(process.expect("When was it? [now] "))
    process.write("\n")
    #expect(process.expect("Treatment [psilocybin] "))
    process.write("\u{03}")
    let result = process.wait()
    #expect(result.status == 130)
    #expect(
      process.screenText.contains(
        "journal: your draft is kept with the date; \"journal new\" will offer it again"))
  }

  /// A draft open in another journal is left alone, and that journal is told so; the draft
  /// cannot be discarded from elsewhere while it is open.
  @Test func lockHeldByAnotherProcess() throws {
    let f = CLIFixture().initialise()
    let first = f.cli.interactive(["new"])
    #expect(first.expect("When was it? [now] "))
    first.write("\n")
    #expect(first.expect("Treatment [psilocybin] "))
    let second = f.cli.interactive(["new"])
    #expect(
      second.expect("an unfinished draft is open in another journal window; it is left alone"))
    #expect(second.expect("When was it? [now] "))
    #expect(!second.screenText.contains("Resume it"))
    second.signal(SIGKILL)
    _ = second.wait()
    let draftsDirectory = f.home.path + "/.local/state/journal/drafts"
    let name = try #require(
      try FileManager.default.contentsOfDirectory(atPath: draftsDirectory).first {
        $0.hasSuffix(".draft")
      })
    let id = String(name.split(separator: "-")[1].prefix(8))
    let discard = f.run("drafts", "discard", id)
    #expect(discard.status == 7)
    #expect(
      discard.stderr.hasPrefix("journal: error: draft \"\(id)\" is open in another journal\n"))
    first.signal(SIGKILL)
    _ = first.wait()
    let listed = f.run("drafts")
    #expect(listed.stdout.hasPrefix("\(id)  started "))
    #expect(listed.stdout.hasSuffix("  1 of 5 fields\n"))
    #expect(f.run("drafts", "discard", id).status == 0)
    #expect(f.run("drafts").stdout == "")
  }

  /// A damaged draft is removed with a one-line notice; a stale one too.
  @Test func damagedAndStaleDrafts() throws {
    let f = CLIFixture().initialise()
    _ = startAndStop(f, .kill9)
    let draftsDirectory = f.home.path + "/.local/state/journal/drafts"
    let name = try #require(
      try FileManager.default.contentsOfDirectory(atPath: draftsDirectory).first {
        $0.hasSuffix(".draft")
      })
    let path = draftsDirectory + "/" + name
    var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
    bytes[bytes.count - 1] ^= 0xFF
    try bytes.write(to: URL(fileURLWithPath: path))
    let damaged = f.run("drafts")
    #expect(damaged.status == 0)
    #expect(
      damaged.stderr == """
        journal: an unfinished draft could not be read (damaged, or from another vault) and was removed
        journal: no unfinished drafts

        """)
    _ = startAndStop(f, .kill9)
    let stale = f.run("drafts", extra: ["JOURNAL_DRAFT_MAX_AGE": "0s"])
    #expect(stale.stderr.hasPrefix("journal: an unfinished draft from "))
    #expect(stale.stderr.contains(" was older than 0 s and was removed\n"))
    #expect(f.run("drafts").stderr == "journal: no unfinished drafts\n")
  }

  /// After new, a crash, a resume and a save, nothing typed is readable anywhere: the draft
  /// directory, the vault and its WAL, TMPDIR, HOME.
  @Test func noPlaintextAfterDraftScenario() throws {
    let tmp = TemporaryDirectory()
    let f = CLIFixture(extra: ["TMPDIR": tmp.path])
    f.initialise()
    let process = f.cli.interactive(["new"])
    #expect(process.expect("When was it? [now] "))
    process.write("\n")
    #expect(process.expect("Treatment [psilocybin] "))
    process.write("other:CEDARSMOKE\n")
    #expect(process.expect("Dose (optional) "))
    process.write("HAZELDOSE\n")
    #expect(process.expect("Intention — what you bring to this session"))
    process.write("LANTERNWISH\n.\n")
    #expect(process.expect("Mood before, 1 (low) to 10 (high) "))
    process.signal(SIGKILL)
    _ = process.wait()
    let words = ["CEDARSMOKE", "HAZELDOSE", "LANTERNWISH"]
    for file in f.home.allFiles() + tmp.allFiles() {
      for word in words {
        #expect(file.bytes.range(of: Data(word.utf8)) == nil, "\(word) in \(file.path)")
      }
    }
    let resumed = f.cli.interactive(["new"])
    #expect(resumed.expect("[R/d/k] "))
    resumed.write("\n")
    #expect(resumed.expect("LANTERNWISH"))
    resumed.write(".\n")
    #expect(resumed.expect("Mood before, 1 (low) to 10 (high) "))
    resumed.write("5\n")
    #expect(resumed.expect("No thanks [3] "))
    resumed.write("\r")
    #expect(resumed.expect("Add them now? [y/N] "))
    resumed.write("n\n")
    #expect(resumed.wait().status == 0)
    for file in f.home.allFiles() + tmp.allFiles() {
      for word in words {
        #expect(file.bytes.range(of: Data(word.utf8)) == nil, "\(word) in \(file.path)")
      }
    }
  }
}
