import Foundation
import Glibc
import JournalTestSupport
import Testing

/// `journal reflect` at a terminal: Enter skips every field (the reflection too), Ctrl-C says
/// what was saved, and an interrupted reflection goes on where it stopped.
@Suite(.serialized) struct ReflectFormTests {
  static let terminal = ["TERM": "xterm-256color", "COLUMNS": "80"]

  /// Enter at an empty reflection skips it, as the header says: the session still needs
  /// reflection, and the fields after it are asked.
  @Test func enterSkipsTheReflection() {
    let f = CLIFixture().initialise()
    let id = f.new()
    let process = f.cli.interactive(["reflect", id], extra: Self.terminal)
    #expect(process.expect("press Enter to skip any of them"))
    #expect(process.expect("Mood after"))
    process.write("\r")
    #expect(process.expect("Reflection — what stays with you"))
    process.write("\r")
    #expect(process.expect("Environment — where, and with whom "))
    process.write("the garden\r")
    #expect(process.expect("Music notes "))
    process.write("\r")
    // The gentle last step; Enter keeps the session waiting.
    #expect(process.expect("Leave it here for now? [y/N]"))
    process.write("\r")
    let result = process.wait()
    #expect(result.status == 0, "\(result)")
    let session = f.show(id)
    #expect(session["status"] as? String == "needs_reflection")
    #expect(session["reflection"] is NSNull)
    #expect(session["environment"] as? String == "the garden")
  }

  /// Ctrl-C at Environment, after the reflection was saved: the screen says what was kept
  /// and how to go on; `reflect` then asks only the later fields still empty.
  @Test func interruptedReflectGoesOn() {
    let f = CLIFixture().initialise()
    let id = f.new()
    let process = f.cli.interactive(["reflect", id], extra: Self.terminal)
    #expect(process.expect("Mood after"))
    process.write("7\r")
    #expect(process.expect("Reflection — what stays with you"))
    process.write("a soft day\r.\r")
    #expect(process.expect("Environment — where, and with whom "))
    process.write("by the se")
    #expect(process.expect("by the se"))
    process.write("\u{03}")
    let stopped = process.wait()
    #expect(stopped.status != 0)
    #expect(
      process.screenWords.contains(
        #"journal: stopped; the mood after and the reflection are saved; "journal reflect \#(id)" asks for the rest"#
      ), "\(process.screenText)")
    #expect(f.show(id)["status"] as? String == "complete")

    let again = f.cli.interactive(["reflect", id], extra: Self.terminal)
    #expect(again.expect("Environment — where, and with whom "))
    again.write("by the sea\r")
    #expect(again.expect("Music notes "))
    again.write("rain\r")
    let result = again.wait()
    #expect(result.status == 0, "\(result)")
    #expect(!again.screenText.contains("Mood after"))
    #expect(!again.screenText.contains("Reflection —"))
    let session = f.show(id)
    #expect(session["environment"] as? String == "by the sea")
    #expect(session["music"] as? String == "rain")
    #expect(session["reflection"] as? String == "a soft day")
    // Every later field is filled now: reflect says so and points at edit
    let full = f.run("reflect", id)
    #expect(full.status == 7)
    #expect(full.stderr.contains(#"is already complete"#))
  }

  /// Flags may fill a complete session's empty later fields, never overwrite one.
  @Test func flagsFillOnlyEmptyFields() {
    let f = CLIFixture().initialise()
    let id = f.new()
    #expect(f.run("reflect", id, "--reflection", "done").status == 0)
    let music = f.run("reflect", id, "--music", "rain")
    #expect(music.status == 0, "\(music)")
    #expect(f.show(id)["music"] as? String == "rain")
    let overwrite = f.run("reflect", id, "--reflection", "again")
    #expect(overwrite.status == 7)
    #expect(f.show(id)["reflection"] as? String == "done")
  }

  /// Ctrl-C at the first question: nothing was saved, and the screen says that.
  @Test func interruptedBeforeAnything() {
    let f = CLIFixture().initialise()
    let id = f.new()
    let process = f.cli.interactive(["reflect", id], extra: Self.terminal)
    #expect(process.expect("Mood after"))
    process.write("\u{03}")
    let stopped = process.wait()
    #expect(stopped.status != 0)
    #expect(process.screenText.contains("journal: stopped; nothing was changed"))
  }

  /// Ctrl-C in the later fields `new` offers after saving: the session is saved, and the
  /// screen says so and how to go on.
  @Test func interruptedAfterNew() {
    let f = CLIFixture().initialise()
    let process = f.cli.interactive(["new"], extra: Self.terminal)
    #expect(process.expect("When was it? [now] "))
    process.write("2026-11-20 19:00\r\r\r")
    #expect(process.expect("Intention — what you bring to this session"))
    process.write("to arrive\r.\r")
    #expect(process.expect("Mood before"))
    process.write("6\r")
    #expect(process.expect("No thanks [3] "))
    process.write("\r")
    #expect(process.expect("Add them now? [y/N] "))
    process.write("y\r")
    #expect(process.expect("Mood after"))
    process.write("\u{03}")
    #expect(process.wait().status != 0)
    #expect(f.sessions().count == 1)
    let saved = process.screenText.firstMatch(of: /Saved\. Session (\w+) needs reflection/)
    let id = saved.map { String($0.1) } ?? "(no id on screen)"
    #expect(
      process.screenWords.contains(
        #"journal: stopped; the session is saved; "journal reflect \#(id)" asks for the rest"#
      ), "\(process.screenText)")
  }

  enum Interruption: String, CaseIterable {
    case ctrlC, hangup, kill9
  }

  /// The reflection being typed survives Ctrl-C, a closed terminal and a kill: its lines
  /// are in the encrypted draft (never in plaintext on disk), the screen says so, and the
  /// next `reflect` takes it up again where it stopped.
  @Test(arguments: Interruption.allCases)
  func reflectionSurvivesInterruption(_ how: Interruption) throws {
    let f = CLIFixture().initialise()
    let id = f.new()
    let process = f.cli.interactive(["reflect", id], extra: Self.terminal)
    #expect(process.expect("Mood after"))
    process.write("\r")
    #expect(process.expect("Reflection — what stays with you"))
    process.write("EMBERLIGHT stayed\r")
    #expect(process.expect("EMBERLIGHT stayed"))
    process.write("and the wa")
    #expect(process.expect("and the wa"))
    switch how {
    case .ctrlC: process.write("\u{03}")
    case .hangup: process.signal(SIGHUP)
    case .kill9: process.signal(SIGKILL)
    }
    #expect(process.wait().status != 0)
    if how == .ctrlC {
      #expect(
        process.screenWords.contains(
          #"journal: stopped; the reflection so far is kept; "journal reflect \#(id)" takes it up again"#
        ), "\(process.screenText)")
    }
    for file in f.home.allFiles() {
      #expect(file.bytes.range(of: Data("EMBERLIGHT".utf8)) == nil, "in \(file.path)")
    }
    #expect(f.show(id)["status"] as? String == "needs_reflection")
    // `new` does not offer it as a session's form; it says where it is
    let listed = f.run("drafts")
    #expect(listed.stdout == "", "\(listed)")
    #expect(listed.stderr.contains(#""journal reflect \#(id)" takes it up again"#), "\(listed)")

    let again = f.cli.interactive(["reflect", id], extra: Self.terminal)
    let kept = how == .kill9 ? "1 line" : "2 lines"
    #expect(again.expect("is kept (\(kept))."))
    #expect(again.expect("Go on with it? [Y/n] "))
    again.write("\r")
    #expect(again.expect("Mood after"))
    again.write("\r")
    #expect(again.expect(how == .kill9 ? "EMBERLIGHT stayed" : "and the wa"))
    again.write(how == .kill9 ? "and the wall\r.\r" : "ll\r.\r")
    #expect(again.expect("Environment — where, and with whom "))
    again.write("\r")
    #expect(again.expect("Music notes "))
    again.write("\r")
    #expect(again.wait().status == 0)
    #expect(f.show(id)["reflection"] as? String == "EMBERLIGHT stayed\nand the wall")
    #expect(f.run("drafts").stderr == "journal: no unfinished drafts\n")
  }

  /// Ctrl-C while a long paste is still being shown (a terminal slow to show it: over ssh,
  /// or this one, not read for a while) keeps the paste: journal has read it, so it is the
  /// reflection's, even though the signal came before its echo was done. (A signal was held
  /// only while a key was awaited; one that came while a key was used ended journal with
  /// the paste not kept.)
  @Test func stopWhileAPasteIsShownKeepsIt() {
    let f = CLIFixture().initialise()
    let id = f.new()
    let process = f.cli.interactive(["reflect", id], extra: Self.terminal)
    #expect(process.expect("Mood after"))
    process.write("\r")
    // The prompt's last line: nothing more is written until a key comes.
    #expect(process.expect(#"a line holding only ".")"# + "\r\n"))
    // 300 KB, more than a terminal holds unread: its echo waits for the screen.
    let paste = String(repeating: "the sea was wide and the light stayed\n", count: 8_000)
    process.pauseScreen()
    process.write("\u{1B}[200~" + paste + "\u{1B}[201~")
    // The whole paste has been read once journal starts showing it.
    #expect(process.writesToThePausedScreen())
    process.write("\u{03}")
    process.resumeScreen()
    #expect(process.wait().status == 130)
    #expect(
      process.screenWords.hasSuffix(
        #"journal: stopped; the reflection so far is kept; "journal reflect \#(id)" takes it up again"#
      ), "\(process.screenText.suffix(300))")
    let again = f.cli.interactive(["reflect", id], extra: Self.terminal)
    #expect(again.expect("is kept (8000 lines)."))
    #expect(again.expect("Go on with it? [Y/n] "))
    again.write("\r")
    #expect(again.expect("Mood after"))
    again.write("\r")
    #expect(again.expect("the light stayed", occurrence: 8_000))
    again.write("\u{04}")
    #expect(again.expect("Environment — where, and with whom "))
    again.write("\r")
    #expect(again.expect("Music notes "))
    again.write("\r")
    #expect(again.wait().status == 0)
    #expect(f.show(id)["reflection"] as? String == String(paste.dropLast()))
  }
}
