import Glibc
import JournalSystem

/// Plaintext written to a file the person names (exports): created new, 0600, never
/// through a symbolic link, never over an existing file.
public enum OutputFile {
  public static func write(_ text: String, to path: String) throws {
    let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
    guard fd >= 0 else {
      if errno == EEXIST { throw AppError.outputExists(path: path) }
      throw AppError.outputUnwritable(path: path, errno: errno)
    }
    var bytes = Array(text.utf8)
    defer { for index in bytes.indices { bytes[index] = 0 } }
    if let error = FileSafety.writeAndSync(fd, bytes, removingOnFailure: path) {
      throw AppError.outputUnwritable(path: path, errno: error)
    }
  }
}
