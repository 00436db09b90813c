import Foundation
import Testing

@testable import JournalApp

struct FlatJSONTests {
  /// Foundation's reading of `text`, or nil where it refuses it.
  static func foundation(_ text: [UInt8]) -> NSDictionary? {
    (try? JSONSerialization.jsonObject(with: Data(text), options: [])) as? NSDictionary
  }

  /// Objects of strings, whole numbers and nulls read exactly as Foundation reads them:
  /// escapes, \u escapes, a surrogate pair, text that is not ASCII, spaces anywhere.
  @Test func readsWhatFoundationReads() throws {
    let cases = [
      #"{}"#,
      #"{"id": "0954a730f71043b38c5dd2b9c31ad2da", "mood_before": 2, "dose": null}"#,
      #"{ "a" : "line\none\ttab \"quoted\" back\\slash \/ \b\f\r" , "b":0 }"#,
      #"{"a": "\u00e9t\u00C9 \ud83d\ude00 caf\u0000e", "b": 10}"#,
      "{\"a\": \"été 😀 naïve\",\n\t\"b\": 999999999999999}",
    ]
    for text in cases {
      let bytes = Array(text.utf8)
      let flat = try #require(FlatJSON.object(bytes), "\(text)")
      let expected = try #require(Self.foundation(bytes), "\(text)")
      #expect(NSDictionary(dictionary: flat).isEqual(to: expected as? [AnyHashable: Any] ?? [:]))
    }
  }

  /// What is not such an object, or not valid JSON, is left to Foundation (nil): nothing is
  /// accepted that Foundation would refuse.
  @Test func leavesTheRestToFoundation() {
    var cases = [
      #"{"a": [1]}"#, #"{"a": {"b": 1}}"#, #"{"a": 1.5}"#, #"{"a": 1e3}"#, #"{"a": -1}"#,
      #"{"a": true}"#, #"{"a": 07}"#, #"{"a": 1234567890123456}"#, #"{"a": 1, "a": 2}"#,
      #"{"a": "\ud83d"}"#, #"{"a": "\ude00"}"#, #"{"a": "\x"}"#, #"{"a": "\u12"}"#,
      #"{"a": 1,}"#, #"{"a" 1}"#, #"{"a": 1} x"#, #"{"a": nul}"#, #"{a: 1}"#, #"{"a": "b"#,
      "{\"a\": \"tab\there\"}", "[1]", "",
    ].map { Array($0.utf8) }
    cases.append(Array(#"{"a": ""#.utf8) + [0xC3, 0x28] + Array(#""}"#.utf8))
    cases.append(Array(#"{"a": "\n"#.utf8) + [0xFF] + Array(#""}"#.utf8))
    for bytes in cases {
      #expect(FlatJSON.object(bytes) == nil, "\(String(decoding: bytes, as: UTF8.self))")
    }
  }
}
