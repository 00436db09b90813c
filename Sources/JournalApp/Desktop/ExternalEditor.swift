import CJournalSystem
import Foundation
import Glibc
import JournalCrypto
import JournalDiagnostics
import JournalSystem
import JournalTerminal

/// Long texts written in the person's own editor ($VISUAL, $EDITOR), through a plaintext
/// buffer that lives only in memory-backed, private storage and is wiped afterwards.
///
/// The buffer is the one place plaintext exists outside journal's memory (SECURITY.md,
/// "Your editor"). It goes in `$XDG_RUNTIME_DIR/journal/edit` when that is a private tmpfs,
/// else `/dev/shm/journal-<uid>/edit`; if neither is memory-backed, the editor is refused.
/// Buffers left by a crash are wiped and removed on the next start.
public struct ExternalEditor {
  public let directory: String
  public let command: [String]

  /// Finds a safe buffer directory and the editor to run.
  public static func prepare(environment: [String: String]) throws -> ExternalEditor {
    let directory = try bufferDirectory(environment: environment)
    // $VISUAL, $EDITOR, then Debian's "editor" alternative (nano unless changed), then vi.
    let path = environment["PATH"] ?? "/usr/bin:/bin"
    let editor =
      [environment["VISUAL"], environment["EDITOR"]].compactMap { $0 }
      .first { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
      ?? (locate("editor", path: path) != nil ? "editor" : "vi")
    let words = editor.split(separator: " ").map(String.init)
    // Checked before any question is asked: a form must not end at its first long text.
    guard let located = words.first.flatMap({ locate($0, path: path) }) else {
      throw AppError.editorNotFound(name: words.first ?? editor)
    }
    let program = realName(located)
    let result = ExternalEditor(
      directory: directory, command: words + privacyArguments(program: program))
    result.wipeLeftovers()
    return result
  }

  /// Options that keep an editor from writing copies of the text elsewhere: for vim and
  /// neovim no swap, undo, backup or history (viminfo/shada) files; for nano no rc files
  /// (which are where its history and backups are switched on).
  ///
  /// `program` is the editor binary's real name, symbolic links resolved: "vi" may be vim
  /// or nvi, and only vim takes vim's options.
  static func privacyArguments(program: String) -> [String] {
    switch program {
    case "vim", "vim.basic", "vim.tiny", "vim.nox", "vim.gtk3", "gvim":
      // Both before (--cmd) and after (-c) the person's vimrc, which could turn them back on.
      let settings = "set noswapfile nobackup nowritebackup noundofile viminfo="
      return ["-n", "-i", "NONE", "--cmd", settings, "-c", settings]
    case "nvim":
      let settings = "set noswapfile nobackup nowritebackup noundofile shada="
      return ["-n", "-i", "NONE", "--cmd", settings, "-c", settings]
    case "nano", "rnano":
      return ["--ignorercfiles"]
    default:
      return []
    }
  }

  /// The full path of `name` (as given if it holds a slash, else searched in PATH).
  public static func locate(_ name: String, path: String) -> String? {
    if name.contains("/") { return access(name, X_OK) == 0 ? name : nil }
    for directory in path.split(separator: ":") {
      let candidate = "\(directory)/\(name)"
      if access(candidate, X_OK) == 0 { return candidate }
    }
    return nil
  }

  /// The file name a path finally resolves to, symbolic links followed.
  static func realName(_ path: String) -> String {
    guard let resolved = realpath(path, nil) else { return (path as NSString).lastPathComponent }
    defer { free(resolved) }
    return (String(cString: resolved) as NSString).lastPathComponent
  }

  static func bufferDirectory(environment: [String: String]) throws -> String {
    let base = try RuntimeDirectory.resolve(environment: environment)
    try FileSafety.privateDirectory(base + "/edit", create: true)
    return base + "/edit"
  }

  static func isTmpfs(_ path: String) -> Bool { RuntimeDirectory.isTmpfs(path) }

  /// Opens the editor on a buffer holding `initial`, waits for it, and returns what was
  /// saved. The buffer is wiped whatever happens.
  public func edit(_ initial: String, terminalFD: Int32) throws -> String {
    let path = directory + "/\(getpid())-\(UInt32.random(in: 0...UInt32.max)).txt"
    let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
    guard fd >= 0 else { throw SystemError.io(path: path, errno: errno) }
    defer { Self.wipe(path) }
    var bytes = Array(initial.utf8)
    // The whole text, or no editor: a buffer cut short (a full disk) and saved would lose the
    // rest of what it held.
    let written: Int32? = {
      do throws(Descriptor.Failure) {
        try Descriptor(fd).writeAll(bytes)
        return nil
      } catch {
        return error.errno
      }
    }()
    wipeArray(&bytes)
    close(fd)
    if let written { throw SystemError.io(path: path, errno: written) }
    let status = try run(command + [path], terminalFD: terminalFD)
    guard status == 0 else { throw AppError.editorCancelled(status: status) }
    guard let data = FileManager.default.contents(atPath: path),
      let text = String(data: data, encoding: .utf8)
    else { throw AppError.editorTextUnreadable }
    return text
  }

  private func run(_ arguments: [String], terminalFD: Int32) throws -> Int32 {
    let terminal = [STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO].map {
      Subprocess.Redirect.duplicate(terminalFD, onto: $0)
    }
    guard let pid = Subprocess.start(arguments, redirects: terminal, search: true) else {
      throw AppError.editorFailed(status: 127)
    }
    return Subprocess.wait(pid)
  }

  /// Overwrites a buffer with zeros, syncs, and removes it.
  static func wipe(_ path: String) {
    let fd = open(path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC)
    if fd >= 0 {
      var info = stat()
      if fstat(fd, &info) == 0, info.st_size > 0 {
        let zeros = [UInt8](repeating: 0, count: 65536)
        var left = Int(info.st_size)
        while left > 0 {
          let count = min(left, zeros.count)
          // Every byte zeroed, through interruptions (Descriptor retries EINTR and short
          // writes); a write that fails outright ends the wipe, and the file is removed.
          guard (try? Descriptor(fd).writeAll(Array(zeros.prefix(count)))) != nil else { break }
          left -= count
        }
        fsync(fd)
      }
      close(fd)
    }
    unlink(path)
  }

  /// Wipes buffers whose journal process is gone (a crash mid-edit), and anything else an
  /// editor left there (its autosave or backup files).
  func wipeLeftovers() { Self.wipeLeftovers(in: directory) }

  static func wipeLeftovers(in directory: String) {
    let names = (try? FileSafety.names(in: directory)) ?? []
    for name in names {
      if let pidText = name.split(separator: "-").first, let pid = pid_t(pidText),
        pid == getpid() || kill(pid, 0) == 0
      {
        continue  // a journal still editing it
      }
      wipe(directory + "/" + name)
    }
  }

  /// Run at every start: a crash or a closed terminal mid-edit leaves no buffer for long.
  /// Creates nothing; looks only in directories that exist and are private.
  public static func wipeLeftoverBuffers(environment: [String: String]) {
    var candidates = ["/dev/shm/journal-\(getuid())/edit"]
    if let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") {
      candidates.append(runtime + "/journal/edit")
    }
    for directory in candidates
    where (try? FileSafety.privateDirectory(directory, create: false)) != nil {
      wipeLeftovers(in: directory)
    }
  }
}

private func wipeArray(_ bytes: inout [UInt8]) {
  for index in bytes.indices { bytes[index] = 0 }
}

/// A terminal whose long texts are written in an external editor.
public final class EditorTerminal: Terminal {
  private let base: TTY
  private let editor: ExternalEditor

  public init(base: TTY, editor: ExternalEditor) {
    self.base = base
    self.editor = editor
  }

  public var presentation: Presentation { base.presentation }
  public func readMood(_ question: MoodQuestion) throws -> String {
    try base.readMood(question)
  }
  public func write(_ text: String) { base.write(text) }
  public func discardTypedAhead() { base.discardTypedAhead() }
  public func readLine(prompt: String) throws -> String { try base.readLine(prompt: prompt) }
  public func readSecret(prompt: String) throws -> SecureBytes {
    try base.readSecret(prompt: prompt)
  }

  public func readText(prompt: String, initial: String, keep: (String) -> Void) throws -> String {
    // The prompt comes wrapped for a typed answer; with the words added it is wrapped again
    // as one line, so that the terminal never cuts one of them.
    let line = prompt.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
      .filter { !$0.isEmpty }.joined(separator: " ")
    base.writeWrapped("  " + line + " — opening your editor", indent: "    ")
    let text = try editor.edit(initial, terminalFD: base.descriptor)
    base.write("  (\(text.split(whereSeparator: \.isWhitespace).count) words)\n")
    return text
  }
}
