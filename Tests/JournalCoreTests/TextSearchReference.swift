import Foundation
import JournalCore

/// `TextSearch` as it was before its folding was made fast (d45ec51): every field folded
/// into fresh arrays with each byte's origin, searched byte by byte. Kept word for word as
/// the reference the fast version must agree with.
struct TextSearchReference {
  private let terms: [[UInt8]]

  init?(_ words: [String]) {
    let folded = words.map { Self.fold($0).bytes }.map(Self.trimmed).filter { !$0.isEmpty }
    guard !folded.isEmpty else { return nil }
    terms = folded
  }

  func hits(in session: Session, fields: [Field] = TextSearch.fields) -> [TextSearch.Hit]? {
    var hits: [TextSearch.Hit] = []
    var found = [Bool](repeating: false, count: terms.count)
    for field in fields {
      guard let text = TextSearch.text(of: field, in: session) else { continue }
      let folded = Self.fold(text)
      for (index, term) in terms.enumerated() {
        guard let at = Self.find(term, in: folded.bytes) else { continue }
        found[index] = true
        let start = folded.origin[at].start
        let end = folded.origin[at + term.count - 1].end
        hits.append(TextSearch.Hit(field: field, offset: Int(start), length: Int(end - start)))
      }
    }
    guard found.allSatisfy({ $0 }) else { return nil }
    func rank(_ field: Field) -> Int {
      TextSearch.fields.firstIndex(of: field) ?? TextSearch.fields.count
    }
    return hits.sorted {
      $0.field == $1.field ? $0.offset < $1.offset : rank($0.field) < rank($1.field)
    }
  }

  struct Origin {
    let start: Int32
    let end: Int32
  }

  static func fold(_ text: String) -> (bytes: [UInt8], origin: [Origin]) {
    var text = text
    return text.withUTF8 { utf8 in
      var bytes = [UInt8](repeating: 0, count: utf8.count)
      var origin = [Origin](repeating: Origin(start: 0, end: 0), count: utf8.count)
      var count = 0
      var index = 0
      var offset: Int32 = 0
      var lastWasSpace = false
      while index < utf8.count {
        let byte = utf8[index]
        if byte < 0x80, index + 1 == utf8.count || utf8[index + 1] < 0x80 {
          let isSpace = byte == 0x20 || (0x09...0x0D).contains(byte)
          if !(isSpace && lastWasSpace) {
            if count == bytes.count {
              bytes.append(0)
              origin.append(Origin(start: 0, end: 0))
            }
            bytes[count] = isSpace ? 0x20 : (byte >= 0x41 && byte <= 0x5A ? byte + 0x20 : byte)
            origin[count] = Origin(start: offset, end: offset + 1)
            count += 1
          }
          lastWasSpace = isSpace
          index += 1
          offset += 1
          continue
        }
        var end = index + 1
        while end < utf8.count,
          utf8[end] >= 0x80 || (end + 1 < utf8.count && utf8[end + 1] >= 0x80)
        {
          end += 1
        }
        let run = String(decoding: UnsafeBufferPointer(rebasing: utf8[index..<end]), as: UTF8.self)
        for character in run {
          let scalars = Int32(character.unicodeScalars.count)
          let here = Origin(start: offset, end: offset + scalars)
          offset += scalars
          let folded: String
          if character.isWhitespace {
            if lastWasSpace { continue }
            folded = " "
            lastWasSpace = true
          } else {
            folded = String(character).precomposedStringWithCanonicalMapping.folding(
              options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
            lastWasSpace = false
          }
          for byte in folded.utf8 {
            if count == bytes.count {
              bytes.append(0)
              origin.append(Origin(start: 0, end: 0))
            }
            bytes[count] = byte
            origin[count] = here
            count += 1
          }
        }
        index = end
      }
      bytes.removeLast(bytes.count - count)
      origin.removeLast(origin.count - count)
      return (bytes, origin)
    }
  }

  private static func trimmed(_ bytes: [UInt8]) -> [UInt8] {
    var slice = bytes[...]
    while slice.first == 0x20 { slice = slice.dropFirst() }
    while slice.last == 0x20 { slice = slice.dropLast() }
    return Array(slice)
  }

  private static func find(_ term: [UInt8], in text: [UInt8]) -> Int? {
    guard !term.isEmpty, term.count <= text.count else { return nil }
    let first = term[0]
    let last = text.count - term.count
    var index = 0
    while index <= last {
      if text[index] == first {
        var matched = 1
        while matched < term.count, text[index + matched] == term[matched] { matched += 1 }
        if matched == term.count { return index }
      }
      index += 1
    }
    return nil
  }
}
