import JournalTestSupport
import Testing

/// Under CI the sync tests never skip: half of them (the hostile-server and row-level
/// security ones among them) need the PostgreSQL cluster Scripts/test starts.
struct PrerequisiteTests {
  /// A CI run without the test cluster fails here instead of passing with them skipped.
  @Test(.enabled(if: Prerequisites.areRequired, "only CI requires the cluster"))
  func clusterIsThereUnderCI() {
    #expect(TestServer.available, "JOURNAL_TEST_POSTGRES is not set: PostgreSQL did not start")
    #expect(RowLevelSecurityTests.admin != nil)
  }
}
