import Foundation
import JournalFuzzHarness
import Testing

/// The committed fuzzing corpus (Fuzz/Corpus/<target>/), replayed through the same entry
/// points the libFuzzer targets call: every input found interesting stays a regression test.
/// Serialized: replay and seeds write the same draft file of the harness, which one would
/// otherwise remove while the other reads it.
@Suite(.serialized) struct FuzzCorpusTests {
  static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("../../Fuzz/Corpus").standardized.path

  /// The errors a parser may refuse an input with: journal's own, each with words and an
  /// exit code. Anything else (a Foundation error, a bug's) would reach a person as an
  /// internal error.
  static let documentedRefusals: Set<String> = [
    "Malformed", "FieldError", "AppError", "CryptoError", "StoreError", "DraftError",
  ]

  /// Every corpus file of every target runs through its parser without a crash, and every
  /// refusal is a documented one. (The agent target starts an agent, with its signal
  /// handlers, in the process: it is replayed by Scripts/torture's fuzz run, not here.)
  @Test func replay() throws {
    var inputs = 0
    var verdicts: [String: Int] = [:]
    for (name, target) in FuzzHarness.targets where name != "agent" {
      let directory = Self.corpus + "/" + name
      let files = try FileManager.default.contentsOfDirectory(atPath: directory)
      #expect(!files.isEmpty, "no corpus for \(name)")
      for file in files {
        let data = try Data(contentsOf: URL(fileURLWithPath: directory + "/" + file))
        data.withUnsafeBytes { target($0) }
        switch data.withUnsafeBytes({ FuzzHarness.verdict(name, $0) }) {
        case .refused(let type):
          #expect(Self.documentedRefusals.contains(type), "\(name)/\(file): refused by \(type)")
          verdicts["refused", default: 0] += 1
        case .accepted: verdicts["accepted", default: 0] += 1
        case nil: break
        }
        inputs += 1
      }
    }
    #expect(verdicts["accepted", default: 0] > 0 && verdicts["refused", default: 0] > 0)
    Torture.report(
      "fuzz corpus replay",
      [
        "inputs": inputs, "accepted": verdicts["accepted", default: 0],
        "refused": verdicts["refused", default: 0],
      ])
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
        // What journal's own writers make, its own readers accept.
        let verdict = seed.withUnsafeBytes { FuzzHarness.verdict(name, $0) }
        #expect(
          verdict == nil || verdict == .accepted,
          "\(name) seed \(index): \(String(describing: verdict))")
      }
    }
  }

  /// The harness's own directories are registered as they are made and removed at exit: a
  /// test run leaves nothing in the temporary directory.
  @Test func harnessRemovesItsDirectories() throws {
    let path = FuzzHarness.privateDirectory("cleanup-check")
    #expect(FileManager.default.fileExists(atPath: path))
    #expect(FuzzHarness.directories.contains(path))
    FuzzHarness.removeDirectories(only: [path])
    #expect(!FileManager.default.fileExists(atPath: path))
    #expect(!FuzzHarness.directories.contains(path))
  }
}
