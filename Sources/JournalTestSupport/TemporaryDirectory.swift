import Foundation
import Glibc

/// A private (0700) directory under the system temp directory, removed on deinit.
public final class TemporaryDirectory {
  public let path: String

  public init() {
    var base = NSTemporaryDirectory()
    while base.count > 1 && base.hasSuffix("/") { base.removeLast() }
    var template = Array((base + "/journal-test-XXXXXX").utf8CString)
    let made = mkdtemp(&template)
    precondition(made != nil, "mkdtemp failed")
    path = String(
      decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  deinit { try? FileManager.default.removeItem(atPath: path) }

  /// A path inside the directory.
  public func file(_ name: String) -> String { path + "/" + name }

  /// Writes `text` to a new 0600 file and returns its path.
  @discardableResult
  public func write(_ name: String, _ text: String, mode: mode_t = 0o600) -> String {
    let target = file(name)
    writeFile(target, text, mode: mode)
    return target
  }

  /// Every regular file below the directory, with its bytes.
  public func allFiles() -> [(path: String, bytes: Data)] {
    JournalTestSupport.allFiles(under: path)
  }
}

/// Every regular file under `directory`, with its bytes.
public func allFiles(under directory: String) -> [(path: String, bytes: Data)] {
  guard let walker = FileManager.default.enumerator(atPath: directory) else { return [] }
  var out: [(String, Data)] = []
  for case let relative as String in walker {
    let full = directory + "/" + relative
    var info = stat()
    guard lstat(full, &info) == 0, info.st_mode & S_IFMT == S_IFREG,
      let data = FileManager.default.contents(atPath: full)
    else { continue }
    out.append((full, data))
  }
  return out
}

/// Writes `text` to the file at `path` (created or truncated) with `mode`, through a
/// descriptor that is closed on exec. FileManager's writes keep theirs open across a fork: a
/// child started meanwhile by a test running in parallel held a script open for writing,
/// and running that script then failed with ETXTBSY (a flake seen in CI).
public func writeFile(_ path: String, _ text: String, mode: mode_t = 0o600) {
  let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, mode)
  precondition(fd >= 0, "cannot write \(path): \(String(cString: strerror(errno)))")
  let bytes = Array(text.utf8)
  var offset = 0
  while offset < bytes.count {
    let written = bytes[offset...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
    if written < 0 && errno == EINTR { continue }
    precondition(written > 0, "cannot write \(path): \(String(cString: strerror(errno)))")
    offset += written
  }
  close(fd)
  chmod(path, mode)
}
