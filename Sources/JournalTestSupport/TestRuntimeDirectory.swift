import Foundation
import Glibc

/// A private tmpfs directory standing in for $XDG_RUNTIME_DIR, so that each test has its own
/// agent sockets (`journal lock` locks every agent of a runtime directory), removed when it
/// goes.
public final class TestRuntimeDirectory {
  public let path: String

  public init() {
    var template = Array("/dev/shm/journal-agent-test-XXXXXX".utf8CString)
    _ = mkdtemp(&template)
    path = String(
      decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  deinit { try? FileManager.default.removeItem(atPath: path) }

  /// The socket of the one unlocked vault's agent (`agent-<vault id>.sock`), or, with none, a
  /// path where none is.
  public var socket: String { sockets.first ?? path + "/journal/agent-none.sock" }

  /// Every agent socket here.
  public var sockets: [String] {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: path + "/journal")) ?? []
    return names.filter { $0.hasPrefix("agent-") && $0.hasSuffix(".sock") }.sorted()
      .map { path + "/journal/" + $0 }
  }
}
