import CTestSupport
import Foundation
import Glibc

/// Runs the built `journal` binary as a real process, in a new session with no controlling
/// terminal (so a developer's own terminal is never used), and captures what it did.
public struct CLI {
  /// What a run left behind.
  public struct Result: Sendable, CustomStringConvertible {
    public let status: Int32
    public let stdout: String
    public let stderr: String

    public var description: String {
      "exit \(status)\n--- stdout\n\(stdout)--- stderr\n\(stderr)"
    }
  }

  /// The binary next to the test bundle (`swift build` puts both in the same directory),
  /// or $JOURNAL_BINARY.
  public static let binary: String = {
    if let path = ProcessInfo.processInfo.environment["JOURNAL_BINARY"] { return path }
    let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? ""
    var directory = (exe as NSString).deletingLastPathComponent
    if directory.hasSuffix(".xctest")
      || !FileManager.default.fileExists(atPath: directory + "/journal")
    {
      directory = (directory as NSString).deletingLastPathComponent
    }
    return directory + "/journal"
  }()

  /// The environment every run gets: a private HOME, nothing inherited that could change the
  /// outcome (no XDG variables, no JOURNAL_*), a fixed time zone, colour off. The one variable
  /// passed on is LLVM_PROFILE_FILE, set only by a coverage run (Scripts/coverage), so that
  /// each run of an instrumented binary writes its own profile; it changes nothing else.
  /// The user's other runtime directories (where `lock` and a key change also look for
  /// agents) are none, unless a test names its own: the person's agents, and other tests',
  /// are never reached.
  public let environment: [String: String]

  public init(home: String, extra: [String: String] = [:]) {
    var environment = [
      "HOME": home, "PATH": "/usr/bin:/bin", "TZ": "UTC", "LANG": "C.UTF-8", "NO_COLOR": "1",
      "JOURNAL_DEBUG_OTHER_RUNTIME_DIRECTORIES": "",
    ]
    if let profile = ProcessInfo.processInfo.environment["LLVM_PROFILE_FILE"] {
      environment["LLVM_PROFILE_FILE"] = profile
    }
    environment.merge(extra) { _, new in new }
    self.environment = environment
  }

  /// Runs `journal arguments…` with `stdin` on a pipe, and waits for it.
  public func run(_ arguments: [String], stdin: String = "", extra: [String: String] = [:])
    -> Result
  {
    let process = Spawned(
      arguments: [Self.binary] + arguments, environment: environment.merging(extra) { $1 },
      terminal: false)
    process.write(stdin)
    process.closeInput()
    return process.wait()
  }

  /// Runs another program (`arguments[0]`, a full path) in the same environment, for a
  /// wrapper such as script(1) that gives journal a terminal as its stdout.
  public func runProgram(_ arguments: [String], extra: [String: String] = [:]) -> Result {
    let process = Spawned(
      arguments: arguments, environment: environment.merging(extra) { $1 }, terminal: false)
    process.closeInput()
    return process.wait()
  }

  /// Starts `journal arguments…` with a pseudo-terminal as its terminal, for guided forms.
  /// `typedAhead` is typed on the terminal before journal starts, as a person who types
  /// before the first prompt shows would.
  public func interactive(
    _ arguments: [String], extra: [String: String] = [:], typedAhead: String = ""
  ) -> Spawned {
    Spawned(
      arguments: [Self.binary] + arguments, environment: environment.merging(extra) { $1 },
      terminal: true, typedAhead: typedAhead)
  }
}

/// A running process: its stdin is a pipe or a pseudo-terminal; stdout and stderr are pipes
/// drained on background threads.
public final class Spawned: @unchecked Sendable {
  public let pid: pid_t
  /// Whether its stdin is a pseudo-terminal (`input` its master side).
  private let terminal: Bool
  private var input: Int32
  private let lock = NSLock()
  private var out = Data()
  private var err = Data()
  private var screen = Data()
  private var readers: [Thread] = []
  private let group = DispatchGroup()
  /// Set to end the reading of the terminal's screen, so that its master side can close.
  private var closingScreen = false
  /// Set while the screen is not read (`pauseScreen`); `screenReaderPaused` once the
  /// reading thread has seen it.
  private var screenPaused = false
  private var screenReaderPaused = false
  private let screenClosed = DispatchSemaphore(value: 0)

  public init(
    arguments: [String], environment: [String: String], terminal: Bool, typedAhead: String = ""
  ) {
    var stdoutPipe: [Int32] = [0, 0]
    var stderrPipe: [Int32] = [0, 0]
    var stdinPipe: [Int32] = [0, 0]
    precondition(journal_test_pipe(&stdoutPipe) == 0 && journal_test_pipe(&stderrPipe) == 0)
    var childInput: Int32
    if terminal {
      var name = [CChar](repeating: 0, count: 128)
      let master = journal_test_open_pty(&name, name.count)
      precondition(master >= 0, "cannot open a pseudo-terminal")
      let path = String(
        decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
      let slave = open(path, O_RDWR | O_NOCTTY | O_CLOEXEC)
      precondition(slave >= 0)
      input = master
      childInput = slave
      if !typedAhead.isEmpty {
        var bytes = Array(typedAhead.utf8)
        precondition(Glibc.write(master, &bytes, bytes.count) == bytes.count)
      }
    } else {
      precondition(journal_test_pipe(&stdinPipe) == 0)
      input = stdinPipe[1]
      childInput = stdinPipe[0]
    }

    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    posix_spawn_file_actions_adddup2(&actions, childInput, 0)
    posix_spawn_file_actions_adddup2(&actions, stdoutPipe[1], 1)
    posix_spawn_file_actions_adddup2(&actions, stderrPipe[1], 2)
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    // The test runner's threads block signals and a child inherits that mask: start it with
    // an empty mask and default handlers, as a shell would. POSIX_SPAWN_SETSID (glibc 2.26,
    // 0x80) gives a new session, hence no controlling terminal; SETSIGMASK is 0x08 and
    // SETSIGDEF 0x04.
    var empty = sigset_t()
    sigemptyset(&empty)
    posix_spawnattr_setsigmask(&attributes, &empty)
    var defaults = sigset_t()
    sigemptyset(&defaults)
    for number: Int32 in 1..<32 where number != SIGKILL && number != SIGSTOP {
      sigaddset(&defaults, number)
    }
    posix_spawnattr_setsigdefault(&attributes, &defaults)
    posix_spawnattr_setflags(&attributes, 0x80 | 0x08 | 0x04)
    var argv = arguments.map { strdup($0) } + [nil]
    var envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
    var pid: pid_t = 0
    let status = posix_spawn(&pid, arguments[0], &actions, &attributes, &argv, &envp)
    precondition(status == 0, "cannot start \(arguments[0]): \(String(cString: strerror(status)))")
    argv.forEach { free($0) }
    envp.forEach { free($0) }
    posix_spawn_file_actions_destroy(&actions)
    posix_spawnattr_destroy(&attributes)
    self.pid = pid
    self.terminal = terminal
    close(childInput)
    close(stdoutPipe[1])
    close(stderrPipe[1])
    drain(stdoutPipe[0]) { self.out.append($0) }
    drain(stderrPipe[0]) { self.err.append($0) }
    if terminal { drainScreen(fcntl(input, F_DUPFD_CLOEXEC, 0)) }
  }

  /// Reads what the terminal shows, until the process ends or `hangUp` asks it to stop.
  private func drainScreen(_ fd: Int32) {
    group.enter()
    let thread = Thread { [lock, group, screenClosed] in
      var buffer = [UInt8](repeating: 0, count: 65536)
      while true {
        lock.lock()
        let closing = self.closingScreen
        let paused = self.screenPaused
        self.screenReaderPaused = paused
        lock.unlock()
        if closing { break }
        if paused {
          usleep(2_000)
          continue
        }
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&descriptor, 1, 20) > 0 else { continue }
        let count = read(fd, &buffer, buffer.count)
        if count < 0 && errno == EINTR { continue }
        guard count > 0 else { break }
        lock.lock()
        self.screen.append(Data(buffer[0..<count]))
        lock.unlock()
      }
      close(fd)
      screenClosed.signal()
      group.leave()
    }
    thread.start()
  }

  /// Closes the terminal as a closed window does: its master side goes away, so that the
  /// process's reads of it end (EIO) and no SIGHUP is sent by anyone but the kernel (which
  /// sends one only to the terminal's session leader: not journal when a shell started it).
  public func hangUp() {
    lock.lock()
    closingScreen = true
    lock.unlock()
    screenClosed.wait()
    closeInput()
  }

  /// Stops reading the screen, as a terminal that is slow to show what it is sent does:
  /// once the terminal's buffer is full, the process's writes to it wait until
  /// `resumeScreen`. Returns once the reading thread has seen the pause.
  public func pauseScreen() {
    precondition(terminal, "only a terminal's screen can be paused")
    lock.lock()
    screenPaused = true
    lock.unlock()
    let paused = eventually(timeout: 10) {
      lock.lock()
      defer { lock.unlock() }
      return screenReaderPaused
    }
    precondition(paused, "the screen is no longer read: the process has ended")
  }

  public func resumeScreen() {
    lock.lock()
    screenPaused = false
    lock.unlock()
  }

  /// Whether the process writes to its terminal within `timeout` seconds, while the screen
  /// is paused (what it writes stays unread until `resumeScreen`).
  public func writesToThePausedScreen(timeout: Double = 60) -> Bool {
    precondition(terminal, "only a terminal's screen can be paused")
    var descriptor = pollfd(fd: input, events: Int16(POLLIN), revents: 0)
    return poll(&descriptor, 1, Int32(timeout * 1000)) > 0
  }

  private func drain(_ fd: Int32, _ append: @escaping @Sendable (Data) -> Void) {
    group.enter()
    let thread = Thread { [lock, group] in
      var buffer = [UInt8](repeating: 0, count: 65536)
      while true {
        let count = read(fd, &buffer, buffer.count)
        if count < 0 && errno == EINTR { continue }
        guard count > 0 else { break }
        lock.lock()
        append(Data(buffer[0..<count]))
        lock.unlock()
      }
      close(fd)
      group.leave()
    }
    thread.start()
  }

  /// Types `text` (on the terminal) or writes it to stdin. A child that stopped reading
  /// (journal refuses an over-long input without reading the rest) ends the write, never the
  /// test process: SIGPIPE is ignored here, so the write fails with EPIPE instead.
  public func write(_ text: String) {
    write(bytes: Array(text.utf8))
  }

  /// Writes `bytes` as they are, valid UTF-8 or not (a paste from a file in another encoding).
  public func write(bytes: [UInt8]) {
    Self.ignoreBrokenPipes
    var bytes = bytes
    var offset = 0
    while offset < bytes.count {
      let written = bytes.withUnsafeMutableBytes {
        let rest = UnsafeRawBufferPointer(rebasing: $0[offset...])
        return Glibc.write(input, rest.baseAddress, rest.count)
      }
      if written < 0 && errno == EINTR { continue }
      guard written > 0 else { return }
      offset += written
    }
  }

  private static let ignoreBrokenPipes: Void = { _ = Glibc.signal(SIGPIPE, SIG_IGN) }()

  public func closeInput() {
    guard input >= 0 else { return }
    close(input)
    input = -1
  }

  /// What the terminal has shown so far (prompts and echo), as text.
  public var screenText: String {
    lock.lock()
    defer { lock.unlock() }
    return String(decoding: screen, as: UTF8.self)
  }

  /// What the terminal has shown, with every run of spaces and line endings made one space:
  /// for prose, which is wrapped to the terminal's width.
  public var screenWords: String {
    screenText.split(whereSeparator: { $0 == " " || $0 == "\r" || $0 == "\n" || $0 == "\r\n" })
      .joined(separator: " ")
  }

  /// What the process has written to standard error so far.
  public var stderrText: String {
    lock.lock()
    defer { lock.unlock() }
    return String(decoding: err, as: UTF8.self)
  }

  /// Waits until the terminal has shown `text` (counting from the start), or `timeout`
  /// seconds pass. Returns whether it appeared.
  @discardableResult
  public func expect(_ text: String, timeout: TimeInterval = 30) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
      if screenText.contains(text) { return true }
      usleep(5_000)
    }
    return false
  }

  /// Waits until the terminal shows `text` after `count` earlier occurrences.
  @discardableResult
  public func expect(_ text: String, occurrence: Int, timeout: TimeInterval = 30) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
      if screenText.components(separatedBy: text).count - 1 >= occurrence { return true }
      usleep(5_000)
    }
    return false
  }

  /// Sends a signal to the process.
  public func signal(_ number: Int32) { kill(pid, number) }

  /// Waits for the process to end (killing it after `timeout` seconds, so a hung process
  /// fails its test instead of hanging the run), then for its output to be read.
  public func wait(timeout: TimeInterval = 120) -> CLI.Result {
    var status: Int32 = 0
    let deadline = Date().addingTimeInterval(timeout)
    while true {
      let done = waitpid(pid, &status, WNOHANG)
      if done == pid || (done < 0 && errno != EINTR) { break }
      if Date() > deadline {
        kill(pid, SIGKILL)
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        break
      }
      usleep(2_000)
    }
    if input >= 0 { closeInput() }
    _ = group.wait(timeout: .now() + 10)
    lock.lock()
    defer { lock.unlock() }
    let code = status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
    return CLI.Result(
      status: code, stdout: String(decoding: out, as: UTF8.self),
      stderr: String(decoding: err, as: UTF8.self))
  }
}

extension CLI {
  /// Starts bash running `script` on a pseudo-terminal, with `$J` the journal binary: for
  /// what a shell sees after journal ends.
  public func shell(_ script: String, extra: [String: String] = [:]) -> Spawned {
    var environment = self.environment.merging(extra) { $1 }
    environment["J"] = Self.binary
    return Spawned(
      arguments: ["/bin/bash", "--norc", "-c", script], environment: environment, terminal: true)
  }
}
