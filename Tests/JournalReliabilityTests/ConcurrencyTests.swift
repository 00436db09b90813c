import Foundation
import Glibc
import JournalTestSupport
import Testing

/// Two and four processes writing and reading one vault at once: no lost update, and no
/// "database is locked" reaching a person as a crash.
@Suite(.serialized) struct ConcurrencyTests {
  /// Each worker owns one field of a shared session and edits it again and again, creates
  /// sessions of its own, and reads (list, show) in between. At the end every session
  /// created is there, and each field holds its worker's last reported value.
  @Test(arguments: [2, 4]) func workers(_ count: Int) throws {
    let f = ReliabilityFixture().initialise()
    let shared = try #require(f.new(intention: "shared"))
    let operations = Torture.count("CONCURRENT_OPS", light: count == 2 ? 12 : 8)
    let fields = ["--dose", "--environment", "--music", "--reflection"]
    let keys = ["dose", "environment", "music", "reflection"]
    let tally = Tally()
    DispatchQueue.concurrentPerform(iterations: count) { worker in
      for step in 0..<operations {
        let value = "w\(worker)-s\(step)"
        let result: CLI.Result
        switch step % 3 {
        case 0:
          result = f.cli.run([
            "new", "--intention", value, "--mood-before", "5", "--remind", "none",
          ])
          if result.status == 0 {
            tally.locked { $0.created[result.stdout.trimmingCharacters(in: .newlines)] = value }
          }
        case 1:
          result = f.cli.run(["edit", shared, fields[worker], value])
          if result.status == 0 { tally.locked { $0.lastValue[worker] = value } }
        default:
          result = f.cli.run(step % 2 == 0 ? ["list"] : ["show", shared])
        }
        tally.locked {
          $0.done += 1
          if result.status != 0 || result.stderr.contains("locked") {
            $0.anomalies.append("worker \(worker) step \(step): \(result)")
          }
        }
      }
    }
    let (created, lastValue, anomalies, done) = (
      tally.created, tally.lastValue, tally.anomalies, tally.done
    )
    #expect(anomalies.isEmpty, "\(anomalies)")
    let ids = Set(f.ids())
    for (id, intention) in created {
      #expect(ids.contains(id), "created \(id) is gone")
      #expect(f.show(id)?["intention"] as? String == intention)
    }
    let session = f.show(shared)
    for worker in 0..<count {
      #expect(session?[keys[worker]] as? String == lastValue[worker], "worker \(worker) lost")
    }
    #expect(f.run("verify").status == 0)
    Torture.report(
      "concurrency (\(count) processes)", ["operations": done, "anomalies": anomalies.count])
  }
}

/// What the workers report, behind a lock.
final class Tally: @unchecked Sendable {
  var created: [String: String] = [:]
  var lastValue: [Int: String] = [:]
  var anomalies: [String] = []
  var done = 0
  private let lock = NSLock()

  func locked(_ body: (Tally) -> Void) {
    lock.lock()
    defer { lock.unlock() }
    body(self)
  }
}
