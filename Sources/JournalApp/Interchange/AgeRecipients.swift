import Foundation
import Glibc
import JournalDiagnostics
import JournalSystem

/// Encrypting what is exported or shared to `age` recipients (SECURITY.md, "Sharing"): the
/// plaintext goes from journal's memory through a pipe into Debian's `age`, found on PATH,
/// which writes the encrypted file; journal writes none of age's format itself. The
/// recipients (public keys: age's own, or SSH ones, as age accepts them) are the only things
/// on age's command line.
public struct AgeRecipients: Sendable {
  /// `--to`: recipients given on the command line.
  public var recipients: [String]
  /// `--to-file`: files of recipients, one a line, as age reads them.
  public var files: [String]
  /// ASCII armour (`age -a`): text that survives e-mail; chosen for a terminal anyway.
  public var armor: Bool

  public init(recipients: [String], files: [String], armor: Bool) {
    self.recipients = recipients
    self.files = files
    self.armor = armor
  }

  public var isEmpty: Bool { recipients.isEmpty && files.isEmpty }

  /// age's arguments for encrypting to these recipients (armoured when `armor`).
  func arguments(armor: Bool) -> [String] {
    ["-e"] + recipients.flatMap { ["-r", $0] } + files.flatMap { ["-R", $0] }
      + (armor ? ["-a"] : [])
  }

  /// The age program on PATH.
  static func program(environment: [String: String]) throws -> String {
    guard let age = ExternalEditor.locate("age", path: environment["PATH"] ?? "/usr/bin:/bin")
    else { throw AppError.ageMissing }
    return age
  }

  /// Checks, before the vault is opened or a passphrase asked, that age takes every
  /// recipient and file: each is tried on its own, encrypting nothing, so the one it refuses
  /// is named.
  public func check(environment: [String: String]) throws {
    let age = try Self.program(environment: environment)
    let each =
      recipients.map { (["-e", "-r", $0], $0, "--to") }
      + files.map { (["-e", "-R", $0], $0, "--to-file") }
    for (arguments, given, flag) in each {
      guard let result = Subprocess.capture([age] + arguments, limit: 64 * 1024, timeout: 30),
        result.status == 0
      else {
        throw AppError.ageRecipientRefused(given: String(given.prefix(24)), flag: flag)
      }
    }
  }

  /// Starts age reading a pipe and writing to `output`; the running encryption.
  func start(writingTo output: Int32, environment: [String: String]) throws -> Encryption {
    let age = try Self.program(environment: environment)
    // age refuses to write binary to a terminal: armoured there.
    let armored = armor || isatty(output) != 0
    guard let pipe = Subprocess.pipe() else { throw AppError.ageFailed(status: 127) }
    guard
      let pid = Subprocess.start(
        [age] + arguments(armor: armored),
        redirects: [
          .duplicate(pipe.read, onto: STDIN_FILENO), .duplicate(output, onto: STDOUT_FILENO),
        ])
    else {
      close(pipe.read)
      close(pipe.write)
      throw AppError.ageFailed(status: 127)
    }
    close(pipe.read)
    return Encryption(pid: pid, input: pipe.write)
  }

  /// age at work: the pipe its plaintext is written to, and its process.
  final class Encryption {
    let pid: pid_t
    private(set) var input: Int32
    /// Waited for already: its pid may belong to another process now.
    private var done = false

    init(pid: pid_t, input: Int32) {
      self.pid = pid
      self.input = input
    }

    /// Closes the plaintext pipe and waits for age; a failure (age stopped, or refused
    /// something) throws.
    func finish() throws {
      close(input)
      input = -1
      done = true
      let status = Subprocess.wait(pid)
      guard status == 0 else { throw AppError.ageFailed(status: status) }
    }

    /// Stops age without letting it finish (the export failed): what it wrote is removed by
    /// the caller.
    func abandon() {
      guard !done else { return }
      done = true
      if input >= 0 { close(input) }
      input = -1
      kill(pid, SIGTERM)
      _ = Subprocess.wait(pid)
    }
  }
}
