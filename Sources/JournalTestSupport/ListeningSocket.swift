import Glibc

/// A Unix socket listening at `path` that nobody serves: an agent stopped or hung, as a
/// client sees it. Close-on-exec, so processes a test starts do not inherit it; -1 when it
/// could not be made.
public func listeningSocket(at path: String, backlog: Int32 = 4) -> Int32 {
  var address = sockaddr_un()
  address.sun_family = sa_family_t(AF_UNIX)
  let bytes = Array(path.utf8)
  guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return -1 }
  withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
  let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
  let bound = withUnsafePointer(to: &address) {
    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
      bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
    }
  }
  guard fd >= 0, bound == 0, listen(fd, backlog) == 0 else {
    if fd >= 0 { close(fd) }
    return -1
  }
  return fd
}
