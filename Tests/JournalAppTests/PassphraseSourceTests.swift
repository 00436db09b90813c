import Foundation
import Glibc
import JournalApp
import JournalCrypto
import JournalDiagnostics
import JournalTestSupport
import Testing

struct PassphraseSourceTests {
  func text(_ secret: SecureBytes) -> String {
    secret.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
  }

  /// A file gives its first line, without LF or CRLF.
  @Test func file() throws {
    let d = TemporaryDirectory()
    let lf = d.write("lf", "open sesame, please\nsecond line\n")
    let crlf = d.write("crlf", "open sesame, please\r\n")
    #expect(
      text(try PassphraseSource.file(lf).read(prompt: "", terminal: nil)) == "open sesame, please")
    #expect(
      text(try PassphraseSource.file(crlf).read(prompt: "", terminal: nil)) == "open sesame, please"
    )
  }

  /// A file others can read, a missing file and an empty file are refused.
  @Test func fileRefusals() throws {
    let d = TemporaryDirectory()
    let open = d.write("open", "open sesame\n", mode: 0o644)
    #expect(throws: AppError.passphraseFileUnsafe(path: open, mode: 0o644)) {
      try PassphraseSource.file(open).read(prompt: "", terminal: nil)
    }
    #expect(throws: AppError.passphraseFileUnreadable(path: d.file("none"), errno: ENOENT)) {
      try PassphraseSource.file(d.file("none")).read(prompt: "", terminal: nil)
    }
    let empty = d.write("empty", "\n")
    #expect(throws: AppError.emptyPassphrase) {
      try PassphraseSource.file(empty).read(prompt: "", terminal: nil)
    }
    let huge = d.write("huge", String(repeating: "x", count: 5000))
    #expect(throws: AppError.passphraseTooLong(maximum: 1024)) {
      try PassphraseSource.file(huge).read(prompt: "", terminal: nil)
    }
  }

  /// A command's first output line is the passphrase; a failing command is reported.
  @Test func command() throws {
    #expect(
      text(
        try PassphraseSource.command("printf 'from a command\\nmore\\n'").read(
          prompt: "", terminal: nil)) == "from a command")
    #expect(throws: AppError.passphraseCommandFailed(status: 3)) {
      try PassphraseSource.command("exit 3").read(prompt: "", terminal: nil)
    }
  }

  /// A descriptor is read to its first newline.
  @Test func descriptor() throws {
    var fds: [Int32] = [0, 0]
    #expect(pipe(&fds) == 0)
    _ = "through a pipe\n".withCString { write(fds[1], $0, 15) }
    close(fds[1])
    defer { close(fds[0]) }
    #expect(
      text(try PassphraseSource.descriptor(fds[0]).read(prompt: "", terminal: nil))
        == "through a pipe")
  }

  /// Flags win over the environment; the terminal is the last resort; none means nil.
  @Test func choosing() {
    let env = ["JOURNAL_PASSPHRASE_FILE": "/env/file", "JOURNAL_PASSPHRASE_COMMAND": "pass show j"]
    #expect(
      PassphraseSource.choose(file: "/flag", descriptor: nil, environment: env, hasTerminal: true)
        == .file("/flag"))
    #expect(
      PassphraseSource.choose(file: nil, descriptor: nil, environment: env, hasTerminal: true)
        == .file("/env/file"))
    #expect(
      PassphraseSource.choose(
        file: nil, descriptor: nil, environment: ["JOURNAL_PASSPHRASE_COMMAND": "c"],
        hasTerminal: false) == .command("c"))
    #expect(
      PassphraseSource.choose(file: nil, descriptor: nil, environment: [:], hasTerminal: true)
        == .terminal)
    #expect(
      PassphraseSource.choose(file: nil, descriptor: nil, environment: [:], hasTerminal: false)
        == nil)
  }
}
