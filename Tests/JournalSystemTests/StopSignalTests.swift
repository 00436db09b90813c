import Glibc
import JournalSystem
import Testing

/// The stop signals' wake pipe.
struct StopSignalTests {
  /// Installed again (each agent served in one process installs it), the handlers keep the
  /// one pipe: no new descriptors each time, and the one a poll watches stays the same.
  @Test func installingAgainKeepsOnePipe() {
    StopSignal.install()
    let first = StopSignal.wakeFD
    StopSignal.install()
    #expect(first >= 0)
    #expect(StopSignal.wakeFD == first)
    #expect(fcntl(first, F_GETFD) & FD_CLOEXEC != 0)
  }
}
