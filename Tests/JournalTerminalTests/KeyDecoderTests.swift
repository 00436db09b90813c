import JournalTerminal
import Testing

/// Bytes as a terminal delivers them, decoded into keys whatever the reads were.
struct KeyDecoderTests {
  func keys(_ reads: [String]) -> [KeyDecoder.Key] {
    keys(bytes: reads.map { Array($0.utf8) })
  }

  func keys(bytes reads: [[UInt8]]) -> [KeyDecoder.Key] {
    var decoder = KeyDecoder()
    var keys: [KeyDecoder.Key] = []
    for read in reads { decoder.feed(read, into: &keys) }
    decoder.flush(into: &keys)
    return keys
  }

  /// A key and Enter in one read are two keys, in order.
  @Test func keyAndEnter() {
    #expect(keys(["u\r"]) == [.text([0x75]), .enter])
  }

  /// A bracketed paste is one key with its newlines, even split over reads.
  @Test func bracketedPasteAcrossReads() {
    #expect(
      keys(["\u{1B}[200~one\ntw", "o\n\u{1B}[2", "01~x"])
        == [.paste(Array("one\ntwo\n".utf8)), .text([0x78])])
  }

  /// An arrow key split over two reads is still one arrow; a lone Esc is Esc.
  @Test func escapeSequences() {
    #expect(keys(["\u{1B}[", "A"]) == [.up])
    #expect(keys(["\u{1B}OD"]) == [.left])
    #expect(keys(["\u{1B}"]) == [.escape])
    #expect(keys(["\u{1B}x"]) == [.escape, .text([0x78])])
  }

  /// A character of several bytes is one key, even split over reads.
  @Test func multiByteCharacter() {
    #expect(keys(bytes: [[0xC3], [0xA9]]) == keys(["é"]))
    #expect(keys(["é"]) == [.text([0xC3, 0xA9])])
  }

  /// Control keys by name: Backspace, Ctrl-U, Ctrl-D, Tab.
  @Test func controls() {
    #expect(keys(["\u{7F}\u{15}\u{04}\t"]) == [.backspace, .clearLine, .endOfInput, .tab])
  }
}
