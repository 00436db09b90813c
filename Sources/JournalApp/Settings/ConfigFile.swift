import Glibc
import JournalDiagnostics
import JournalSystem

/// The settings file, `$XDG_CONFIG_HOME/journal/config` (else `~/.config/journal/config`):
/// `name = value` lines, `#` comments. Each name is a `JOURNAL_…` environment variable in
/// lower case with dashes (`undo-window` is `JOURNAL_UNDO_WINDOW`); a variable set in the
/// environment wins over the file. The file may name a command to run (`passphrase-command`,
/// `notify-command`), so it is read only when it belongs to the user and nobody else can
/// write to it.
public enum ConfigFile {
  /// The names the file may set.
  public static let names: Set<String> = [
    "vault", "passphrase-file", "passphrase-command", "no-input", "drafts-dir",
    "draft-max-age", "undo-window", "reminder-time", "reminder-repeat", "notify-command",
    "daemon-poll", "agent-max-lifetime", "editor", "plain", "integration-prompts",
    "cooling-off",
  ]

  /// The names that take on or off.
  static let flags: Set<String> = ["no-input", "editor", "plain", "integration-prompts"]

  /// Where the file is for this environment (nil without HOME or XDG_CONFIG_HOME).
  public static func path(environment: [String: String]) -> String? {
    if let config = environment["JOURNAL_CONFIG"], !config.isEmpty { return config }
    if let base = environment["XDG_CONFIG_HOME"], base.hasPrefix("/") {
      return base + "/journal/config"
    }
    guard let home = environment["HOME"], !home.isEmpty else { return nil }
    return home + "/.config/journal/config"
  }

  /// The environment with the file's settings added under their variable names. No file is
  /// no change.
  public static func apply(to environment: [String: String]) throws(AppError) -> [String: String] {
    guard let path = path(environment: environment), let text = try read(path) else {
      return environment
    }
    var merged = environment
    for (name, value) in try parse(text, path: path) where merged[name] == nil {
      merged[name] = value
    }
    return merged
  }

  /// The file's lines as environment variables, or the first line that cannot be read.
  public static func parse(_ text: String, path: String) throws(AppError) -> [String: String] {
    var settings: [String: String] = [:]
    // Lines split on the byte: in Swift "\r\n" is one Character, and a file written on
    // Windows must not run its lines together. The "\r" goes with the trimming.
    let lines = text.utf8.split(separator: 0x0A, omittingEmptySubsequences: false)
      .map { String(decoding: $0, as: UTF8.self) }
    for (index, raw) in lines.enumerated() {
      let line = raw.trimmingWhitespace()
      if line.isEmpty || line.hasPrefix("#") { continue }
      guard let equals = line.firstIndex(of: "=") else {
        throw .configLine(path: path, line: index + 1, problem: #"it has no "=""#)
      }
      let name = String(line[..<equals]).trimmingWhitespace().lowercased()
      var value = String(line[line.index(after: equals)...]).trimmingWhitespace()
      if value.count >= 2, value.first == "\"", value.last == "\"" {
        value = String(value.dropFirst().dropLast())
      }
      guard names.contains(name) else {
        throw .configLine(path: path, line: index + 1, problem: #"there is no setting "\#(name)""#)
      }
      let variable = "JOURNAL_" + name.uppercased().replacingDashes()
      if flags.contains(name) {
        // Yes/no values are checked here, so a mistake names its line.
        do {
          _ = try Setting.flag(variable, environment: [variable: value])
        } catch {
          throw .configLine(path: path, line: index + 1, problem: #""\#(name)" takes on or off"#)
        }
      }
      settings[variable] = value
    }
    return settings
  }

  /// The file's text; nil when there is none. Refuses a symbolic link, a file others could
  /// have written, or one in a directory others could write to (they could replace it).
  private static func read(_ path: String) throws(AppError) -> String? {
    // O_NONBLOCK: a FIFO planted here must not hang every command (and the shell prompt).
    let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
    if fd < 0 {
      if errno == ENOENT { return nil }
      if errno == ELOOP { throw .configUnsafe(path: path) }
      throw .configUnreadable(path: path, errno: errno)
    }
    defer { close(fd) }
    var status = stat()
    guard fstat(fd, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
      throw .configUnreadable(path: path, errno: EINVAL)  // said as "not a regular file"
    }
    guard status.st_uid == getuid(), status.st_mode & 0o022 == 0 else {
      throw .configUnsafe(path: path)
    }
    var directory = stat()
    guard stat(FileSafety.parentDirectory(of: path), &directory) == 0,
      directory.st_uid == getuid(), directory.st_mode & 0o022 == 0
    else { throw .configUnsafe(path: path) }
    _ = fcntl(fd, F_SETFL, O_RDONLY)
    let bytes: [UInt8]
    do throws(Descriptor.Failure) {
      bytes = try Descriptor(fd).readAll(limit: 65536)
    } catch {
      throw .configUnreadable(path: path, errno: error.errno)
    }
    guard bytes.count <= 65536, let text = String(validating: bytes, as: UTF8.self) else {
      throw .configLine(path: path, line: 1, problem: "it is not a short UTF-8 text file")
    }
    return text
  }
}

extension String {
  fileprivate func replacingDashes() -> String {
    String(map { $0 == "-" ? "_" : $0 })
  }
}
