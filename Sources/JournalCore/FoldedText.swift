/// A text folded for searching (see `TextSearch.fold`): its bytes and, when asked for, the
/// original character each came from. One buffer is reused for every field of a session, so
/// that a search of every session allocates nothing per byte and zeroes nothing.
final class FoldedText {
  /// Where a folded byte came from: the original character's scalars.
  struct Origin: Equatable {
    let start: Int32
    let end: Int32
  }

  private(set) var bytes: UnsafeMutablePointer<UInt8>
  /// Allocated the first time origins are asked for (most searched fields hold no word), and
  /// only written while `recordsOrigins`.
  private(set) var origins: UnsafeMutablePointer<Origin>
  private var hasOrigins = false
  private(set) var count = 0
  private(set) var capacity: Int
  private(set) var recordsOrigins = false

  init(capacity: Int = 4096) {
    self.capacity = max(capacity, 64)
    bytes = .allocate(capacity: self.capacity)
    origins = .allocate(capacity: 1)
  }

  deinit {
    bytes.deallocate()
    origins.deallocate()
  }

  /// The folded bytes, valid until the buffer is next written.
  var folded: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: bytes, count: count) }

  /// Empties the buffer for a text of `expected` bytes (folded ASCII never grows).
  func reset(expected: Int, origins recording: Bool) {
    count = 0
    recordsOrigins = recording
    if recording, !hasOrigins {
      origins.deallocate()
      origins = .allocate(capacity: capacity)
      hasOrigins = true
    }
    reserve(expected)
  }

  /// Room for `more` bytes beyond `count`, keeping what is there.
  func reserve(_ more: Int) {
    let needed = count + more
    guard needed > capacity else { return }
    let grown = max(needed, capacity * 2)
    let newBytes = UnsafeMutablePointer<UInt8>.allocate(capacity: grown)
    newBytes.update(from: bytes, count: count)
    bytes.deallocate()
    bytes = newBytes
    if hasOrigins {
      let newOrigins = UnsafeMutablePointer<Origin>.allocate(capacity: grown)
      if recordsOrigins { newOrigins.update(from: origins, count: count) }
      origins.deallocate()
      origins = newOrigins
    }
    capacity = grown
  }

  /// The count after the caller wrote bytes (and origins) in place, within `reserve`d room.
  func setCount(_ newCount: Int) {
    precondition(newCount <= capacity, "written within the room reserved")
    count = newCount
  }

  /// Appends one byte from the character at scalars `origin`.
  func append(_ byte: UInt8, from origin: Origin) {
    reserve(1)
    bytes[count] = byte
    if recordsOrigins { origins[count] = origin }
    count += 1
  }
}
