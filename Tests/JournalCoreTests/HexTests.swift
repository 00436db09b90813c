import Foundation
import JournalCore
import Testing

/// The one hex writer of bytes (file, socket and id names).
struct HexTests {
  /// Every byte, in every position, as Foundation's formatting writes it.
  @Test func everyByteAsFormatWritesIt() {
    let bytes = (0...255).map { UInt8($0) }
    let reference = bytes.map { String(format: "%02x", $0) }.joined()
    #expect(Hex.lowercase(bytes) == reference)
    #expect(
      Hex.lowercase(bytes.reversed())
        == bytes.reversed().map { String(format: "%02x", $0) }.joined())
    #expect(Hex.lowercase(bytes[250...]) == "fafbfcfdfeff")
    #expect(Hex.lowercase([UInt8]()) == "")
  }

  /// What is written reads back; anything but an even count of hex digits reads as nothing.
  @Test func readsBackWhatItWrites() {
    let bytes = (0...255).map { UInt8($0) }
    #expect(Hex.bytes(Hex.lowercase(bytes)) == bytes)
    #expect(Hex.bytes("00FFaB") == [0x00, 0xFF, 0xAB])
    #expect(Hex.bytes("") == [])
    for bad in ["0", "abc", "0g", "g0", " 00", "00 ", "0x00", "é0"] {
      #expect(Hex.bytes(bad) == nil, "\(bad)")
    }
  }
}
