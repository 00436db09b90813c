import CJournalSystem
import Glibc
import SystemPackage

/// Checks that journal's directories and files are private to the user, and creates them so.
///
/// Directories must be 0700 and files 0600, both owned by the user: checked with lstat, never
/// assumed, and a symbolic link is refused rather than followed (in a shared directory an
/// attacker could plant one pointing at their own file).
public enum FileSafety {
  /// Checks `path` is a private directory, creating it (and missing parents) 0700 when asked.
  public static func privateDirectory(_ path: String, create: Bool) throws(SystemError) {
    var info = try status(path)
    if info == nil {
      guard create else { throw .missing(path: path) }
      let parent = parentDirectory(of: path)
      if parent != path, try status(parent) == nil { try makeParents(parent) }
      try makeDirectory(path)
      info = try status(path)
    }
    guard let info else { throw .missing(path: path) }
    switch info.type {
    case .directory: break
    case .symbolicLink: throw .symlink(path: path)
    default: throw .notARegularFile(path: path)
    }
    try checkPrivate(info, path: path, expected: 0o700)
  }

  /// Checks `path` is a private regular file. Returns false when it does not exist.
  @discardableResult
  public static func privateFile(_ path: String) throws(SystemError) -> Bool {
    guard let info = try status(path) else { return false }
    switch info.type {
    case .regular: break
    case .symbolicLink: throw .symlink(path: path)
    default: throw .notARegularFile(path: path)
    }
    try checkPrivate(info, path: path, expected: 0o600)
    return true
  }

  /// Creates an empty file 0600, failing if anything (a file or a planted symlink) is there.
  public static func createExclusively(_ path: String) throws(SystemError) {
    let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
    guard fd >= 0 else {
      if errno == EEXIST { throw .exists(path: path) }
      throw .io(path: path, errno: errno)
    }
    // Set explicitly: the umask could only have removed bits, but say what we mean.
    fchmod(fd, 0o600)
    close(fd)
  }

  /// The names in the directory `path`, "." and ".." left out, in the order the directory
  /// gives them. Opened without following a symbolic link. One pass of `readdir`: Foundation's
  /// `contentsOfDirectory` took ~0.3 M instructions for the same, and every start lists two.
  public static func names(in path: String) throws(SystemError) -> [String] {
    let fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
    guard fd >= 0 else { throw .io(path: path, errno: errno) }
    guard let directory = fdopendir(fd) else {
      let code = errno
      close(fd)
      throw .io(path: path, errno: code)
    }
    defer { closedir(directory) }
    var names: [String] = []
    while true {
      // readdir gives nil at the end and on an error; only errno tells them apart.
      errno = 0
      guard let entry = readdir(directory) else {
        if errno != 0 { throw .io(path: path, errno: errno) }
        return names
      }
      // Read where it lies: a copy of the whole 256-byte field could read past the last
      // entry of readdir's buffer. A tuple of CChar is memory bound to CChar.
      let name = withUnsafePointer(to: &entry.pointee.d_name) { field in
        String(cString: UnsafeRawPointer(field).assumingMemoryBound(to: CChar.self))
      }
      if name != "." && name != ".." { names.append(name) }
    }
  }

  /// A new file of 0600 with no name, open for writing, in `directory` (O_TMPFILE): until
  /// `name(_:as:)` gives it one, a kill, a crash or a close leaves nothing behind. -1 with
  /// errno set when it cannot be made; EOPNOTSUPP, EISDIR or EINVAL when the file system
  /// makes no such files (FAT, some network ones).
  public static func openUnnamed(in directory: String) -> Int32 {
    journal_open_unnamed(directory, 0o600)
  }

  /// Whether `code`, from `openUnnamed`, says the file system makes no unnamed files.
  public static func noUnnamedFiles(_ code: Int32) -> Bool {
    code == EOPNOTSUPP || code == EISDIR || code == EINVAL
  }

  /// Names the unnamed file open at `fd` `path`; never over anything already there (a
  /// symbolic link too: EEXIST). 0, or the errno.
  public static func name(_ fd: Int32, as path: String) -> Int32 {
    journal_link_unnamed(fd, path) == 0 ? 0 : errno
  }

  /// Moves `from` to `to`, never over anything at `to` (EEXIST), on any file system that
  /// renames (FAT too, which makes no hard links). 0, or the errno.
  public static func renameNew(_ from: String, to: String) -> Int32 {
    journal_rename_new(from, to) == 0 ? 0 : errno
  }

  /// The directory part of a path ("." for a bare file name).
  public static func parentDirectory(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return "." }
    let parent = String(path[..<slash])
    return parent.isEmpty ? "/" : parent
  }

  /// Writes all of `bytes` to a new file's descriptor and fsyncs it; on failure closes it,
  /// removes `path`, and returns the errno. Nil when all is written and on disk.
  public static func writeAndSync(_ fd: Int32, _ bytes: [UInt8], removingOnFailure path: String)
    -> Int32?
  {
    write(fd, bytes, sync: true, removingOnFailure: path)
  }

  /// The same without the fsync, for a file whose loss in a power cut does no harm.
  public static func writeAll(_ fd: Int32, _ bytes: [UInt8], removingOnFailure path: String)
    -> Int32?
  {
    write(fd, bytes, sync: false, removingOnFailure: path)
  }

  private static func write(
    _ fd: Int32, _ bytes: [UInt8], sync: Bool, removingOnFailure path: String
  ) -> Int32? {
    let descriptor = FileDescriptor(rawValue: fd)
    var failure: Int32?
    do {
      _ = try bytes.withUnsafeBytes { try descriptor.writeAll($0) }
      if sync, fsync(fd) != 0 { failure = errno }
    } catch {
      failure = (error as? Errno)?.rawValue ?? EIO
    }
    close(fd)
    if failure != nil { unlink(path) }
    return failure
  }

  /// lstat of `path`, nil when nothing is there.
  private static func status(_ path: String) throws(SystemError) -> Stat? {
    do {
      return try Stat(FilePath(path), followTargetSymlink: false)
    } catch {
      if error == .noSuchFileOrDirectory { return nil }
      throw .io(path: path, errno: error.rawValue)
    }
  }

  private static func checkPrivate(_ info: Stat, path: String, expected: UInt32)
    throws(SystemError)
  {
    guard info.userID.rawValue == getuid() else { throw .wrongOwner(path: path) }
    let mode = UInt32(info.permissions.rawValue)
    guard mode & 0o077 == 0 else {
      throw .unsafePermissions(path: path, mode: mode & 0o777, expected: expected)
    }
  }

  private static func makeParents(_ path: String) throws(SystemError) {
    let parent = parentDirectory(of: path)
    if parent != path, try status(parent) == nil { try makeParents(parent) }
    try makeDirectory(path)
  }

  private static func makeDirectory(_ path: String) throws(SystemError) {
    guard mkdir(path, 0o700) == 0 || errno == EEXIST else { throw .io(path: path, errno: errno) }
  }
}

extension FileSafety {
  /// Takes an exclusive lock (flock) on the private file `path`, made 0600 when missing and
  /// never through a symbolic link, waiting while another process holds it (or, unless
  /// `wait`, returning nil at once); the descriptor to close when done (the kernel also lets
  /// go when the process ends).
  public static func exclusiveLock(_ path: String, wait: Bool = true) throws(SystemError)
    -> Int32?
  {
    let fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
    guard fd >= 0 else {
      if errno == ELOOP { throw .symlink(path: path) }
      throw .io(path: path, errno: errno)
    }
    do {
      try privateFile(path)
    } catch {
      close(fd)
      throw error
    }
    if SystemCall.retrying({ flock(fd, wait ? LOCK_EX : LOCK_EX | LOCK_NB) }) != 0 {
      let code = errno
      close(fd)
      if code == EWOULDBLOCK { return nil }
      throw .io(path: path, errno: code)
    }
    return fd
  }
}
