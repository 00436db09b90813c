import Foundation
import JournalTestSupport
import Testing

/// Devices agree on everything a session holds, `updated` included (issue 33).
struct ConvergenceTests {
  /// A merge that takes this device's later `updated` and nothing else of its own (an edit
  /// made and undone here, while another device changed another field) sends it, so that
  /// both devices hold the same session, not each its own time while both say "up to date".
  @Test(SyncTests.needsServer) func laterUpdatedIsSent() throws {
    // Given a journal on two devices
    let (_, a, b, ids) = try SyncTests.pair("updated", sessions: 1)
    // When one changes the dose, and the other, later, changes the intention and back
    a.ok("edit", ids[0], "--dose", "FROM-A", extra: ["JOURNAL_DEBUG_NOW": "2027-01-20T10:00:00Z"])
    a.ok("sync")
    let later = ["JOURNAL_DEBUG_NOW": "2027-01-20T11:00:00Z"]
    b.ok("edit", ids[0], "--intention", "FOR A MOMENT", extra: later)
    b.ok("edit", ids[0], "--intention", "intention 0", extra: later)
    // And both sync until each says it is up to date
    b.ok("sync")
    a.ok("sync")
    #expect(b.ok("sync").stdout == "up to date\n")
    #expect(a.ok("sync").stdout == "up to date\n")
    // Then they hold the same session, its later `updated` included
    let exported = a.export()
    #expect(exported == b.export())
    #expect(exported.contains("2027-01-20T11:00:00"), "\(exported)")
  }
}
