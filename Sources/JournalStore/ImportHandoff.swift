import Foundation
import JournalCore

/// Reads an import on a thread of its own while the writing thread seals and writes what it
/// read: parsing the file and sealing and writing the rows each took about half of an import
/// on one core.
///
/// Sessions cross in batches of 64, at most four batches waiting (memory holds a few hundred
/// sessions whatever the file's size). The writing thread takes them in the order read, so
/// what is written, counted and refused is exactly what reading and writing one after the
/// other would do: an error of the reader is raised once everything it read before it has
/// been written; an error of the writer stops the reader at its next session, and is the one
/// raised. Either way the caller's transaction is undone.
final class ImportHandoff: @unchecked Sendable {
  // @unchecked: every field is read and written with `condition` locked.
  private let condition = NSCondition()
  private var batches: [[Session]] = []
  private var finished = false
  private var failure: (any Error)?
  private var stopped = false
  private let exited = DispatchSemaphore(value: 0)
  /// What the reading thread runs; taken by it, and let go before it says it has exited.
  private var reader: Reader?

  private static let batchSize = 64
  private static let backlog = 4

  /// The reader was told to stop: the writer failed.
  private struct Stopped: Error {}

  /// A closure that does not escape, handed to the reading thread, which is always waited
  /// for before `run` returns.
  private struct Reader: @unchecked Sendable {
    let read: (_ take: (Session) throws -> Void) throws -> Void
  }

  /// Runs `produce` on a reading thread and hands each session it takes to `consume` on this
  /// one, in order; returns once both are done.
  static func run(
    _ produce: (_ take: (Session) throws -> Void) throws -> Void,
    _ consume: (Session) throws -> Void
  ) throws {
    let handoff = ImportHandoff()
    try withoutActuallyEscaping(produce) { produce in
      // Only the handoff holds the closure (never the thread object, which may outlive this
      // call): `withoutActuallyEscaping` checks that nothing does once it returns.
      handoff.reader = Reader(read: produce)
      let thread = Thread { handoff.readAll() }
      // As much stack as the main thread has: Foundation's parser recurses.
      thread.stackSize = 8 << 20
      thread.start()
      defer {
        handoff.stop()
        handoff.exited.wait()
      }
      try handoff.write(consume)
    }
  }

  private func readAll() {
    let error = readOnce()
    condition.lock()
    finished = true
    failure = error
    condition.broadcast()
    condition.unlock()
    exited.signal()
  }

  /// Runs the reader once and lets go of it; what it threw.
  private func readOnce() -> (any Error)? {
    condition.lock()
    let taken = reader
    reader = nil
    condition.unlock()
    guard let taken else { return nil }
    var batch: [Session] = []
    batch.reserveCapacity(Self.batchSize)
    do {
      try taken.read { session in
        batch.append(session)
        guard batch.count == Self.batchSize else { return }
        try hand(batch)
        batch = []
        batch.reserveCapacity(Self.batchSize)
      }
      if !batch.isEmpty { try hand(batch) }
    } catch {
      return error
    }
    return nil
  }

  private func hand(_ batch: [Session]) throws {
    condition.lock()
    defer { condition.unlock() }
    while batches.count >= Self.backlog && !stopped { condition.wait() }
    guard !stopped else { throw Stopped() }
    batches.append(batch)
    condition.broadcast()
  }

  private func write(_ consume: (Session) throws -> Void) throws {
    while true {
      condition.lock()
      while batches.isEmpty && !finished { condition.wait() }
      guard !batches.isEmpty else {
        let failure = self.failure
        condition.unlock()
        if let failure { throw failure }
        return
      }
      let batch = batches.removeFirst()
      condition.broadcast()
      condition.unlock()
      for session in batch { try consume(session) }
    }
  }

  private func stop() {
    condition.lock()
    stopped = true
    condition.broadcast()
    condition.unlock()
  }
}
