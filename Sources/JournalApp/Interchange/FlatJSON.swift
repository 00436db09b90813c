import Foundation

/// A quick reading of the JSON that nearly every session of an export is: one object whose
/// values are strings, whole numbers or null. It gives what Foundation's `JSONSerialization`
/// gives for such an object (a `String`, an `NSNumber`, an `NSNull` under each key), at a
/// fraction of its cost (Foundation's parser was a sixth of an import). Anything else (a
/// nested list, a fraction, `true`, a repeated key, a lone surrogate, bytes that are not
/// UTF-8, or JSON that is not valid at all) is nil, and the caller asks Foundation, which
/// then also names the place of any error as before: this never accepts what Foundation
/// would refuse.
enum FlatJSON {
  /// The object `bytes` hold (all of them, nothing around it), or nil: not one this reads.
  static func object(_ bytes: [UInt8]) -> [String: Any]? {
    bytes.withUnsafeBufferPointer { buffer in
      var reader = Reader(bytes: buffer)
      return reader.object()
    }
  }

  private struct Reader {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0

    init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    /// The byte at `index`, or 0 past the end (0 is never valid JSON outside a string).
    private func peek() -> UInt8 { index < bytes.count ? bytes[index] : 0 }

    private mutating func skipSpace() {
      while index < bytes.count {
        let byte = bytes[index]
        guard byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 else { return }
        index += 1
      }
    }

    mutating func object() -> [String: Any]? {
      guard peek() == UInt8(ascii: "{") else { return nil }
      index += 1
      var result: [String: Any] = [:]
      result.reserveCapacity(16)
      skipSpace()
      if peek() == UInt8(ascii: "}") {
        index += 1
      } else {
        while true {
          skipSpace()
          guard peek() == UInt8(ascii: "\""), let key = string() else { return nil }
          skipSpace()
          guard peek() == UInt8(ascii: ":") else { return nil }
          index += 1
          skipSpace()
          let value: Any
          switch peek() {
          case UInt8(ascii: "\""):
            guard let text = string() else { return nil }
            value = text
          case UInt8(ascii: "n"):
            guard literal("null") else { return nil }
            value = NSNull()
          case UInt8(ascii: "0")...UInt8(ascii: "9"):
            guard let number = wholeNumber() else { return nil }
            value = NSNumber(value: number)
          default: return nil
          }
          // A repeated key: left to Foundation, whichever copy it keeps.
          guard result.updateValue(value, forKey: key) == nil else { return nil }
          skipSpace()
          let next = peek()
          index += 1
          if next == UInt8(ascii: ",") { continue }
          guard next == UInt8(ascii: "}") else { return nil }
          break
        }
      }
      skipSpace()
      return index == bytes.count ? result : nil
    }

    private mutating func literal(_ word: StaticString) -> Bool {
      let count = word.utf8CodeUnitCount
      guard bytes.count - index >= count else { return false }
      for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] {
        return false
      }
      index += count
      return true
    }

    /// Digits without a leading zero (but "0"), at most 15 of them, ending where a value
    /// ends: a fraction, an exponent or a sign is left to Foundation.
    private mutating func wholeNumber() -> Int? {
      let start = index
      var number = 0
      while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 {
        number = number * 10 + Int(bytes[index] - 0x30)
        index += 1
        guard index - start <= 15 else { return nil }
      }
      guard index - start == 1 || bytes[start] != 0x30 else { return nil }
      let next = peek()
      guard
        next == UInt8(ascii: ",") || next == UInt8(ascii: "}") || next == 0x20 || next == 0x0A
          || next == 0x0D || next == 0x09
      else { return nil }
      return number
    }

    /// A string from its opening quote; nil for one this does not read (or not valid).
    private mutating func string() -> String? {
      index += 1
      let start = index
      // Most strings have no escape: read straight from the bytes.
      var high: UInt8 = 0
      while index < bytes.count {
        let byte = bytes[index]
        if byte == 0x22 {
          let run = UnsafeBufferPointer(rebasing: bytes[start..<index])
          index += 1
          // ASCII needs no check; otherwise the bytes must be UTF-8 as they are.
          return high < 0x80 ? String(decoding: run, as: UTF8.self) : Self.validated(run)
        }
        if byte == 0x5C { break }
        guard byte >= 0x20 else { return nil }
        high |= byte
        index += 1
      }
      guard index < bytes.count else { return nil }
      var out = [UInt8](UnsafeBufferPointer(rebasing: bytes[start..<index]))
      while index < bytes.count {
        let byte = bytes[index]
        index += 1
        if byte == 0x22 { return out.withUnsafeBufferPointer { Self.validated($0) } }
        guard byte >= 0x20 else { return nil }
        guard byte == 0x5C else {
          out.append(byte)
          continue
        }
        guard index < bytes.count else { return nil }
        let escape = bytes[index]
        index += 1
        switch escape {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(escape)
        case UInt8(ascii: "b"): out.append(0x08)
        case UInt8(ascii: "f"): out.append(0x0C)
        case UInt8(ascii: "n"): out.append(0x0A)
        case UInt8(ascii: "r"): out.append(0x0D)
        case UInt8(ascii: "t"): out.append(0x09)
        case UInt8(ascii: "u"):
          guard let unit = hex4() else { return nil }
          var value = UInt32(unit)
          if (0xD800...0xDBFF).contains(unit) {
            // A surrogate pair, or nothing this reads.
            guard literal("\\u"), let low = hex4(), (0xDC00...0xDFFF).contains(low) else {
              return nil
            }
            value = 0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00)
          } else if (0xDC00...0xDFFF).contains(unit) {
            return nil
          }
          guard let scalar = Unicode.Scalar(value) else { return nil }
          UTF8.encode(scalar) { out.append($0) }
        default: return nil
        }
      }
      return nil
    }

    /// The string `bytes` hold when they are valid UTF-8 (then `String(decoding:)` repairs
    /// nothing), else nil.
    private static func validated(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
      let text = String(decoding: bytes, as: UTF8.self)
      return text.utf8.elementsEqual(bytes) ? text : nil
    }

    private mutating func hex4() -> UInt16? {
      guard bytes.count - index >= 4 else { return nil }
      var value: UInt16 = 0
      for _ in 0..<4 {
        let byte = bytes[index]
        index += 1
        let digit: UInt8
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - 0x30
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - 0x61 + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - 0x41 + 10
        default: return nil
        }
        value = value << 4 | UInt16(digit)
      }
      return value
    }
  }
}
