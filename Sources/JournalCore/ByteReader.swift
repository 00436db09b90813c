/// Reads a layout's fields in order from its bytes, each integer in the byte order the layout
/// names: the one reader of every format journal stores or sends (records, drafts, sync rows
/// and links, the ledger, the witness record, the agent's frames, PostgreSQL's binary values).
/// Bounds-checked: asking for more than is left throws `ByteReader.Short` and reads nothing,
/// so a short or lying length never traps. It reads the buffer it was made with, so it lives
/// only as long as that buffer does (inside its `withUnsafeBytes`).
public struct ByteReader {
  /// The bytes ended before the field asked for did.
  public struct Short: Error, Equatable {
    public init() {}
  }

  @usableFromInline let base: UnsafeRawBufferPointer
  @usableFromInline var position: Int

  /// Where the next field starts.
  @inlinable public var offset: Int { position }

  @inlinable public init(_ bytes: UnsafeRawBufferPointer, from offset: Int = 0) {
    base = bytes
    position = min(max(offset, 0), bytes.count)
  }

  /// How many bytes are left.
  @inlinable public var remaining: Int { base.count - position }

  /// Whether every byte has been read.
  @inlinable public var isAtEnd: Bool { position == base.count }

  /// The next byte.
  @inlinable public mutating func byte() throws(Short) -> UInt8 {
    guard position < base.count else { throw Short() }
    defer { position += 1 }
    return base[position]
  }

  /// The next `count` bytes, as a slice of the buffer (no copy).
  @inlinable public mutating func bytes(_ count: Int) throws(Short) -> UnsafeRawBufferPointer {
    guard count >= 0, count <= remaining else { throw Short() }
    defer { position += count }
    return UnsafeRawBufferPointer(rebasing: base[position..<(position + count)])
  }

  /// Everything not read yet.
  @inlinable public mutating func rest() -> UnsafeRawBufferPointer {
    defer { position = base.count }
    return UnsafeRawBufferPointer(rebasing: base[position...])
  }

  /// The next integer of `T`'s size, little-endian.
  @inlinable public mutating func littleEndian<T: FixedWidthInteger>(
    _: T.Type = T.self
  ) throws(Short) -> T {
    T(littleEndian: try load(T.self))
  }

  /// The next integer of `T`'s size, big-endian.
  @inlinable public mutating func bigEndian<T: FixedWidthInteger>(
    _: T.Type = T.self
  ) throws(Short) -> T {
    T(bigEndian: try load(T.self))
  }

  @inlinable mutating func load<T: FixedWidthInteger>(_: T.Type) throws(Short) -> T {
    let size = MemoryLayout<T>.size
    guard size <= remaining else { throw Short() }
    defer { position += size }
    return base.loadUnaligned(fromByteOffset: position, as: T.self)
  }
}
