import Dispatch
import JournalCore
import JournalCrypto
import Synchronization

/// Sealed summaries read from the vault and waiting to be opened, copied out of SQLite's row
/// buffers (valid only until the next step) into one arena, so that several threads can open
/// them at once: the work per row (a BLAKE2b key, XSalsa20-Poly1305, the decoding) is
/// independent, and was most of `list`.
struct SummaryBatch: Sendable {
  /// Rows per batch: enough to be worth a second thread, few enough that the arena stays
  /// near 1 MiB whatever the size of the vault.
  static let capacity = 4096
  /// Below this many rows a batch is opened on the calling thread alone.
  static let parallelMinimum = 256

  private struct Entry: Sendable {
    let id: SessionID
    /// The clear status column, or nil when it holds no known status (damage).
    let status: SessionStatus?
    let sealed: Range<Int>
  }

  private var entries: [Entry] = []
  private var arena: [UInt8] = []

  var count: Int { entries.count }

  init() {
    entries.reserveCapacity(Self.capacity)
    arena.reserveCapacity(Self.capacity * 320)
  }

  mutating func append(
    id: SessionID, status: UnsafeRawBufferPointer, sealed: UnsafeRawBufferPointer
  ) {
    let start = arena.count
    arena.append(contentsOf: sealed)
    entries.append(
      Entry(
        id: id, status: RecordCodec.status(named: status),
        sealed: start..<arena.count))
  }

  mutating func removeAll() {
    entries.removeAll(keepingCapacity: true)
    arena.removeAll(keepingCapacity: true)
  }

  /// Opens every row on as many threads as there are openers (each thread holding one) and
  /// returns the summaries (in no order) and the ids of the rows that failed to open. The
  /// threads take small runs of rows as they go rather than a fixed share each: on a busy
  /// machine one of them may not run for a while, and the others then do its part.
  func open(with openers: [RecordCipher.Opener]) -> (
    sessions: [SessionSummary], damaged: [SessionID]
  ) {
    let parts = entries.count >= Self.parallelMinimum ? openers.count : 1
    guard parts > 1 else { return open(0..<entries.count, with: openers[0]) }
    let results = Results(count: parts)
    defer { results.deallocate() }
    let next = Atomic<Int>(0)
    let run = 64
    DispatchQueue.concurrentPerform(iterations: parts) { part in
      var sessions: [SessionSummary] = []
      var damaged: [SessionID] = []
      sessions.reserveCapacity(entries.count / parts + run)
      while true {
        let start = next.add(run, ordering: .relaxed).oldValue
        guard start < entries.count else { break }
        open(
          start..<min(start + run, entries.count), with: openers[part], into: &sessions,
          damaged: &damaged)
      }
      results.set(part, (sessions, damaged))
    }
    var sessions: [SessionSummary] = []
    var damaged: [SessionID] = []
    sessions.reserveCapacity(entries.count)
    for part in 0..<parts {
      sessions += results[part].sessions
      damaged += results[part].damaged
    }
    return (sessions, damaged)
  }

  private func open(
    _ range: Range<Int>, with opener: RecordCipher.Opener
  ) -> (sessions: [SessionSummary], damaged: [SessionID]) {
    var sessions: [SessionSummary] = []
    var damaged: [SessionID] = []
    sessions.reserveCapacity(range.count)
    open(range, with: opener, into: &sessions, damaged: &damaged)
    return (sessions, damaged)
  }

  private func open(
    _ range: Range<Int>, with opener: RecordCipher.Opener, into sessions: inout [SessionSummary],
    damaged: inout [SessionID]
  ) {
    arena.withUnsafeBytes { arena in
      for entry in entries[range] {
        do {
          guard let status = entry.status else { throw CryptoError.integrity }
          let summary = try entry.id.withBytes { id in
            try opener.open(
              UnsafeRawBufferPointer(rebasing: arena[entry.sealed]), id: id, column: .summary
            ) { plain in try RecordCodec.decodeSummary(plain, id: entry.id) }
          }
          // The clear status column must agree with the sealed one, or it has been edited.
          guard summary.status == status else { throw CryptoError.integrity }
          sessions.append(summary)
        } catch {
          damaged.append(entry.id)
        }
      }
    }
  }

  /// One result slot per thread, each written by its own thread only.
  private final class Results: @unchecked Sendable {
    // @unchecked: slot i is written only by the thread opening part i, and read only after
    // concurrentPerform has returned.
    private let slots: UnsafeMutablePointer<(sessions: [SessionSummary], damaged: [SessionID])>
    private let count: Int

    init(count: Int) {
      self.count = count
      slots = .allocate(capacity: count)
      slots.initialize(repeating: ([], []), count: count)
    }

    func set(_ index: Int, _ value: (sessions: [SessionSummary], damaged: [SessionID])) {
      slots[index] = value
    }

    subscript(index: Int) -> (sessions: [SessionSummary], damaged: [SessionID]) { slots[index] }

    func deallocate() {
      slots.deinitialize(count: count)
      slots.deallocate()
    }
  }
}
