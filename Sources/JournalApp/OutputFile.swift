import Glibc

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
    var offset = 0
    while offset < bytes.count {
      let count = bytes.withUnsafeBytes {
        Glibc.write(fd, $0.baseAddress.map { $0 + offset }, $0.count - offset)
      }
      if count < 0 && errno == EINTR { continue }
      guard count > 0 else {
        let error = errno
        close(fd)
        unlink(path)
        throw AppError.outputUnwritable(path: path, errno: error)
      }
      offset += count
    }
    guard fsync(fd) == 0 else {
      let error = errno
      close(fd)
      unlink(path)
      throw AppError.outputUnwritable(path: path, errno: error)
    }
    close(fd)
  }
}
