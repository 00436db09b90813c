import Foundation
import JournalCrypto
import JournalTestSupport
import Testing

@testable import JournalSync

/// `passwd --new-key` on a journal that syncs (issue 33): the server's copy is replaced under
/// the new key in one push, every other device follows at its next sync with the new
/// passphrase (its unsent changes kept), a device that cannot ask says so and changes
/// nothing, and the server can neither fake the change nor put the old key back.
struct NewKeyTests {
  static let newPassphrase = "a new passphrase after the leak"

  /// The first device changes the key; the second, with unsent changes, follows at its next
  /// sync; both end with the whole journal under the new key and nothing lost.
  @Test(SyncTests.needsServer) func everyDeviceFollows() throws {
    // Given a journal on two devices, each with a change not yet sent, and a new session on B
    let (server, a, b, ids) = try SyncTests.pair("newkey_follow", sessions: 2)
    a.ok("edit", ids[0], "--dose", "DOSE-FROM-A-BEFORE")
    b.ok("edit", ids[1], "--intention", "UNSENT-ON-B")
    b.ok(
      "new", "--intention", "NEW-ON-B", "--mood-before", "3", "--date", "2026-11-20 10:00")
    let oldHeader = try server.tables.execute("SELECT header FROM journal_vault").values
    // When A changes the key
    let newFile = a.home.write("new", Self.newPassphrase + "\n")
    let changed = a.ok("passwd", "--new-key", "--new-passphrase-file", newFile)
    // Then it says exactly what is true: what its first sync sent, the key here and on the
    // server, not yet on the others
    #expect(
      changed.stderr.contains("synced first, under the old key: sent 1 session"), "\(changed)")
    #expect(changed.stderr.contains("the old passphrase no longer opens this journal here"))
    #expect(
      changed.stderr.contains(
        "the sync server's copy was replaced: 2 sessions sealed under the new key; each other "
          + #"device asks for the new passphrase at its next "journal sync", and opens with "#
          + "the old one until then"),
      "\(changed)")
    // And the server holds a new header, and every row was written by the key's change
    #expect(try server.tables.execute("SELECT header FROM journal_vault").values != oldHeader)
    let counter = try server.count("SELECT counter FROM journal_vault")
    #expect(try server.count("SELECT count(*) FROM journal_row WHERE seq <> \(counter)") == 0)
    #expect(a.run("list").status == 4)
    let newPassphrase = ["JOURNAL_PASSPHRASE_FILE": newFile]
    #expect(a.run("sync", extra: newPassphrase).stdout == "up to date\n")
    // When B syncs with no way to ask for the new passphrase
    let stopped = b.run("sync")
    // Then it says what happened and what to do, and changes nothing
    #expect(stopped.status == 9, "\(stopped)")
    #expect(
      stopped.stderr.hasPrefix(
        "journal: error: the journal's key was changed on another device"),
      "\(stopped)")
    #expect(stopped.stderr.contains("JOURNAL_NEW_PASSPHRASE_FILE"))
    #expect(b.export().contains("UNSENT-ON-B"))
    b.ok("recovery-code")
    // When B syncs with the new passphrase at hand
    let bNew = b.home.write("new", Self.newPassphrase + "\n")
    let followed = b.ok("sync", extra: ["JOURNAL_NEW_PASSPHRASE_FILE": bNew])
    #expect(
      followed.stdout.contains(
        "the journal's key was changed on another device: this one follows it now "
          + "(3 sessions sealed again here), and opens with the new passphrase only"),
      "\(followed)")
    #expect(followed.stdout.hasPrefix("sent 2 sessions, received 1 session\n"), "\(followed)")
    #expect(
      followed.stdout.contains(
        "this device's recovery code opened the old key and no longer works"), "\(followed)")
    // Then B opens with the new passphrase only, and has no recovery code
    #expect(b.run("list").status == 4)
    let bNewPassphrase = ["JOURNAL_PASSPHRASE_FILE": bNew]
    #expect(
      b.run("recovery-code", "--status", extra: bNewPassphrase).stdout == "no recovery code\n")
    // And after A syncs, both hold the same journal, every change kept
    #expect(a.ok("sync", extra: newPassphrase).stdout == "received 2 sessions\n")
    #expect(b.ok("sync", extra: bNewPassphrase).stdout == "up to date\n")
    let exported = a.run("export", "--format", "json", extra: newPassphrase).stdout
    let other = b.run("export", "--format", "json", extra: bNewPassphrase).stdout
    func sessions(_ text: String) -> String {
      text.split(separator: "\n").filter { !$0.contains("\"exported\"") }.joined(separator: "\n")
    }
    #expect(sessions(exported) == sessions(other))
    for text in ["DOSE-FROM-A-BEFORE", "UNSENT-ON-B", "NEW-ON-B"] {
      #expect(exported.contains(text), "\(text)")
    }
    // And both still verify, and a device that joins now needs the new passphrase
    #expect(b.run("verify", extra: bNewPassphrase).status == 0)
    let stranger = Device(server)
    #expect(stranger.run("sync", "join", server.url).status == 4)
    let newcomer = Device(server, passphrase: Self.newPassphrase)
    #expect(newcomer.ok("sync", "join", server.url).stdout == "received 3 sessions\n")
    #expect(sessions(newcomer.export()) == sessions(exported))
  }

  /// Deletions cross a key change both ways: one sent before it (which the device that
  /// follows never read under the old key) is made there too, and one made there and not yet
  /// sent is sent after it.
  @Test(SyncTests.needsServer) func deletionsCrossTheChange() throws {
    // Given a journal of three sessions on two devices
    let (server, a, b, ids) = try SyncTests.pair("newkey_delete", sessions: 3)
    let full = ids.map { a.fullID($0) }
    // When A deletes one and sends it, and B deletes another and does not send it
    let deleted = ["JOURNAL_DEBUG_NOW": "2026-11-24T00:00:00Z"]
    a.ok("delete", ids[0], "--yes", extra: deleted)
    b.ok("delete", ids[1], "--yes", extra: deleted)
    #expect(a.ok("sync").stdout == "sent 1 deletion\n")
    // And A changes the key
    let newFile = a.home.write("new", Self.newPassphrase + "\n")
    a.ok("passwd", "--new-key", "--new-passphrase-file", newFile)
    #expect(try server.count("SELECT count(*) FROM journal_row") == 2)
    // Then B, following, removes the first and sends the second
    let followed = b.ok("sync", extra: ["JOURNAL_NEW_PASSPHRASE_FILE": newFile])
    #expect(
      followed.stdout.hasPrefix("sent 1 deletion, removed 1 session deleted on another device\n"),
      "\(followed)")
    #expect(try server.count("SELECT count(*) FROM journal_row") == 1)
    // And both hold the third alone
    let newPassphrase = ["JOURNAL_PASSPHRASE_FILE": newFile]
    #expect(a.ok("sync", extra: newPassphrase).stdout.contains("removed 1 session"))
    for device in [a, b] {
      let exported = device.run("export", "--format", "json", extra: newPassphrase).stdout
      #expect(!exported.contains(full[0]) && !exported.contains(full[1]), "\(exported)")
      #expect(exported.contains(full[2]))
    }
  }

  /// A push from another device while the key change is under way is not lost: the change
  /// finds the server moved, syncs again, and replaces the copy with that push in it.
  @Test(SyncTests.needsServer) func anotherPushMeanwhile() throws {
    // Given a journal on two devices, and a key change stopped just before its push
    let (_, a, b, ids) = try SyncTests.pair("newkey_race", sessions: 1)
    let newFile = a.home.write("new", Self.newPassphrase + "\n")
    let pause = a.home.file("pause")
    let changing = a.start(
      "passwd", "--new-key", "--new-passphrase-file", newFile,
      extra: ["JOURNAL_DEBUG_PAUSE_AT": "new-key-before-push", "JOURNAL_DEBUG_PAUSE_FILE": pause])
    #expect(eventually(timeout: 60) { FileManager.default.fileExists(atPath: pause + ".paused") })
    // When the other device pushes meanwhile, and the change goes on
    b.ok("edit", ids[0], "--dose", "PUSHED-MEANWHILE")
    #expect(b.ok("sync").stdout == "sent 1 session\n")
    #expect(FileManager.default.createFile(atPath: pause, contents: nil))
    let changed = changing.wait(timeout: 60)
    // Then the key changed with that push in the server's copy, and said it received it
    #expect(changed.status == 0, "\(changed)")
    #expect(
      changed.stderr.contains("synced first, under the old key: received 1 session"),
      "\(changed)")
    let newPassphrase = ["JOURNAL_PASSPHRASE_FILE": newFile]
    #expect(
      a.run("export", "--format", "json", extra: newPassphrase).stdout.contains(
        "PUSHED-MEANWHILE"))
    b.ok("sync", extra: ["JOURNAL_NEW_PASSPHRASE_FILE": newFile])
    #expect(
      b.run("export", "--format", "json", extra: newPassphrase).stdout.contains(
        "PUSHED-MEANWHILE"))
  }

  /// Whoever holds the old passphrase and the old key header reads nothing the server holds
  /// after the change: every row there opens under the new key only.
  @Test(SyncTests.needsServer) func oldKeyOpensNothingAfter() throws {
    // Given a journal on two devices, and the server's old header as a leak would keep it
    let (server, a, _, ids) = try SyncTests.pair("newkey_stale", sessions: 2)
    let old = try #require(
      try server.tables.execute("SELECT header FROM journal_vault").values.first?.first ?? nil)
    let oldKeys = try keys(old, Device.passphrase)
    // When A changes the key, then writes
    let newFile = a.home.write("new", Self.newPassphrase + "\n")
    a.ok("passwd", "--new-key", "--new-passphrase-file", newFile)
    let newPassphrase = ["JOURNAL_PASSPHRASE_FILE": newFile]
    a.ok("edit", ids[0], "--dose", "WRITTEN-AFTER", extra: newPassphrase)
    a.ok("sync", extra: newPassphrase)
    // Then no row on the server opens under the old key, and every one under the new
    let header = try #require(
      try server.tables.execute("SELECT header FROM journal_vault").values.first?.first ?? nil)
    let newKeys = try keys(header, Self.newPassphrase)
    let rows = try server.tables.execute("SELECT row_id, seq, body FROM journal_row").values
    #expect(rows.count == 2)
    for row in rows {
      let id = try #require(row[0])
      let seq = try #require(row[1]).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
      let body = try #require(row[2])
      let stale = try RecordCipher(key: oldKeys.syncKey, random: SystemRandom())
      #expect(throws: (any Error).self) {
        try stale.open(body, id: id, column: .syncRow, revision: seq) { _ in () }
      }
      let current = try RecordCipher(key: newKeys.syncKey, random: SystemRandom())
      try current.open(body, id: id, column: .syncRow, revision: seq) { _ in () }
    }
    // And the old passphrase does not open the server's header
    #expect(throws: CryptoError.wrongPassphrase) { try keys(header, Device.passphrase) }
  }

  /// A link that claims a new key but that no device's key made is refused (exit 12), with
  /// nothing applied; so is the old header put back after the change, on the device that
  /// made it and on one that follows.
  @Test(SyncTests.needsServer) func serverCannotFakeTheChange() throws {
    // Given a journal on two devices
    let (server, a, b, _) = try SyncTests.pair("newkey_fake", sessions: 2)
    // When the server adds a link that claims a new key (the last one, marked so)
    try server.tables.executeScript(
      """
      INSERT INTO journal_link (owner, vault_id, seq, device, entry, tag)
        SELECT owner, vault_id, seq + 1, device, set_byte(entry, 0, 2), tag FROM journal_link
        WHERE seq = (SELECT max(seq) FROM journal_link);
      UPDATE journal_vault SET counter = counter + 1;
      """)
    // Then a device refuses it, and its journal is as it was
    let before = b.export()
    let faked = b.run("sync")
    #expect(faked.status == 12, "\(faked)")
    #expect(faked.stderr.contains("change 2"), "\(faked)")
    #expect(b.export() == before)
    try server.tables.executeScript(
      """
      DELETE FROM journal_link WHERE seq = (SELECT max(seq) FROM journal_link);
      UPDATE journal_vault SET counter = counter - 1;
      """)
    // When A changes the key for real, and the server puts the old header back
    let oldHeader = try #require(
      try server.tables.execute("SELECT header FROM journal_vault").values.first?.first ?? nil)
    let newFile = a.home.write("new", Self.newPassphrase + "\n")
    a.ok("passwd", "--new-key", "--new-passphrase-file", newFile)
    try server.tables.execute("UPDATE journal_vault SET header = $1", [oldHeader])
    // Then the device that made the key refuses it
    let replayed = a.run("sync", extra: ["JOURNAL_PASSPHRASE_FILE": newFile])
    #expect(replayed.status == 12, "\(replayed)")
    #expect(replayed.stderr.contains("key header"), "\(replayed)")
    // And one that follows, given the old passphrase (which opens that header), refuses it
    // too, and keeps its journal under the old key as it was
    let replayedThere = b.run("sync", extra: ["JOURNAL_NEW_PASSPHRASE_FILE": b.passphraseFile])
    #expect(replayedThere.status == 12, "\(replayedThere)")
    #expect(b.export() == before)
    #expect(b.run("list").status == 0)
  }

  /// A key change the server did not take changes nothing: not the server, not this device.
  @Test(SyncTests.needsServer) func newKeyNotSentChangesNothing() throws {
    // Given a journal on two devices, and a server that cuts the connection on a write
    let (server, a, _, _) = try SyncTests.pair("newkey_cut", sessions: 1)
    let oldHeader = try server.tables.execute("SELECT header FROM journal_vault").values
    try server.tables.executeScript(
      """
      CREATE FUNCTION cut() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN PERFORM pg_terminate_backend(pg_backend_pid()); RETURN NEW; END $$;
      CREATE TRIGGER cut BEFORE INSERT ON journal_link FOR EACH ROW EXECUTE FUNCTION cut();
      """)
    // When A changes the key
    let newFile = a.home.write("new", Self.newPassphrase + "\n")
    let cut = a.run("passwd", "--new-key", "--new-passphrase-file", newFile)
    // Then it says the key was not changed, and what to do
    #expect(cut.status == 13, "\(cut)")
    #expect(cut.stderr.hasPrefix("journal: error: the key was not changed: "), "\(cut)")
    #expect(cut.stderr.contains(#"run "journal passwd --new-key" again"#), "\(cut)")
    // And the old passphrase still opens the journal, and the server holds the old header
    #expect(a.run("list").status == 0)
    #expect(try server.tables.execute("SELECT header FROM journal_vault").values == oldHeader)
  }

  /// At a terminal, the device that follows asks for the new passphrase (again after a
  /// typo) and follows; until then it opens with the old one.
  @Test(SyncTests.needsServer) func followsAtATerminal() throws {
    // Given a journal on two devices, and a new key made on the first
    let (_, a, b, _) = try SyncTests.pair("newkey_tty", sessions: 1)
    let newFile = a.home.write("new", Self.newPassphrase + "\n")
    a.ok("passwd", "--new-key", "--new-passphrase-file", newFile)
    #expect(b.run("list").status == 0)
    // When the second syncs at a terminal, and a typo comes first
    let process = b.cli.interactive(["sync"])
    #expect(process.expect("The journal's key was changed on another device"))
    #expect(process.expect("New passphrase: "))
    process.write("not the new one\r")
    #expect(process.expect("does not open the journal's new key; try again"))
    #expect(process.expect("New passphrase: ", occurrence: 2))
    process.write(Self.newPassphrase + "\r")
    let result = process.wait()
    // Then it follows, and opens with the new passphrase only
    #expect(result.status == 0, "\(result)")
    #expect(result.stdout.contains("this one follows it now"), "\(result)")
    #expect(b.run("list").status == 4)
    #expect(b.run("list", extra: ["JOURNAL_PASSPHRASE_FILE": newFile]).status == 0)
  }

  /// A key change killed at any point loses nothing: after the server took the new key but
  /// before this device changed its own, the device still holds the old key and follows like
  /// any other; after the change began here, the new passphrase finishes it, and this device
  /// syncs on from the new key's place in the chain.
  @Test(
    SyncTests.needsServer, arguments: ["new-key-sent", "key-change-begun", "key-change-batch-1"])
  func killedAnywhere(point: String) throws {
    // Given a journal on two devices, a change of the second's sent
    let (_, a, b, ids) = try SyncTests.pair("newkey_kill_\(point.filter(\.isLetter))", sessions: 2)
    b.ok("edit", ids[1], "--dose", "SENT-BY-B")
    b.ok("sync")
    // When the key change on the first is killed there
    let newFile = a.home.write("new", Self.newPassphrase + "\n")
    let killed = a.run(
      "passwd", "--new-key", "--new-passphrase-file", newFile,
      extra: ["JOURNAL_DEBUG_KILL_AT": point])
    #expect(killed.status != 0, "\(killed)")
    // Then the next sync with the passphrase that now opens it carries it through
    let before = point == "new-key-sent"
    #expect(a.run("list").status == (before ? 0 : 4))
    let resumed = a.run(
      "sync",
      extra: before
        ? ["JOURNAL_NEW_PASSPHRASE_FILE": newFile] : ["JOURNAL_PASSPHRASE_FILE": newFile])
    #expect(resumed.status == 0, "\(resumed)")
    #expect(resumed.stdout.contains("this one follows it now") == before, "\(resumed)")
    // And both devices end with the same journal under the new key
    let newPassphrase = ["JOURNAL_PASSPHRASE_FILE": newFile]
    #expect(a.run("list").status == 4)
    b.ok("sync", extra: ["JOURNAL_NEW_PASSPHRASE_FILE": newFile])
    a.ok("sync", extra: newPassphrase)
    let exported = a.run("export", "--format", "json", extra: newPassphrase).stdout
    #expect(exported.contains("SENT-BY-B"))
    #expect(
      b.run("export", "--format", "json", extra: newPassphrase).stdout.split(separator: "\n")
        .filter { !$0.contains("\"exported\"") }
        == exported.split(separator: "\n").filter { !$0.contains("\"exported\"") })
    #expect(a.run("verify", extra: newPassphrase).status == 0)
  }

  /// The keys a server header gives with `passphrase` (interactive limits, as the tests'
  /// journals are made).
  private func keys(_ header: [UInt8], _ passphrase: String) throws -> VaultKeys {
    let parsed = try #require(ServerHeader.decode(header))
    return try VaultKeys.open(
      header: parsed, passphrase: try SecureBytes(copying: Array(passphrase.utf8)),
      policy: .standard)
  }
}
