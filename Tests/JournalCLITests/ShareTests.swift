import Foundation
import JournalTestSupport
import Testing

/// Sharing with a therapist, encrypted with the real `age` (issue 22): what journal writes
/// is read back with `age -d -i key`, and nothing readable is left anywhere on the way.
struct ShareTests {
  static let age = "/usr/bin/age"
  static let available =
    FileManager.default.isExecutableFile(atPath: age)
    && FileManager.default.isExecutableFile(atPath: "/usr/bin/age-keygen")

  /// A key pair made by age-keygen in the fixture's home: the identity file and its public
  /// recipient.
  static func keyPair(_ f: CLIFixture, _ name: String) throws -> (
    identity: String, recipient: String
  ) {
    let identity = f.home.file(name)
    let made = try run(["/usr/bin/age-keygen", "-o", identity])
    #expect(made.status == 0)
    let text = try String(contentsOfFile: identity, encoding: .utf8)
    let recipient = try #require(
      text.split(separator: "\n").first { $0.hasPrefix("# public key: ") }?
        .dropFirst("# public key: ".count))
    return (identity, String(recipient))
  }

  /// Runs a program; its status and standard output.
  static func run(_ arguments: [String], stdin: Data? = nil) throws -> (status: Int32, stdout: Data)
  {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: arguments[0])
    process.arguments = Array(arguments.dropFirst())
    let output = Pipe(), input = Pipe()
    process.standardOutput = output
    process.standardInput = input
    process.standardError = FileHandle.nullDevice
    try process.run()
    input.fileHandleForWriting.write(stdin ?? Data())
    try input.fileHandleForWriting.close()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, data)
  }

  static func decrypt(_ file: String, identity: String) throws -> String {
    let result = try run([age, "-d", "-i", identity, file])
    #expect(result.status == 0)
    return String(decoding: result.stdout, as: UTF8.self)
  }

  /// `share` with chosen fields: the therapist's key opens it, and it holds the reflection
  /// and the moods, not the intention or the treatment; the file itself holds no word of it.
  @Test(.enabled(if: available, "needs age (apt-get install age)"))
  func shareChosenFields() throws {
    let f = CLIFixture().initialise()
    let id = f.new("--treatment", "mdma", "--dose", "DOSEWORD")
    #expect(
      f.run("reflect", id, "--reflection", "REFLECTWORD and light", "--mood-after", "8").status == 0
    )
    let therapist = try Self.keyPair(f, "therapist.txt")
    let file = f.home.file("for-therapist.age")
    let shared = f.run(
      "share", id, "--to", therapist.recipient, "--fields", "reflection,mood-before,mood-after",
      "--output", file)
    #expect(shared.status == 0, "\(shared)")
    #expect(
      shared.stderr
        == "journal: shared 1 session, encrypted with age to 1 recipient in \"\(file)\"\n")
    let raw = try Data(contentsOf: URL(fileURLWithPath: file))
    #expect(raw.starts(with: Data("age-encryption.org/v1".utf8)))
    #expect(raw.range(of: Data("REFLECTWORD".utf8)) == nil)
    let text = try Self.decrypt(file, identity: therapist.identity)
    #expect(text.contains("REFLECTWORD and light"))
    #expect(text.contains("mood before 5 · mood after 8"))
    #expect(!text.contains("to listen inward"), "the intention was not chosen")
    #expect(!text.contains("MDMA") && !text.contains("DOSEWORD"))
    var info = stat()
    #expect(lstat(file, &info) == 0 && info.st_mode & 0o777 == 0o600)
  }

  /// `export --to` two recipients (one from a file), as JSON: each key opens it, and what it
  /// holds is exactly the plaintext export, which `import` reads back.
  @Test(.enabled(if: available, "needs age (apt-get install age)"))
  func exportToSeveral() throws {
    let clock = ["JOURNAL_DEBUG_NOW": "2026-11-21T10:00:00Z"]
    let f = CLIFixture(extra: clock).initialise()
    _ = f.new()
    _ = f.new("--treatment", "ketamine")
    let first = try Self.keyPair(f, "first.txt")
    let second = try Self.keyPair(f, "second.txt")
    let list = f.home.write("recipients.txt", "# my coach\n\(second.recipient)\n")
    let file = f.home.file("all.age")
    let exported = f.run("export", "--to", first.recipient, "--to-file", list, "--output", file)
    #expect(exported.status == 0, "\(exported)")
    #expect(!exported.stderr.contains("not encrypted"))
    let plain = f.run("export").stdout
    #expect(try Self.decrypt(file, identity: first.identity) == plain)
    #expect(try Self.decrypt(file, identity: second.identity) == plain)
    let other = CLIFixture().initialise()
    let opened = other.home.write("opened.json", plain)
    #expect(other.run("import", opened).status == 0)
    #expect(other.sessions().count == 2)
  }

  /// A recipient age does not take, a file that is not there, and age missing: each one
  /// clear line, before any passphrase, and no file left.
  @Test(.enabled(if: available, "needs age (apt-get install age)"))
  func refusals() throws {
    let f = CLIFixture().initialise()
    let id = f.new()
    let file = f.home.file("out.age")
    let bad = f.run("share", id, "--to", "age1notarecipient", "--output", file)
    #expect(bad.status == 2)
    #expect(
      bad.stderr
        == """
        journal: error: age did not accept the recipient "age1notarecipient" (--to)
        journal: hint: give an age public key (age1…) or an SSH public key; nothing was written

        """)
    #expect(!FileManager.default.fileExists(atPath: file))
    let missingFile = f.run("export", "--to-file", f.home.file("nope.txt"), "--output", file)
    #expect(missingFile.status == 2)
    #expect(missingFile.stderr.contains("(--to-file)"))
    let nobody = f.run("share", id)
    #expect(nobody.status == 2)
    #expect(nobody.stderr.hasPrefix("journal: error: sharing needs someone to share with"))
    let bin = f.home.file("emptybin")
    try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
    let key = try Self.keyPair(f, "key.txt")
    let noAge = f.run("share", id, "--to", key.recipient, extra: ["PATH": bin])
    #expect(noAge.status == 7)
    #expect(noAge.stderr.hasPrefix("journal: error: encrypting to a recipient needs age"))
    #expect(!FileManager.default.fileExists(atPath: file))
  }

  /// Nothing readable reaches age's command line or environment: a wrapper in PATH records
  /// both, then runs the real age.
  @Test(.enabled(if: available, "needs age (apt-get install age)"))
  func nothingReadableInAgesArgvOrEnvironment() throws {
    let f = CLIFixture().initialise()
    let id = f.new("--intention", "INTENTWORD")
    #expect(f.run("reflect", id, "--reflection", "REFLECTWORD").status == 0)
    let bin = f.home.file("bin")
    try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
    let log = f.home.file("age.log")
    let wrapper = """
      #!/bin/sh
      printf 'argv: %s\\n' "$*" >> '\(log)'
      env >> '\(log)'
      exec \(Self.age) "$@"
      """
    writeFile(bin + "/age", wrapper, mode: 0o755)
    let key = try Self.keyPair(f, "key.txt")
    let shared = f.run(
      "share", id, "--to", key.recipient, "--output", f.home.file("s.age"),
      extra: ["PATH": bin + ":/usr/bin:/bin"])
    #expect(shared.status == 0, "\(shared)")
    let recorded = try String(contentsOfFile: log, encoding: .utf8)
    #expect(recorded.contains("argv: -e -r \(key.recipient)"))
    #expect(!recorded.contains("INTENTWORD") && !recorded.contains("REFLECTWORD"))
    #expect(!recorded.contains(CLIFixture.passphrase))
    #expect(try Self.decrypt(f.home.file("s.age"), identity: key.identity).contains("REFLECTWORD"))
  }
}
