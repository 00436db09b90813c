import Dispatch
import JournalCore
import JournalCrypto
import Synchronization

/// Opens the batches of a list while the rows are still being read: the reading thread hands
/// each full batch over, a helper thread opens batches as they come, and the reading thread
/// opens whatever is still waiting once it has read everything. With a second core free the
/// work is shared; on a busy machine, where the helper may not be scheduled for a while,
/// nothing waits for it but its last batch.
///
/// Each opened summary is handed to `make` (with the revision it was opened at) on the thread
/// that opened it, and what it returns (nil: left out) is kept: the summaries themselves for
/// `list`, or only a session's place for a streamed read, which then holds 24 or 32 bytes a
/// session instead of a summary's 120. What
/// the helper keeps goes to the reading thread a batch at a time, into the one array: two
/// arrays joined at the end held every summary up to three times over (a million: ~250 MB).
final class SummaryPipeline<Item: Sendable>: @unchecked Sendable {
  // @unchecked: `state` is behind its mutex; `reader` is used only by the reading thread (the
  // helper job keeps what it opens in a local until it hands it over under the mutex).
  private struct State {
    /// Full batches, in the order read.
    var waiting: [SummaryBatch] = []
    /// Opened batches, emptied, to be filled again (no new arena per batch).
    var spare: [SummaryBatch] = []
    var helperRunning = false
    /// What the helper kept of the batches it opened, not yet taken by the reading thread.
    var opened: [Item] = []
    var damaged: [SessionID] = []
  }

  private let state = Mutex(State())
  private let jobs = DispatchGroup()
  /// [0] for the reading thread, [1] (when there is a second core) for the helper.
  private let openers: [RecordCipher.Opener]
  private let make: @Sendable (SessionSummary, _ revision: Int64) -> Item?
  private var reader: (items: [Item], damaged: [SessionID]) = ([], [])
  /// Batches that may wait before the reading thread opens one itself: bounds the memory
  /// when the helper falls behind or never runs.
  private static var backlog: Int { 2 }

  /// With one opener, everything is opened on the reading thread into one array of
  /// `reserve` items.
  init(
    openers: [RecordCipher.Opener], reserve: Int = 0,
    make: @escaping @Sendable (SessionSummary, _ revision: Int64) -> Item?
  ) {
    precondition(!openers.isEmpty, "at least one opener")
    self.openers = openers
    self.make = make
    reader.items.reserveCapacity(reserve)
  }

  /// Hands over a batch and returns an empty one to fill next. Full batches wake the helper;
  /// a short last one is left for `finish`.
  func submit(_ batch: SummaryBatch) -> SummaryBatch {
    guard batch.count > 0 else { return batch }
    let full = batch.count >= SummaryBatch.capacity
    let (wake, overflow) = state.withLock { state in
      state.waiting.append(batch)
      let wake = full && openers.count > 1 && !state.helperRunning
      if wake { state.helperRunning = true }
      return (wake, state.waiting.count > Self.backlog ? state.waiting.removeFirst() : nil)
    }
    if wake { DispatchQueue.global().async(group: jobs) { self.help() } }
    if let overflow { open(overflow, with: openers[0], into: &reader) }
    takeOpened()
    return state.withLock { $0.spare.popLast() } ?? SummaryBatch()
  }

  /// Opens what is still waiting, waits for the helper, and returns every item kept (in no
  /// order) and the ids of the rows that failed to open.
  func finish() -> (items: [Item], damaged: [SessionID]) {
    while let batch = next() { open(batch, with: openers[0], into: &reader) }
    wait()
    takeOpened()
    let items = reader.items
    reader.items = []
    return (items, reader.damaged)
  }

  /// Moves what the helper has opened so far into the reading thread's array.
  private func takeOpened() {
    let (opened, damaged) = state.withLock { state in
      defer {
        state.opened = []
        state.damaged = []
      }
      return (state.opened, state.damaged)
    }
    reader.items.append(contentsOf: opened)
    reader.damaged += damaged
  }

  /// Waits until no helper job is running (also when reading failed half-way, so that no
  /// opener is still in use once the list returns).
  func wait() { jobs.wait() }

  private func help() {
    while let batch = state.withLock({ state -> SummaryBatch? in
      if state.waiting.isEmpty { state.helperRunning = false }
      return state.waiting.isEmpty ? nil : state.waiting.removeFirst()
    }) {
      var opened: (items: [Item], damaged: [SessionID]) = ([], [])
      open(batch, with: openers[1], into: &opened)
      state.withLock { state in
        state.opened.append(contentsOf: opened.items)
        state.damaged += opened.damaged
      }
    }
  }

  private func next() -> SummaryBatch? {
    state.withLock { $0.waiting.isEmpty ? nil : $0.waiting.removeFirst() }
  }

  private func open(
    _ batch: SummaryBatch, with opener: RecordCipher.Opener,
    into results: inout (items: [Item], damaged: [SessionID])
  ) {
    batch.open(with: opener, make: make, into: &results.items, damaged: &results.damaged)
    batch.removeAll()
    state.withLock { $0.spare.append(batch) }
  }
}
