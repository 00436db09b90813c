import Foundation

/// Scripts/decrypt-vault.py: an independent reader of the vault format, in Python with PyNaCl,
/// written from SECURITY.md alone, run on a vault the real binary wrote.
public enum IndependentReader {
  /// $JOURNAL_PYTHON (Scripts/test sets up a private one with PyNaCl), else python3.
  public static let python = ProcessInfo.processInfo.environment["JOURNAL_PYTHON"] ?? "python3"

  /// Whether that Python has PyNaCl.
  public static let available: Bool = {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = [python, "-c", "import nacl.pwhash"]
    process.standardError = FileHandle.nullDevice
    guard (try? process.run()) != nil else { return false }
    process.waitUntilExit()
    return process.terminationStatus == 0
  }()

  /// The reader run on the vault at `vault` (with `options`, such as "--deleted-notes"), the
  /// passphrase on its standard input from `passphraseFile`: its exit status, standard output
  /// (JSON) and standard error.
  public static func read(
    vault: String, passphraseFile: String, options: [String] = []
  ) throws -> (status: Int32, stdout: Data, stderr: String) {
    let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .appendingPathComponent("../../Scripts/decrypt-vault.py").standardized.path
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = [python, script, vault] + options
    process.standardInput = try FileHandle(forReadingFrom: URL(fileURLWithPath: passphraseFile))
    let output = Pipe(), errors = Pipe()
    process.standardOutput = output
    process.standardError = errors
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    let message = errors.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, data, String(decoding: message, as: UTF8.self))
  }
}
