import JournalCore
import Testing

/// How moods and ids compare and print: the order trends and lists rely on.
struct OrderingTests {
  /// Moods order by their value, 1 lowest; the largest of a set is the highest rating.
  @Test func moodsOrderByValue() throws {
    let moods = try [7, 2, 10, 1].map { try #require(Mood($0)) }
    #expect(moods.sorted().map(\.value) == [1, 2, 7, 10])
    #expect(moods.max()?.value == 10)
    #expect(!(try #require(Mood(5)) < #require(Mood(5))))
  }

  /// An id in a message is its short form, never the whole 32 digits.
  @Test func anIdPrintsShort() throws {
    let id = try #require(SessionID("3f2a9c1d00000000000000000000beef"))
    #expect("\(id)" == id.short)
    #expect(id.short.count < id.hex.count)
  }
}
