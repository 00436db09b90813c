import Foundation
import JournalTestSupport
import Testing

/// Commands that do not sync pay nothing for it: the binary does not link libpq, so it runs
/// where PostgreSQL's client library is not installed (issue 19).
struct ClientLibraryTests {
  /// The dynamic loader's view of the journal binary names no libpq.
  @Test func binaryDoesNotLinkLibpq() throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/ldd")
    process.arguments = [CLI.binary]
    let output = Pipe()
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    try process.run()
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    #expect(process.terminationStatus == 0)
    #expect(text.contains("libsodium"), "ldd read the binary: \(text)")
    #expect(!text.contains("libpq"))
  }
}
