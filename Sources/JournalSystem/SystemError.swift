/// Failures of the operating-system plumbing: private files and directories, standard
/// output, the memory-backed runtime directory.
public enum SystemError: Error, Equatable, Sendable {
  /// A directory that was to be checked (not created) does not exist.
  case missing(path: String)
  /// A file that must be new already exists (or something was planted in its place).
  case exists(path: String)
  /// A symbolic link where a private file or directory must be; never followed.
  case symlink(path: String)
  /// A private file or directory that belongs to another user.
  case wrongOwner(path: String)
  /// A private file or directory that others can read or write.
  case unsafePermissions(path: String, mode: UInt32, expected: UInt32)
  /// Something that is neither a regular file nor a directory where one was expected.
  case notARegularFile(path: String)
  /// A system call on the path failed with this errno.
  case io(path: String, errno: Int32)
  /// Standard output could not be written (a full disk, a closed pipe); errno says why.
  case standardOutput(errno: Int32)
  /// No private memory-backed directory (a tmpfs) exists for what must not touch a disk.
  case noPrivateMemoryDirectory
}
