import Foundation
import Glibc
import JournalSystem
import Testing

/// `FileSafety.names(in:)`: the names a directory holds, never "." or "..", never through a
/// symbolic link, and a failure named by its errno.
struct DirectoryNamesTests {
  /// A new private directory, removed by the caller.
  func makeDirectory() throws -> String {
    var template = Array((NSTemporaryDirectory() + "/journal-names-XXXXXX").utf8CString)
    try #require(mkdtemp(&template) != nil)
    return String(
      decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  @Test func namesOfWhatIsThere() throws {
    let path = try makeDirectory()
    defer { try? FileManager.default.removeItem(atPath: path) }
    #expect(try FileSafety.names(in: path) == [])
    for name in ["a", "b-1", ".hidden", "é name", String(repeating: "n", count: 255)] {
      #expect(FileManager.default.createFile(atPath: path + "/" + name, contents: nil))
    }
    #expect(mkdir(path + "/sub", 0o700) == 0)
    #expect(
      try FileSafety.names(in: path).sorted()
        == [".hidden", "a", "b-1", String(repeating: "n", count: 255), "sub", "é name"])
  }

  @Test func refusesALinkAndNamesWhatFailed() throws {
    let path = try makeDirectory()
    defer { try? FileManager.default.removeItem(atPath: path) }
    #expect(mkdir(path + "/real", 0o700) == 0)
    #expect(FileManager.default.createFile(atPath: path + "/real/inside", contents: nil))
    #expect(symlink(path + "/real", path + "/link") == 0)
    #expect(try FileSafety.names(in: path + "/real") == ["inside"])
    // With O_DIRECTORY, Linux names the link itself not a directory (not ELOOP).
    #expect(throws: SystemError.io(path: path + "/link", errno: ENOTDIR)) {
      try FileSafety.names(in: path + "/link")
    }
    #expect(throws: SystemError.io(path: path + "/gone", errno: ENOENT)) {
      try FileSafety.names(in: path + "/gone")
    }
    #expect(throws: SystemError.io(path: path + "/real/inside", errno: ENOTDIR)) {
      try FileSafety.names(in: path + "/real/inside")
    }
  }
}
