/// One byte to point at when a buffer is empty: libsodium is then told a length of zero and
/// never reads it, but its parameters are declared non-null.
nonisolated(unsafe) private let emptyByte = UnsafeMutablePointer<UInt8>.allocate(capacity: 1)

extension UnsafeRawBufferPointer {
  /// The buffer's start as a byte pointer, for libsodium's C parameters.
  var bytes: UnsafePointer<UInt8> {
    baseAddress?.assumingMemoryBound(to: UInt8.self) ?? UnsafePointer(emptyByte)
  }
}

extension UnsafeMutableRawBufferPointer {
  /// The buffer's start as a byte pointer, for libsodium's C parameters.
  var bytes: UnsafeMutablePointer<UInt8> {
    baseAddress?.assumingMemoryBound(to: UInt8.self) ?? emptyByte
  }
}
