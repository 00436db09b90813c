import JournalCore
import Testing

/// The one TLV layout's rules that SECURITY.md makes exact (issue 16): tags strictly ascend,
/// a time is 8 bytes and a mood 1.
struct FieldCodecTests {
  let allowed = FieldCodec.Tags([.date, .treatment, .moodBefore])

  func field(_ tag: UInt8, _ value: [UInt8]) -> [UInt8] {
    [tag, UInt8(value.count), 0, 0, 0] + value
  }

  func splits(_ bytes: [UInt8]) -> Bool {
    bytes.withUnsafeBytes { (try? FieldCodec.split($0, version: 1, allowed: allowed)) != nil }
  }

  @Test func tagsStrictlyAscend() {
    let date = field(1, [UInt8](repeating: 0, count: 8)), treatment = field(2, Array("lsd".utf8))
    #expect(splits([1] + date + treatment))
    #expect(!splits([1] + treatment + date))
    #expect(!splits([1] + date + date))
  }

  @Test func timesAreEightBytesAndMoodsOne() {
    func time(_ bytes: [UInt8]) -> Bool {
      bytes.withUnsafeBytes { (try? FieldCodec.time($0)) != nil }
    }
    func mood(_ bytes: [UInt8]) -> Bool {
      bytes.withUnsafeBytes { (try? FieldCodec.mood($0)) != nil }
    }
    #expect(time([UInt8](repeating: 0, count: 8)))
    #expect(!time([UInt8](repeating: 0, count: 7)))
    #expect(!time([UInt8](repeating: 0, count: 9)))
    #expect(mood([5]))
    #expect(!mood([5, 0]))
    #expect(!mood([11]))
  }
}
