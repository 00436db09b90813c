import JournalCore
import Testing

/// The one byte reader and writer: integers in either byte order, and a short input an error,
/// never a trap.
struct ByteReaderTests {
  /// What the writer appends, the reader reads back, field by field, in the byte order named.
  @Test func roundTrip() throws {
    // Given a layout of every kind of field
    var bytes: [UInt8] = [7]
    bytes.append(littleEndian: UInt32(0x0102_0304))
    bytes.append(bigEndian: UInt32(0x0102_0304))
    bytes.append(littleEndian: Int64(-2))
    bytes.append(bigEndian: UInt16(0xBEEF))
    bytes += [9, 9, 9]
    // Then the bytes are in the order named
    #expect(Array(bytes[1..<9]) == [4, 3, 2, 1, 1, 2, 3, 4])
    #expect(Array(bytes[9..<17]) == [0xFE] + [UInt8](repeating: 0xFF, count: 7))
    #expect(Array(bytes[17..<19]) == [0xBE, 0xEF])
    // And they read back
    try bytes.withUnsafeBytes { raw throws in
      var reader = ByteReader(raw)
      #expect(try reader.byte() == 7)
      #expect(try reader.littleEndian(UInt32.self) == 0x0102_0304)
      #expect(try reader.bigEndian(UInt32.self) == 0x0102_0304)
      #expect(try reader.littleEndian(Int64.self) == -2)
      #expect(try reader.bigEndian(UInt16.self) == 0xBEEF)
      #expect(reader.remaining == 3)
      #expect(Array(try reader.bytes(2)) == [9, 9])
      #expect(Array(reader.rest()) == [9])
      #expect(reader.isAtEnd)
    }
  }

  /// Asking for more than is left (a field cut short, a length that lies, a negative count)
  /// throws and moves nothing; what is left can still be read.
  @Test func shortInputThrows() throws {
    let bytes: [UInt8] = [1, 2, 3]
    try bytes.withUnsafeBytes { raw throws in
      var reader = ByteReader(raw)
      #expect(throws: ByteReader.Short()) { try reader.littleEndian(UInt32.self) }
      #expect(throws: ByteReader.Short()) { try reader.bigEndian(UInt64.self) }
      #expect(throws: ByteReader.Short()) { try reader.bytes(4) }
      #expect(throws: ByteReader.Short()) { try reader.bytes(-1) }
      #expect(reader.offset == 0)
      #expect(try reader.bigEndian(UInt16.self) == 0x0102)
      #expect(try reader.byte() == 3)
      #expect(throws: ByteReader.Short()) { try reader.byte() }
      #expect(reader.rest().isEmpty)
    }
    // An empty input, and a start past the end, hold nothing to read.
    try [UInt8]().withUnsafeBytes { raw throws in
      var reader = ByteReader(raw, from: 5)
      #expect(reader.isAtEnd)
      #expect(throws: ByteReader.Short()) { try reader.byte() }
    }
  }
}
