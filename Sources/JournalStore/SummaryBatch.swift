import JournalCore
import JournalCrypto
import JournalStorage

/// Sealed summaries read from the vault and waiting to be opened, copied out of SQLite's row
/// buffers (valid only until the next step) into one arena, so that another thread can open
/// them while the next rows are read: the work per row (a BLAKE2b key, XSalsa20-Poly1305,
/// the decoding) is independent, and was most of `list`. See SummaryPipeline.
final class SummaryBatch: @unchecked Sendable {
  // @unchecked: a batch is filled by the reading thread, then handed (under the pipeline's
  // mutex) to the one thread that opens and empties it; never used by two threads at once.
  /// Rows per batch: small enough that two threads share the work evenly and the arena stays
  /// near 300 KiB, large enough that handing a batch over costs nothing in comparison.
  static let capacity = 1024

  private struct Entry: Sendable {
    let id: SessionID
    /// The clear status column, or nil when it holds no known status (damage).
    let status: SessionStatus?
    /// The row's revision, which its summary's key is derived with (negative: damage).
    let revision: Int64
    let sealed: Range<Int>
  }

  private var entries: [Entry] = []
  private var arena: [UInt8] = []

  var count: Int { entries.count }

  init() {
    entries.reserveCapacity(Self.capacity)
    arena.reserveCapacity(Self.capacity * 320)
  }

  func append(
    id: SessionID, status: UnsafeRawBufferPointer, revision: Int64,
    sealed: UnsafeRawBufferPointer
  ) {
    let start = arena.count
    arena.append(contentsOf: sealed)
    entries.append(
      Entry(
        id: id, status: RecordCodec.status(named: status), revision: revision,
        sealed: start..<arena.count))
  }

  func removeAll() {
    entries.removeAll(keepingCapacity: true)
    arena.removeAll(keepingCapacity: true)
  }

  /// Opens every row with `opener`, adding what `make` makes of each summary (and the
  /// revision it was opened at) to `items` and the ids of the rows that failed to open to
  /// `damaged`.
  func open<Item>(
    with opener: RecordCipher.Opener, make: (SessionSummary, _ revision: Int64) -> Item?,
    into items: inout [Item],
    damaged: inout [SessionID]
  ) {
    arena.withUnsafeBytes { arena in
      for entry in entries {
        do {
          let summary = try SessionStore.openSummary(
            opener, id: entry.id, revision: entry.revision, stored: entry.status,
            sealed: UnsafeRawBufferPointer(rebasing: arena[entry.sealed]))
          if let item = make(summary, entry.revision) { items.append(item) }
        } catch {
          damaged.append(entry.id)
        }
      }
    }
  }
}
