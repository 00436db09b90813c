/// Integers appended to bytes in the byte order a layout names: the one writer of every
/// format journal stores or sends, and `ByteReader` the one reader. An extension of `[UInt8]`
/// rather than a type of its own, so that a layout is written straight into the array it is
/// built in (`FieldCodec.put(_:into:)` and its callers build records that way).
extension [UInt8] {
  /// Appends `value` in its size, little-endian.
  @inlinable public mutating func append<T: FixedWidthInteger>(littleEndian value: T) {
    Swift.withUnsafeBytes(of: value.littleEndian) { append(contentsOf: $0) }
  }

  /// Appends `value` in its size, big-endian.
  @inlinable public mutating func append<T: FixedWidthInteger>(bigEndian value: T) {
    Swift.withUnsafeBytes(of: value.bigEndian) { append(contentsOf: $0) }
  }
}
