import Glibc

/// Checks that the vault's directory and files are private to the user, and creates them so.
///
/// Directories must be 0700 and files 0600, both owned by the user: checked with lstat, never
/// assumed, and a symbolic link is refused rather than followed (in a shared directory an
/// attacker could plant one pointing at their own file).
public enum FileSafety {
  /// Checks `path` is a private directory, creating it (and missing parents) 0700 when asked.
  public static func privateDirectory(_ path: String, create: Bool) throws(StoreError) {
    var info = stat()
    if lstat(path, &info) != 0 {
      let error = errno
      guard error == ENOENT, create else {
        if error == ENOENT { throw .vaultMissing(path: path) }
        throw .io(path: path, errno: error)
      }
      let parent = parentDirectory(of: path)
      if parent != path, access(parent, F_OK) != 0 { try makeParents(parent) }
      guard mkdir(path, 0o700) == 0 || errno == EEXIST else { throw .io(path: path, errno: errno) }
      guard lstat(path, &info) == 0 else { throw .io(path: path, errno: errno) }
    }
    switch info.st_mode & S_IFMT {
    case S_IFDIR: break
    case S_IFLNK: throw .symlink(path: path)
    default: throw .notARegularFile(path: path)
    }
    guard info.st_uid == getuid() else { throw .wrongOwner(path: path) }
    guard info.st_mode & 0o077 == 0 else {
      throw .unsafePermissions(path: path, mode: info.st_mode & 0o777, expected: 0o700)
    }
  }

  /// Checks `path` is a private regular file. Returns false when it does not exist.
  @discardableResult
  public static func privateFile(_ path: String) throws(StoreError) -> Bool {
    var info = stat()
    guard lstat(path, &info) == 0 else {
      if errno == ENOENT { return false }
      throw .io(path: path, errno: errno)
    }
    switch info.st_mode & S_IFMT {
    case S_IFREG: break
    case S_IFLNK: throw .symlink(path: path)
    default: throw .notARegularFile(path: path)
    }
    guard info.st_uid == getuid() else { throw .wrongOwner(path: path) }
    guard info.st_mode & 0o077 == 0 else {
      throw .unsafePermissions(path: path, mode: info.st_mode & 0o777, expected: 0o600)
    }
    return true
  }

  /// Creates an empty file 0600, failing if anything (a file or a planted symlink) is there.
  public static func createExclusively(_ path: String) throws(StoreError) {
    let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
    guard fd >= 0 else {
      if errno == EEXIST { throw .vaultExists(path: path) }
      throw .io(path: path, errno: errno)
    }
    // Set explicitly: the umask could only have removed bits, but say what we mean.
    fchmod(fd, 0o600)
    close(fd)
  }

  /// The directory part of a path ("." for a bare file name).
  public static func parentDirectory(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return "." }
    let parent = String(path[..<slash])
    return parent.isEmpty ? "/" : parent
  }

  private static func makeParents(_ path: String) throws(StoreError) {
    let parent = parentDirectory(of: path)
    if parent != path, access(parent, F_OK) != 0 { try makeParents(parent) }
    guard mkdir(path, 0o700) == 0 || errno == EEXIST else { throw .io(path: path, errno: errno) }
  }

  /// Writes all of `bytes` to a new file's descriptor and fsyncs it; on failure closes it,
  /// removes `path`, and returns the errno. Nil when all is written and on disk.
  public static func writeAndSync(_ fd: Int32, _ bytes: [UInt8], removingOnFailure path: String)
    -> Int32?
  {
    var offset = 0
    var failure: Int32?
    while offset < bytes.count {
      let count = bytes.withUnsafeBytes {
        write(fd, $0.baseAddress.map { $0 + offset }, $0.count - offset)
      }
      if count < 0 && errno == EINTR { continue }
      guard count > 0 else {
        failure = errno
        break
      }
      offset += count
    }
    if failure == nil && fsync(fd) != 0 { failure = errno }
    close(fd)
    if failure != nil { unlink(path) }
    return failure
  }
}
