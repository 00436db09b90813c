import Foundation
import Glibc
import JournalTestSupport
import Testing

/// After a scenario of every command, no typed plaintext is in any file the tool could
/// write (vault, WAL, SHM, drafts, runtime directory, TMPDIR, HOME) or in its messages, and
/// the passphrase is in no command line or environment of a process the tool starts.
@Suite(.serialized) struct LeakTests {
  @Test func everyCommand() throws {
    // A helper that records the command line and environment of every process journal
    // starts (the editor, the notifier, the passphrase command) into a log outside HOME.
    let f = ReliabilityFixture()
    let log = f.secrets + "/processes.log"
    let recorder = f.secrets + "/record.sh"
    let script = """
      #!/bin/sh
      { tr '\\0' ' ' < /proc/$$/cmdline; echo; tr '\\0' '\\n' < /proc/$$/environ; } >> \(log)
      """
    writeFile(recorder, script + "\n", mode: 0o700)
    let editor = f.secrets + "/editor.sh"
    let editorScript = """
      #!/bin/sh
      \(recorder)
      printf 'EDITORTYPED words in the buffer\\n' > "$1"
      """
    writeFile(editor, editorScript + "\n", mode: 0o700)
    let passCommand = "\(recorder); cat \(f.secrets)/pass"
    let words = [
      "LEAKDOSE", "LEAKINTENTION", "LEAKREFLECT", "LEAKENVIRON", "LEAKMUSIC", "LEAKDRAFT",
      "LEAKEDITED", "EDITORTYPED", "LEAKSTDIN", "LEAKIMPORT", "Leakroot",
    ]
    var results: [(String, CLI.Result)] = []
    func step(_ name: String, _ result: CLI.Result) { results.append((name, result)) }

    // When every command runs
    step("init", f.run("init", "--kdf", "interactive"))
    let id = try #require(
      f.new(intention: "LEAKINTENTION", "--dose", "LEAKDOSE", "--treatment", "other:Leakroot"))
    let waiting = f.run(
      "new", "--intention", "-", "--mood-before", "4", "--remind", "2h", stdin: "LEAKSTDIN")
    step("new stdin", waiting)
    let waitingID = waiting.stdout.trimmingCharacters(in: .newlines)
    step("remind", f.run("remind", waitingID, "--in", "1m"))
    step("reflect", f.run("reflect", id, "--environment", "LEAKENVIRON", "--music", "LEAKMUSIC"))
    step("reflect stdin", f.run("reflect", id, "--reflection", "-", stdin: "LEAKREFLECT text"))
    step("edit", f.run("edit", id, "--dose", "LEAKEDITED"))
    // A draft left by a killed guided form, and an editor's buffer.
    let form = f.cli.interactive(["new", "--editor"], extra: ["EDITOR": editor])
    // (Typed once the first question shows: what is typed before it is dropped.)
    _ = form.expect("When was it?", timeout: 10)
    form.write("2026-11-20 19:00\nmdma\nLEAKDRAFT dose\n")
    // The form asks for the intention only after the dose is in the draft file (every
    // answer is kept before the next question): then the kill leaves the dose on disk.
    #expect(form.expect("Intention — what you bring", timeout: 30), "\(form.screenText)")
    let drafts = (try? FileManager.default.contentsOfDirectory(atPath: f.draftsPath)) ?? []
    #expect(drafts.contains { $0.hasSuffix(".draft") }, "\(drafts)")
    form.signal(SIGKILL)
    #expect(form.wait().status == 128 + SIGKILL)
    let edited = f.cli.interactive(["reflect", waitingID, "--editor"], extra: ["EDITOR": editor])
    _ = edited.expect("Mood after", timeout: 10)
    edited.write("\n\n\n\n\n\n")
    step("reflect --editor", edited.wait(timeout: 30))
    step("drafts", f.run("drafts"))
    step("list", f.run("list"))
    step("show", f.run("show", id))
    step("status", f.run("status"))
    step(
      "reminders run",
      f.run(
        "reminders", "run",
        extra: ["JOURNAL_NOTIFY_COMMAND": recorder, "DBUS_SESSION_BUS_ADDRESS": ""]))
    let exportFile = f.secrets + "/export.json"
    step("export", f.run("export", "--output", exportFile))
    let importData = try Data(contentsOf: URL(fileURLWithPath: exportFile))
    let importFile = f.secrets + "/import.json"
    try Data(
      String(decoding: importData, as: UTF8.self).replacingOccurrences(
        of: "LEAKMUSIC", with: "LEAKIMPORT"
      ).utf8
    ).write(to: URL(fileURLWithPath: importFile))
    step("import", f.run("import", importFile))
    step("backup", f.run("backup", f.home + "/backup.db"))
    step(
      "verify",
      f.run(
        "verify", extra: ["JOURNAL_PASSPHRASE_FILE": "", "JOURNAL_PASSPHRASE_COMMAND": passCommand])
    )
    step("unlock", f.run("unlock", "--for", "5m"))
    let agent = agentProcess(f)
    step("list unlocked", f.run("list", extra: ["JOURNAL_PASSPHRASE_FILE": ""]))
    step("delete", f.run("delete", id, "--yes"))
    step("undo", f.run("undo"))
    step("lock", f.run("lock"))
    step(
      "passwd",
      f.run("passwd", "--kdf", "interactive", "--new-passphrase-file", f.secrets + "/other"))

    // Then every command succeeded
    for (name, result) in results {
      #expect(result.status == 0 || name == "undo", "\(name): \(result)")
    }
    // No typed word in any file under HOME, TMPDIR or the runtime directory, nor in stderr
    var scanned = 0
    var found: [String] = []
    do {
      // HOME, TMPDIR and the runtime directory (the passphrase files are elsewhere).
      for file in f.root.allFiles() + allFiles(under: f.runtime) {
        scanned += 1
        for word in words + [ReliabilityFixture.passphrase, ReliabilityFixture.otherPassphrase]
        where file.bytes.range(of: Data(word.utf8)) != nil {
          found.append("\(word) in \(file.path)")
        }
      }
    }
    for (name, result) in results {
      for word in words where result.stderr.contains(word) {
        found.append("\(word) in \(name)'s messages")
      }
      let showsContent = ["show", "list", "list unlocked"].contains(name)
      for word in words where !showsContent && result.stdout.contains(word) {
        found.append("\(word) in \(name)'s output")
      }
    }
    #expect(found.isEmpty, "\(found)")
    // The passphrase in no command line or environment of a started process
    let processes = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
    #expect(processes.contains("JOURNAL_"), "the recorder ran: \(processes.prefix(200))")
    #expect(!processes.contains(ReliabilityFixture.passphrase))
    #expect(!processes.contains(ReliabilityFixture.otherPassphrase))
    let agentSeen = try #require(agent, "the agent was found")
    #expect(!agentSeen.cmdline.contains(ReliabilityFixture.passphrase))
    #expect(!agentSeen.environ.contains(ReliabilityFixture.passphrase))
    #expect(agentSeen.coreLimit == "0", "core dumps off in the agent")
    Torture.report(
      "leaks", ["files scanned": scanned, "words typed": words.count, "leaks": found.count])
  }

  struct AgentSeen {
    let cmdline: String
    let environ: String
    let coreLimit: String
  }

  /// The agent `journal unlock` left running for this fixture's runtime directory.
  func agentProcess(_ f: ReliabilityFixture) -> AgentSeen? {
    for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
      guard Int32(entry) != nil,
        let cmdline = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline"),
        let environ = FileManager.default.contents(atPath: "/proc/\(entry)/environ")
      else { continue }
      let command = String(decoding: cmdline, as: UTF8.self)
      let variables = String(decoding: environ, as: UTF8.self)
      guard command.contains("agent-serve"), variables.contains(f.runtime) else { continue }
      let limits = (try? String(contentsOfFile: "/proc/\(entry)/limits", encoding: .utf8)) ?? ""
      let line = limits.split(separator: "\n").first { $0.hasPrefix("Max core file size") } ?? ""
      let soft = line.split(separator: " ", omittingEmptySubsequences: true).dropFirst(4).first
      return AgentSeen(
        cmdline: command, environ: variables, coreLimit: soft.map(String.init) ?? "?")
    }
    return nil
  }
}
