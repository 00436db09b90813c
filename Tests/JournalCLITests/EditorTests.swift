import Foundation
import Glibc
import JournalTestSupport
import Testing

/// Long texts in the person's own editor, through a buffer in private memory-backed storage.
@Suite(.serialized) struct EditorTests {
  /// A stand-in editor: records where its buffer is and with which mode, then writes text.
  func fakeEditor(_ f: CLIFixture, text: String) -> (script: String, log: String) {
    let log = f.home.file("editor.log")
    let script = f.home.write(
      "fake-editor",
      """
      #!/bin/sh
      for last in "$@"; do :; done
      printf '%s\\n' "$last" > '\(log)'
      stat -c '%a' "$last" >> '\(log)'
      stat -f -c '%T' "$last" >> '\(log)'
      printf '%s' '\(text)' > "$last"

      """, mode: 0o700)
    return (script, log)
  }

  /// `reflect --editor`: the reflection comes from the editor; its buffer was 0600 on a tmpfs
  /// in a private directory, and is gone afterwards.
  @Test func reflectionFromEditor() throws {
    let f = CLIFixture().initialise()
    let id = f.new()
    let editor = fakeEditor(f, text: "written in my editor\nover two lines")
    let process = f.cli.interactive(["reflect", id, "--editor"], extra: ["EDITOR": editor.script])
    #expect(process.expect("Mood after, 1 to 10 "))
    process.write("\n")
    #expect(process.expect("opening your editor"))
    #expect(process.expect("Environment — where, and with whom "))
    process.write("\n")
    #expect(process.expect("Music notes "))
    process.write("\n")
    let result = process.wait()
    #expect(result.status == 0, "\(result)")
    #expect(f.show(id)["reflection"] as? String == "written in my editor\nover two lines")
    let log = try String(contentsOfFile: editor.log, encoding: .utf8).split(separator: "\n")
    #expect(log.count == 3)
    let buffer = String(log[0])
    #expect(log[1] == "600")
    #expect(log[2] == "tmpfs")
    #expect(!FileManager.default.fileExists(atPath: buffer))
    let directory = (buffer as NSString).deletingLastPathComponent
    var info = stat()
    lstat(directory, &info)
    #expect(info.st_mode & 0o777 == 0o700)
    #expect(info.st_uid == getuid())
  }

  /// A buffer left by a crashed journal is wiped and removed on the next editor start.
  @Test func leftoverBufferWiped() throws {
    // No runtime directory named: the buffer's is under /dev/shm.
    let f = CLIFixture(extra: ["XDG_RUNTIME_DIR": ""]).initialise()
    let id = f.new()
    let directory = "/dev/shm/journal-\(getuid())/edit"
    let parent = (directory as NSString).deletingLastPathComponent
    // What this test made is taken away after it, where empty (rmdir: nothing else's).
    let made = [parent, directory].filter { !FileManager.default.fileExists(atPath: $0) }
    defer { for path in made.reversed() { rmdir(path) } }
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    chmod(parent, 0o700)
    chmod(directory, 0o700)
    let leftover = directory + "/2147483646-1.txt"
    #expect(FileManager.default.createFile(atPath: leftover, contents: Data("LEFTOVER".utf8)))
    chmod(leftover, 0o600)
    let editor = fakeEditor(f, text: "")
    let process = f.cli.interactive(["reflect", id, "--editor"], extra: ["EDITOR": editor.script])
    #expect(process.expect("Mood after, 1 to 10 "))
    process.write("\u{03}")
    _ = process.wait()
    #expect(!FileManager.default.fileExists(atPath: leftover))
  }

  /// With real vim: the text is kept, and vim leaves no swap, undo, backup or viminfo file.
  @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/vim")))
  func realVim() throws {
    let f = CLIFixture().initialise()
    let id = f.new()
    let process = f.cli.interactive(
      ["reflect", id, "--editor"], extra: ["EDITOR": "vim", "TERM": "xterm"])
    #expect(process.expect("not chosen"))
    process.write("\r")
    #expect(process.expect("opening your editor"))
    #expect(
      process.expect(".txt\"", timeout: 20), "\(process.screenText.suffix(600).debugDescription)")
    process.write("iVIMWRITTEN words\u{1B}:wq\r")
    #expect(process.expect("Environment — where, and with whom ", timeout: 20))
    process.write("\n")
    #expect(process.expect("Music notes "))
    process.write("\n")
    #expect(process.wait().status == 0)
    #expect(f.show(id)["reflection"] as? String == "VIMWRITTEN words")
    for file in f.home.allFiles() {
      #expect(file.bytes.range(of: Data("VIMWRITTEN".utf8)) == nil, "\(file.path)")
    }
    #expect(!FileManager.default.fileExists(atPath: f.home.file(".viminfo")))
  }
}

extension EditorTests {
  /// `edit --editor` with every buffer emptied: the intention is kept (it cannot be cleared)
  /// and the walk goes on; each other text is cleared only when the person says so, and the
  /// last line says what was cleared.
  @Test func emptiedBuffersAreClearedOnlyWhenAsked() {
    // Given a session with every long text
    let f = CLIFixture().initialise()
    let id = f.new(
      "--reflection", "it was kind", "--environment", "by the sea", "--music", "rain sounds")
    let editor = fakeEditor(f, text: "")
    // When each buffer comes back empty
    let process = f.cli.interactive(["edit", id, "--editor"], extra: ["EDITOR": editor.script])
    #expect(process.expect("the intention is needed and cannot be cleared"))
    #expect(process.expect("The reflection came back empty. Clear it? [y/N] "))
    process.write("y\r")
    #expect(process.expect("The environment came back empty. Clear it? [y/N] "))
    process.write("\r")
    #expect(process.expect("kept as it was"))
    #expect(process.expect("The music notes came back empty. Clear it? [y/N] "))
    process.write("n\r")
    let result = process.wait()
    // Then only the reflection is cleared, and the screen says so
    #expect(result.status == 0, "\(result)")
    #expect(process.screenText.contains("Cleared: the reflection."), "\(process.screenText)")
    let session = f.show(id)
    #expect(session["intention"] as? String == "to listen inward")
    #expect(session["reflection"] is NSNull)
    #expect(session["environment"] as? String == "by the sea")
    #expect(session["music"] as? String == "rain sounds")
  }

  /// `edit --tag … --editor`: the tags are saved first, and the editor still opens for the
  /// long texts (the tags alone once made the whole edit, and the editor never opened).
  @Test func tagsAndEditorTogether() {
    let f = CLIFixture().initialise()
    let id = f.new()
    let editor = fakeEditor(f, text: "from the editor")
    let process = f.cli.interactive(
      ["edit", id, "--tag", "Calm", "--editor"], extra: ["EDITOR": editor.script])
    let result = process.wait()
    #expect(result.status == 0, "\(result)")
    #expect(process.screenText.contains("Saved: the tags."), "\(process.screenText)")
    let session = f.show(id)
    #expect(session["tags"] as? [String] == ["calm"])
    #expect(session["intention"] as? String == "from the editor")
    #expect(session["reflection"] as? String == "from the editor")
  }

  /// `edit --tag … --editor` with no editor to run: refused before the tags are saved, so
  /// nothing is half done.
  @Test func tagsWaitForAnEditorThatRuns() {
    let f = CLIFixture().initialise()
    let id = f.new()
    let process = f.cli.interactive(
      ["edit", id, "--tag", "calm", "--editor"],
      extra: ["EDITOR": "/nonexistent/editor", "VISUAL": ""])
    let result = process.wait()
    #expect(result.status != 0, "\(result)")
    let session = f.show(id)
    #expect(session["intention"] as? String == "to listen inward")
    #expect((session["tags"] as? [String] ?? []).isEmpty, "\(session)")
  }

  /// The long text's prompt with "opening your editor" after it is wrapped whole at the
  /// terminal's width (at 100 columns it was cut inside "editor").
  @Test func editorPromptFitsTheWidth() {
    let f = CLIFixture().initialise()
    let id = f.new()
    let editor = fakeEditor(f, text: "from the editor")
    let process = f.cli.interactive(
      ["reflect", id, "--editor"],
      extra: ["EDITOR": editor.script, "TERM": "xterm-256color", "COLUMNS": "100"])
    #expect(process.expect("Mood after"))
    process.write("\r")
    #expect(process.expect("Environment — where, and with whom "))
    process.write("\r")
    #expect(process.expect("Music notes "))
    process.write("\r")
    #expect(process.wait().status == 0)
    let lines = NarrowTerminalTests.shownLines(process.screenText)
    #expect(lines.allSatisfy { $0.count <= 100 }, "\(lines)")
    #expect(process.screenWords.contains(#"holding only ".") — opening your editor"#), "\(lines)")
  }
}
