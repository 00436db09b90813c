import Foundation
import GRDB
import Glibc
import JournalTestSupport
import Testing

/// kill -9 at random moments during every command that writes. After each kill: the vault
/// opens, `verify` passes, every save that reported success is there whole, nothing is
/// half-written, and exactly one passphrase (old or new) opens it.
@Suite(.serialized) struct CrashTests {
  enum Step: CaseIterable {
    case newDraft, newSave, reflect, edit, delete, undo, passwd, importFile
  }

  /// The state the test keeps of what was reported as saved.
  struct Ledger {
    /// id → intention, for every `new` that exited 0.
    var saved: [String: String] = [:]
    /// id → the dose last reported as saved.
    var doses: [String: String] = [:]
    /// ids whose deletion was reported (and not undone since).
    var deleted: Set<String> = []
  }

  @Test func killedAtRandomMoments() throws {
    let f = ReliabilityFixture(extra: ["JOURNAL_UNDO_WINDOW": "1h"]).initialise()
    var ledger = Ledger()
    var generator = TortureRandom(10)
    let rounds = Torture.count("KILLS", light: 16)
    let importFile = f.root.file("import.json")
    try makeImportFile(importFile, count: 3)
    var kills = 0
    var losses = 0
    var finished = 0
    for round in 0..<rounds {
      let step = Step.allCases[round % Step.allCases.count]
      let delay = UInt32.random(in: 0...400_000, using: &generator)
      let target = ledger.saved.keys.filter { !ledger.deleted.contains($0) }.sorted().randomElement(
        using: &generator)
      let marker = "round-\(round)-\(UInt32.random(in: 0...UInt32.max, using: &generator))"
      var arguments: [String]
      switch step {
      case .newDraft: arguments = ["new"]
      case .newSave:
        arguments = [
          "new", "--intention", marker, "--mood-before", "6", "--date", "2026-11-20 18:00",
          "--remind", "none",
        ]
      case .reflect:
        guard let target else { continue }
        arguments = ["reflect", target, "--mood-after", "7", "--music", marker]
      case .edit:
        guard let target else { continue }
        arguments = ["edit", target, "--dose", marker, "--environment", marker]
      case .delete:
        guard let target else { continue }
        arguments = ["delete", target, "--yes"]
      case .undo: arguments = ["undo"]
      case .passwd:
        let next =
          f.passphrase == ReliabilityFixture.passphrase
          ? "other" : "pass"
        arguments = [
          "passwd", "--kdf", "interactive", "--new-passphrase-file", f.secrets + "/" + next,
        ]
      case .importFile: arguments = ["import", importFile]
      }
      let process =
        step == .newDraft
        ? f.cli.interactive(arguments) : f.cli.interactive(arguments + ["--no-input"])
      if step == .newDraft {
        // Answers typed ahead, a few at a time, so the kill can fall between draft writes;
        // once the first question shows (what is typed before it is dropped).
        _ = process.expect("When was it?", timeout: 10)
        for answer in ["2026-11-20 19:00\n", "mdma\n", "\(marker)\n", "to rest\n.\n"] {
          usleep(UInt32.random(in: 0...60_000, using: &generator))
          process.write(answer)
        }
      }
      usleep(delay)
      process.signal(SIGKILL)
      let result = process.wait()
      let completed = result.status == 0
      if completed { finished += 1 } else { kills += 1 }
      // What the process reported as done is recorded before checking.
      if completed {
        switch step {
        case .newSave:
          let id = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
          ledger.saved[id] = marker
        case .edit: if let target { ledger.doses[target] = marker }
        case .delete: if let target { ledger.deleted.insert(target) }
        case .undo: ledger.deleted.removeAll()
        case .passwd:
          f.usePassphrase(
            f.passphrase == ReliabilityFixture.passphrase
              ? ReliabilityFixture.otherPassphrase : ReliabilityFixture.passphrase)
        case .newDraft, .reflect, .importFile: break
        }
      }
      // Then: exactly one passphrase opens the vault, and verify passes.
      var verify = f.run("verify")
      if verify.status == 4 {
        let other =
          f.passphrase == ReliabilityFixture.passphrase
          ? ReliabilityFixture.otherPassphrase : ReliabilityFixture.passphrase
        #expect(step == .passwd && !completed, "round \(round) \(step): passphrase lost")
        f.usePassphrase(other)
        verify = f.run("verify")
      }
      #expect(verify.status == 0, "round \(round) \(step) after kill: \(verify)")
      if verify.status != 0 { losses += 1 }
      // Deletions and undos that were cut short: the session is whole in one place.
      if step == .delete || step == .undo {
        let ids = Set(f.ids())
        for id in ledger.saved.keys where !ids.contains(id) {
          ledger.deleted.insert(id)
        }
        for id in ledger.deleted where ids.contains(id) { ledger.deleted.remove(id) }
      }
      // Every reported save is there, whole.
      let present = Set(f.ids())
      for (id, intention) in ledger.saved where !ledger.deleted.contains(id) {
        guard present.contains(id) else {
          Issue.record("round \(round) \(step): saved session \(id) is gone")
          losses += 1
          continue
        }
        let session = f.show(id)
        #expect(session?["intention"] as? String == intention, "round \(round): \(id)")
        if let dose = ledger.doses[id] {
          // An edit sets both fields at once: never one without the other. What is there is
          // the last reported edit or a later one that committed before its kill.
          let now = session?["dose"] as? String
          #expect(now == session?["environment"] as? String, "round \(round): torn edit")
          if Self.round(of: now) < Self.round(of: dose) {
            Issue.record("round \(round): reported edit of \(id) lost")
            losses += 1
          }
        }
      }
      // A draft cut short is readable or gone, never torn.
      let drafts = f.run("drafts")
      #expect(drafts.status == 0 && !drafts.stderr.contains("could not be read"), "\(drafts)")
    }
    // The imported sessions are all there or none (all or nothing per run).
    let imported = f.ids().filter { $0.hasPrefix("00000000") }
    #expect(imported.count == 0 || imported.count == 3, "import half done: \(imported)")
    #expect(losses == 0)
    Torture.report(
      "crash (kill -9)",
      [
        "rounds": rounds, "killed mid-run": kills, "finished before the kill": finished,
        "losses": losses,
      ])
  }

  /// The round number a marker was written in ("round-12-…" is 12), or -1.
  static func round(of marker: String?) -> Int {
    guard let marker, marker.hasPrefix("round-") else { return -1 }
    return Int(marker.dropFirst(6).prefix { $0 != "-" }) ?? -1
  }

  /// A journal export of `count` sessions with fixed ids, for the import rounds.
  func makeImportFile(_ path: String, count: Int) throws {
    let sessions = (0..<count).map { index -> [String: Any] in
      [
        "id": String(format: "%032d", index + 1),
        "date": "2026-10-0\(index + 1)T18:00:00.000Z", "treatment": "lsd",
        "treatment_name": NSNull(), "dose": NSNull(), "intention": "imported \(index)",
        "mood_before": 5, "environment": NSNull(), "music": NSNull(), "mood_after": NSNull(),
        "reflection": NSNull(), "status": "needs_reflection",
        "created": "2026-10-0\(index + 1)T18:00:00.000Z",
        "updated": "2026-10-0\(index + 1)T18:00:00.000Z",
      ]
    }
    let object: [String: Any] = [
      "format": "journal-export", "version": 1, "exported": "2026-11-01T00:00:00.000Z",
      "sessions": sessions,
    ]
    let data = try JSONSerialization.data(withJSONObject: object)
    try data.write(to: URL(fileURLWithPath: path))
  }
}
