import Glibc

/// Which file a path or descriptor is (device and inode): to tell whether a path still names
/// the file this process made or locked, after others may have replaced it.
public struct FileIdentity: Equatable, Sendable {
  public let device: UInt64
  public let inode: UInt64

  /// The file at `path` itself, a symbolic link not followed; nil when nothing is there.
  public init?(path: String) {
    var info = stat()
    guard lstat(path, &info) == 0 else { return nil }
    self.init(info)
  }

  /// The file `descriptor` is open on; nil when it cannot be read.
  public init?(descriptor: Int32) {
    var info = stat()
    guard fstat(descriptor, &info) == 0 else { return nil }
    self.init(info)
  }

  private init(_ info: stat) {
    device = UInt64(info.st_dev)
    inode = UInt64(info.st_ino)
  }
}
