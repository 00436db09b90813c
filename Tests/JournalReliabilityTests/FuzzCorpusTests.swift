import Foundation
import JournalFuzzHarness
import Testing

/// The committed fuzzing corpus (Fuzz/Corpus/<target>/), replayed through the same entry
/// points the libFuzzer targets call: every input found interesting stays a regression test.
struct FuzzCorpusTests {
  static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("../../Fuzz/Corpus").standardized.path

  /// Every corpus file of every target runs through its parser without a crash. (The agent
  /// target starts an agent, with its signal handlers, in the process: it is replayed by
  /// Scripts/torture's fuzz run, not inside the test runner.)
  @Test func replay() throws {
    var inputs = 0
    for (name, target) in FuzzHarness.targets where name != "agent" {
      let directory = Self.corpus + "/" + name
      let files = try FileManager.default.contentsOfDirectory(atPath: directory)
      #expect(!files.isEmpty, "no corpus for \(name)")
      for file in files {
        let data = try Data(contentsOf: URL(fileURLWithPath: directory + "/" + file))
        data.withUnsafeBytes { target($0) }
        inputs += 1
      }
    }
    Torture.report("fuzz corpus replay", ["inputs": inputs])
  }

  /// With JOURNAL_FUZZ_WRITE_SEEDS=1, writes the seeds made by journal's own writers into
  /// the corpus (Scripts/torture does this before fuzzing). Always checks they parse.
  @Test func seeds() throws {
    let write = ProcessInfo.processInfo.environment["JOURNAL_FUZZ_WRITE_SEEDS"] == "1"
    for (name, seeds) in try FuzzHarness.seeds() {
      for (index, seed) in seeds.enumerated() {
        if write {
          let directory = Self.corpus + "/" + name
          try FileManager.default.createDirectory(
            atPath: directory, withIntermediateDirectories: true)
          try Data(seed).write(to: URL(fileURLWithPath: directory + "/seed-\(index)"))
        }
        if name != "agent" { seed.withUnsafeBytes { FuzzHarness.targets[name]?($0) } }
      }
    }
  }
}
