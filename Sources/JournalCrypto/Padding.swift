/// ISO/IEC 7816-4 padding, as `sodium_pad` writes it: the plaintext, one 0x80 byte, then
/// zeros up to a multiple of the block size.
public enum Padding {
  /// Pads `plaintext` into `out` (at least `paddedCount(plaintext.count, block:)` bytes) and
  /// returns the padded length: the bytes `sodium_pad` writes, at a copy and a fill's cost
  /// (sodium_pad goes a byte at a time, in constant time over the whole buffer, which was a
  /// twentieth of an import). The length it takes is not secret: it is the stored length.
  public static func pad(
    _ plaintext: UnsafeRawBufferPointer, into out: UnsafeMutableRawBufferPointer, block: Int
  ) -> Int {
    let count = paddedCount(plaintext.count, block: block)
    precondition(out.count >= count, "room for the padded plaintext")
    guard let base = out.baseAddress else { return 0 }
    if let source = plaintext.baseAddress, !plaintext.isEmpty {
      base.copyMemory(from: source, byteCount: plaintext.count)
    }
    base.storeBytes(of: 0x80, toByteOffset: plaintext.count, as: UInt8.self)
    (base + plaintext.count + 1).initializeMemory(
      as: UInt8.self, repeating: 0, count: count - plaintext.count - 1)
    return count
  }

  /// The length of `count` bytes padded: the next multiple of `block` above `count` (a full
  /// block more when `count` is one already).
  public static func paddedCount(_ count: Int, block: Int) -> Int { (count / block + 1) * block }

  /// The plaintext length of `padded`, or nil when its last block holds no valid padding.
  ///
  /// The same answer as `sodium_unpad`, and like it in constant time over the last block (the
  /// time does not depend on the bytes, only on `block`), but a word at a time: sodium_unpad
  /// takes about 25 instructions a byte, which was a tenth of `list`. Called only on
  /// plaintexts that have already passed authentication.
  public static func unpaddedCount(_ padded: UnsafeRawBufferPointer, block: Int) -> Int? {
    precondition(block > 0 && block % 8 == 0, "the block is a multiple of 8 bytes")
    guard padded.count >= block else { return nil }
    let tail = padded.count - block
    // The last word that is not all zeros, and its index, chosen without branches.
    var lastWord: UInt64 = 0
    var lastIndex: UInt64 = 0
    for index in 0..<(block / 8) {
      let word = UInt64(
        littleEndian: padded.loadUnaligned(fromByteOffset: tail + index * 8, as: UInt64.self))
      let mask = 0 &- ((word | (0 &- word)) >> 63)  // all ones when the word is not zero
      lastWord = (word & mask) | (lastWord & ~mask)
      lastIndex = (UInt64(index) & mask) | (lastIndex & ~mask)
    }
    // Its highest non-zero byte is the last non-zero byte of the block; it must be 0x80.
    // (With no such word, lastWord is 0 and the check below fails.)
    let byteIndex = UInt64(63 &- (lastWord | 1).leadingZeroBitCount) >> 3
    let byte = (lastWord >> (byteIndex << 3)) & 0xFF
    guard byte == 0x80 else { return nil }
    return tail + Int(lastIndex << 3 | byteIndex)
  }
}
