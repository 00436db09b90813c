import Foundation
import JournalTestSupport

/// How hard the reliability suites push: light in every test run, heavy under
/// Scripts/torture, which sets JOURNAL_TORTURE_* (all counts, plus the seed). Every suite
/// prints one `reliability:` line with its figures; Scripts/torture collects them.
enum Torture {
  static let environment = ProcessInfo.processInfo.environment

  /// A count: JOURNAL_TORTURE_<name> if set, else `light`.
  static func count(_ name: String, light: Int) -> Int {
    environment["JOURNAL_TORTURE_" + name].flatMap(Int.init) ?? light
  }

  /// The seed of every random choice: JOURNAL_TORTURE_SEED, else one per run (printed, so a
  /// failure can be replayed).
  static let seed: UInt64 = {
    if let text = environment["JOURNAL_TORTURE_SEED"], let seed = UInt64(text) { return seed }
    return UInt64.random(in: 1...999_999)
  }()

  /// Prints a suite's figures, and appends them to JOURNAL_TORTURE_REPORT when set.
  static func report(_ category: String, _ figures: KeyValuePairs<String, Int>) {
    let text =
      "reliability: \(category): "
      + figures.map { "\($0.key) \($0.value)" }.joined(separator: ", ") + " (seed \(seed))"
    print(text)
    guard let path = environment["JOURNAL_TORTURE_REPORT"],
      let handle = FileHandle(forWritingAtPath: path)
    else { return }
    handle.seekToEndOfFile()
    handle.write(Data((text + "\n").utf8))
    handle.closeFile()
  }
}

/// Reproducible choices from the torture seed (SplitMix64, JournalTestSupport's).
struct TortureRandom: RandomNumberGenerator {
  private var generator: SeededGenerator

  init(_ salt: UInt64) { generator = SeededGenerator(seed: Torture.seed, salt: salt) }

  mutating func next() -> UInt64 { generator.next() }

  /// `count` distinct positions below `limit`: all of them when the sample would cover it.
  mutating func positions(_ limit: Int, count: Int) -> [Int] {
    guard count < limit else { return Array(0..<limit) }
    var chosen = Set<Int>()
    while chosen.count < count { chosen.insert(Int.random(in: 0..<limit, using: &self)) }
    return chosen.sorted()
  }
}
