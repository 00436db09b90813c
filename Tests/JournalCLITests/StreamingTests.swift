import Foundation
import JournalTestSupport
import Testing

/// The commands that read or write every session keep memory flat however large the journal
/// (issue 18): measured here as the real binary's peak resident memory, by GNU time (which
/// Scripts/test installs; the kernel's wait4 figure for a child started with posix_spawn
/// counts the parent's memory too), on a journal of ~70 MB of text, far more than any of
/// them may hold. Before streaming, export held the whole journal several times over (~5×
/// its size) and failed this bound.
@Suite struct StreamingTests {
  /// Peak memory allowed each command, in KiB: the issue's target. Through the agent, so no
  /// key derivation (64 MiB of Argon2id) is counted.
  static let bound = 64 * 1024

  /// Runs `journal arguments…` under GNU time: its result, and its peak memory in KiB.
  static func measured(_ f: CLIFixture, _ arguments: [String]) throws -> (CLI.Result, Int) {
    try #require(
      FileManager.default.isExecutableFile(atPath: "/usr/bin/time"),
      "GNU time is needed: Scripts/test installs it (apt-get install time)")
    // Without the passphrase file: through the agent or not at all (a command that fell back
    // to the passphrase would count Argon2id's 64 MiB).
    let command = [
      "/usr/bin/time", "-f", "peak %M", "/usr/bin/env", "-u", "JOURNAL_PASSPHRASE_FILE",
      CLI.binary,
    ]
    let result = f.cli.runProgram(command + arguments)
    let last = result.stderr.split(separator: "\n").last ?? ""
    let peak = try #require(Int(last.dropFirst("peak ".count)), "\(result)")
    return (result, peak)
  }

  /// 2,000 sessions of ~35 KB each, as journal's own export.
  static func exportFile(in home: TemporaryDirectory) throws -> String {
    let path = home.file("big.json")
    _ = FileManager.default.createFile(atPath: path, contents: nil)
    let handle = try #require(FileHandle(forWritingAtPath: path))
    defer { try? handle.close() }
    try handle.write(
      contentsOf: Data(
        "{\n  \"exported\" : \"2026-11-25T00:00:00.000Z\",\n  \"format\" : \"journal-export\",\n  \"sessions\" : [\n"
          .utf8))
    let paragraph = String(repeating: "The room was quiet and the light was low. ", count: 8)
    for index in 0..<2000 {
      let id = String(format: "%08x0000400080000000%08x", index, index)
      let reflection = String(repeating: paragraph + "\\n", count: 80)
      let day = 1 + index % 28
      let session = """
            {
              "created" : "2026-10-\(String(format: "%02d", day))T10:00:00.000Z",
              "date" : "2026-10-\(String(format: "%02d", day))T09:00:00.000Z",
              "dose" : "2 g",
              "environment" : "home, \(index)",
              "id" : "\(id)",
              "intention" : "\(String(repeating: paragraph, count: 20))",
              "mood_after" : 7,
              "mood_before" : 4,
              "music" : null,
              "reflection" : "\(reflection)",
              "status" : "complete",
              "treatment" : "psilocybin",
              "treatment_name" : null,
              "updated" : "2026-10-\(String(format: "%02d", day))T11:00:00.000Z"
            }
        """
      try handle.write(contentsOf: Data(((index == 0 ? "" : ",\n") + session).utf8))
    }
    try handle.write(contentsOf: Data("\n  ],\n  \"version\" : 1\n}\n".utf8))
    return path
  }

  @Test func memoryStaysFlat() throws {
    // An agent of its own, in a runtime directory of its own: another test's "journal lock"
    // stops every agent of the shared one.
    let runtime = AgentTests.Runtime()
    let f = CLIFixture(extra: ["XDG_RUNTIME_DIR": runtime.path]).initialise()
    defer {
      f.run("lock")
      withExtendedLifetime(runtime) {}
    }
    let file = try Self.exportFile(in: f.home)
    #expect(
      (try FileManager.default.attributesOfItem(atPath: file)[.size] as? Int ?? 0) > 60_000_000)
    #expect(f.run("unlock", "--for", "10m").status == 0)

    let (imported, importPeak) = try Self.measured(f, ["import", file])
    #expect(imported.status == 0, "\(imported)")
    #expect(imported.stderr.contains("added 2000, updated 0"), "\(imported.stderr)")
    #expect(importPeak < Self.bound, "import: \(importPeak) KiB")

    let out = f.home.file("out.json")
    for arguments in [
      ["export", "--output", out], ["export", "--format", "csv"],
      ["export", "--format", "markdown"], ["list", "--json"], ["verify"], ["trends"],
      ["list"],
    ] {
      let (result, peak) = try Self.measured(f, arguments)
      #expect(result.status == 0, "\(arguments): \(result.stderr)")
      #expect(peak < Self.bound, "\(arguments): \(peak) KiB")
    }
    // What was written out is what came in: importing it again changes nothing.
    let again = f.run("import", out)
    #expect(again.status == 0)
    #expect(again.stderr.contains("left 2000 unchanged"), "\(again.stderr)")
    #expect(f.run("verify").stderr.contains("all 2000 sessions are intact"))
  }

  /// All or nothing, read as a stream: a bad session at the very end of a long file (after
  /// 1,999 good ones were already written in the transaction), or the file cut short, leaves
  /// the vault as it was.
  @Test func allOrNothingAtTheEnd() throws {
    let runtime = AgentTests.Runtime()
    let f = CLIFixture(extra: ["XDG_RUNTIME_DIR": runtime.path]).initialise()
    defer {
      f.run("lock")
      withExtendedLifetime(runtime) {}
    }
    _ = f.new()
    let before = f.run("list", "--json").stdout
    let file = try Self.exportFile(in: f.home)
    var text = try String(contentsOfFile: file, encoding: .utf8)
    let last = try #require(text.range(of: "\"mood_after\" : 7", options: .backwards))
    text.replaceSubrange(last, with: "\"mood_after\" : 11")
    let bad = f.home.write("bad.json", text)
    let refused = f.run("import", bad)
    #expect(refused.status == 2)
    #expect(
      refused.stderr.hasPrefix(
        "journal: error: nothing was imported: sessions[1999].mood_after 11 is outside 1 to 10"),
      "\(refused.stderr)")
    let cut = f.home.write("cut.json", String(text.prefix(text.utf8.count - 40)))
    #expect(f.run("import", cut).stderr.contains("the end of the file is not valid JSON"))
    #expect(f.run("list", "--json").stdout == before)
  }
}
