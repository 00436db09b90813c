import JournalCore
import Testing

@testable import JournalApp

/// The ids completion offers.
struct SessionCompletionTests {
  /// An id is offered by its 8-digit start, or whole where another session shares that start,
  /// so that every offered word names exactly one session.
  @Test func sharedStartsAreOfferedWhole() {
    // Given three ids, two of which share their first 8 digits
    let a = SessionID(randomBytes: [0x3F, 0x2A, 0x1B, 0x2C] + [UInt8](repeating: 1, count: 12))
    let b = SessionID(randomBytes: [0x3F, 0x2A, 0x1B, 0x2C] + [UInt8](repeating: 2, count: 12))
    let c = SessionID(randomBytes: [0x9C, 0x1D, 0x0E, 0x2F] + [UInt8](repeating: 3, count: 12))
    // When they are shown for completion
    let shown = SessionCompletion.shown([a, b, c])
    // Then the two that share a start are whole, the other short
    #expect(shown == [a.hex, b.hex, "9c1d0e2f"])
  }
}
