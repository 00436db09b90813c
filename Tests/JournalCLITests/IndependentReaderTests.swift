import Foundation
import JournalTestSupport
import Testing

/// SECURITY.md is precise enough to write a decryptor from: Scripts/decrypt-vault.py (Python,
/// PyNaCl, no journal code) reads a vault the real binary wrote.
struct IndependentReaderTests {
  /// $JOURNAL_PYTHON (Scripts/test sets up a private one with PyNaCl), else python3.
  static let python = ProcessInfo.processInfo.environment["JOURNAL_PYTHON"] ?? "python3"

  static let available: Bool = {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = [python, "-c", "import nacl.pwhash"]
    process.standardError = FileHandle.nullDevice
    guard (try? process.run()) != nil else { return false }
    process.waitUntilExit()
    return process.terminationStatus == 0
  }()

  /// Every field written through the CLI is read back by the independent reader.
  @Test(.enabled(if: available, "needs python3 with PyNaCl (pip install pynacl)"))
  func pythonReaderAgrees() throws {
    let f = CLIFixture().initialise()
    let id = f.new("--treatment", "other:San Pedro", "--dose", "a cup")
    f.run("reflect", id, "--mood-after", "9", "--reflection", "light\nand space", "--music", "rain")
    let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .appendingPathComponent("../../Scripts/decrypt-vault.py").standardized.path
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = [Self.python, script, f.vaultPath]
    process.standardInput = try FileHandle(forReadingFrom: URL(fileURLWithPath: f.passphraseFile))
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    #expect(process.terminationStatus == 0)
    let sessions = try JSONSerialization.jsonObject(with: data) as? [[String: Any]] ?? []
    let session = try #require(sessions.first)
    #expect(session["treatment"] as? String == "other")
    #expect(session["treatment_name"] as? String == "San Pedro")
    #expect(session["dose"] as? String == "a cup")
    #expect(session["intention"] as? String == "to listen inward")
    #expect(session["reflection"] as? String == "light\nand space")
    #expect(session["music"] as? String == "rain")
    #expect(session["mood_before"] as? Int == 5)
    #expect(session["mood_after"] as? Int == 9)
    #expect(session["status"] as? String == "complete")
    #expect((session["date"] as? String)?.hasPrefix("2026-11-20T18:00:00") == true)
  }
}
