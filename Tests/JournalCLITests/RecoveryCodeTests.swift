import Foundation
import JournalTestSupport
import Testing

/// A way back when the passphrase is lost (issue 22): the recovery code, made, used,
/// replaced and removed through the real binary.
struct RecoveryCodeTests {
  /// `recovery-code` prints a code; with it, `passwd --recovery-code` sets a new passphrase
  /// without the old one; the old one stops working; nothing is re-encrypted (the session is
  /// read with the new passphrase); the code keeps working.
  @Test func lostPassphraseComesBack() throws {
    // Given a journal with a session and a recovery code
    let f = CLIFixture().initialise()
    let id = f.new()
    #expect(f.run("recovery-code", "--status").stdout == "no recovery code\n")
    let made = f.run("recovery-code")
    #expect(made.status == 0, "\(made)")
    let code = made.stdout.trimmingCharacters(in: .newlines)
    #expect(code.count == 39 && code.split(separator: "-").count == 8)
    #expect(made.stderr.contains("shown only now"))
    #expect(f.run("recovery-code", "--status").stdout == "a recovery code is set\n")
    let file = try #require(try? String(contentsOfFile: f.vaultPath, encoding: .isoLatin1))
    #expect(!file.contains(code), "the code itself is never stored")
    // When the passphrase is lost and the code is used
    let codeFile = f.home.write("code", code + "\n")
    let newFile = f.home.write("new", "a fresh passphrase after all\n")
    let none = ["JOURNAL_PASSPHRASE_FILE": ""]
    let recovered = f.run(
      "passwd", "--recovery-code-file", codeFile, "--new-passphrase-file", newFile, extra: none)
    // Then
    #expect(recovered.status == 0, "\(recovered)")
    #expect(recovered.stderr.hasPrefix("journal: passphrase set with the recovery code"))
    #expect(f.run("show", id).status == 4, "the old passphrase no longer opens it")
    let withNew = f.run("show", id, "--json", extra: ["JOURNAL_PASSPHRASE_FILE": newFile])
    #expect(withNew.status == 0, "\(withNew)")
    #expect(withNew.stdout.contains("to listen inward"))
    let again = f.run(
      "passwd", "--recovery-code-file", codeFile, "--new-passphrase-file", f.passphraseFile,
      extra: none)
    #expect(again.status == 0, "the code still works: \(again)")
    #expect(f.run("show", id).status == 0)
  }

  /// A typo is caught by the code's check before any key work (exit 2); a code of another
  /// journal does not open it (exit 4); neither changes anything.
  @Test func mistypedAndWrongCodes() throws {
    let f = CLIFixture().initialise()
    let code = f.run("recovery-code").stdout.trimmingCharacters(in: .newlines)
    var characters = Array(code)
    characters[0] = characters[0] == "Z" ? "Y" : "Z"
    let typo = f.home.write("typo", String(characters) + "\n")
    let newFile = f.home.write("new", "a fresh passphrase after all\n")
    let none = ["JOURNAL_PASSPHRASE_FILE": ""]
    let mistyped = f.run(
      "passwd", "--recovery-code-file", typo, "--new-passphrase-file", newFile, extra: none)
    #expect(mistyped.status == 2)
    #expect(
      mistyped.stderr
        == """
        journal: error: that is not a recovery code: a character is missing, extra or mistyped
        journal: hint: a code is 32 letters and digits in 8 groups of 4; nothing was changed

        """)
    let other = CLIFixture().initialise()
    let otherCode = other.run("recovery-code").stdout
    let wrong = f.home.write("wrong", otherCode)
    let refused = f.run(
      "passwd", "--recovery-code-file", wrong, "--new-passphrase-file", newFile, extra: none)
    #expect(refused.status == 4)
    #expect(
      refused.stderr.hasPrefix("journal: error: the recovery code does not open this journal"))
    #expect(f.run("list").status == 0, "the passphrase still opens it")
  }

  /// A new code replaces the old one (asked first; `--yes` without a terminal), which stops
  /// working; a removed code works no more, and says so.
  @Test func replacedAndRemoved() throws {
    let f = CLIFixture().initialise()
    let first = f.home.write("first", f.run("recovery-code").stdout)
    let asked = f.run("recovery-code")
    #expect(asked.status == 2)
    #expect(asked.stderr.contains("add --yes to make a new one"))
    let second = f.home.write("second", f.run("recovery-code", "--yes").stdout)
    let newFile = f.home.write("new", "a fresh passphrase after all\n")
    let none = ["JOURNAL_PASSPHRASE_FILE": ""]
    let old = f.run(
      "passwd", "--recovery-code-file", first, "--new-passphrase-file", newFile, extra: none)
    #expect(old.status == 4, "\(old)")
    #expect(f.run("recovery-code", "--remove").stderr.contains("the recovery code is removed"))
    let removed = f.run(
      "passwd", "--recovery-code-file", second, "--new-passphrase-file", newFile, extra: none)
    #expect(removed.status == 6)
    #expect(removed.stderr.hasPrefix("journal: error: this journal has no recovery code"))
  }

  /// `init` at a terminal offers a code with a one-line reason, and shows it when asked.
  @Test func initOffersOne() throws {
    let f = CLIFixture()
    let process = f.cli.interactive(["init", "--kdf", "interactive"])
    #expect(process.expect("it lets you choose a new one."))
    #expect(process.expect("Make one now? [y/N] "))
    process.write("y\n")
    let result = process.wait()
    #expect(result.status == 0, "\(result)")
    let code = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    #expect(code.split(separator: "-").count == 8, "\(result)")
    #expect(f.run("recovery-code", "--status").stdout == "a recovery code is set\n")
  }
}
