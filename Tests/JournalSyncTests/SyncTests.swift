import Foundation
import Glibc
import JournalSync
import JournalTestSupport
import Testing

/// The same journal on several devices through a real PostgreSQL (issue 19): the real binary,
/// a real server, each device its own vault. Devices converge: their `export --format json`
/// is the same after they have all synced.
struct SyncTests {
  static let needsServer = Testing.ConditionTrait.enabled(
    if: TestServer.available, "needs the test PostgreSQL cluster (Scripts/test starts it)")

  /// Two devices: the first set up, the second joined.
  static func pair(_ name: String, sessions: Int = 2) throws -> (
    TestServer, Device, Device, [String]
  ) {
    let server = try TestServer(name)
    let a = Device(server)
    let ids = a.initialise(sessions: sessions)
    let setup = a.ok("sync", "setup", server.url)
    #expect(setup.stdout.contains("sent \(sessions) session"), "\(setup)")
    let b = Device(server)
    let join = b.ok("sync", "join", server.url)
    #expect(join.stdout.contains("received \(sessions) session"), "\(join)")
    return (server, a, b, ids)
  }

  /// Edits of different fields on two devices both survive, and status follows the merge:
  /// the dose set on one and the reflection written on the other make one complete session.
  @Test(needsServer, arguments: [true, false])
  func differentFieldsBothSurvive(aFirst: Bool) throws {
    // Given a journal on two devices
    let (_, a, b, ids) = try Self.pair("fields_\(aFirst)")
    #expect(a.export() == b.export())
    // When each changes a different field of the same session, offline, then both sync
    a.ok("edit", ids[0], "--dose", "DOSE-FROM-A")
    b.ok("reflect", ids[0], "--reflection", "REFLECTION-FROM-B", "--mood-after", "8")
    b.ok("edit", ids[1], "--intention", "INTENTION-FROM-B")
    let (first, second) = aFirst ? (a, b) : (b, a)
    first.ok("sync")
    second.ok("sync")
    first.ok("sync")
    // Then both hold both changes, the session is complete, and they agree on everything
    let exported = a.export()
    #expect(exported == b.export())
    #expect(exported.contains("DOSE-FROM-A") && exported.contains("REFLECTION-FROM-B"))
    #expect(exported.contains("INTENTION-FROM-B"))
    #expect(exported.contains(#""status" : "complete""#))
    #expect(a.ok("sync").stdout == "up to date\n")
  }

  /// The same text written on two devices at once: one is shown, the other kept beside it on
  /// both, never dropped; resolving on one device reaches the other.
  @Test(needsServer, arguments: [true, false])
  func sameTextKeptThenResolved(aFirst: Bool) throws {
    // Given a journal on two devices
    let (_, a, b, ids) = try Self.pair("same_\(aFirst)")
    // When both write the reflection of one session before syncing
    a.ok("reflect", ids[0], "--reflection", "WORDS-OF-A")
    b.ok("reflect", ids[0], "--reflection", "WORDS-OF-B")
    let (first, second) = aFirst ? (a, b) : (b, a)
    first.ok("sync")
    let meeting = second.ok("sync")
    first.ok("sync")
    // Then both devices show both texts, the same one shown and the other kept
    #expect(meeting.stdout.contains("holds a text another device wrote at the same time"))
    let shownA = a.ok("show", ids[0]).stdout
    let shownB = b.ok("show", ids[0]).stdout
    #expect(shownA == shownB)
    #expect(shownA.contains("WORDS-OF-A") && shownA.contains("WORDS-OF-B"))
    #expect(shownA.contains("Also written on another device at the same time"))
    #expect(a.export() == b.export())
    // And `sync status` names it when the key is at hand without asking
    // (asked again while the agent, given 2 s to answer, is slow under load)
    a.ok("unlock")
    let named = eventually(timeout: 30) {
      a.run("sync", "status", extra: ["JOURNAL_PASSPHRASE_FILE": ""]).stdout.contains(
        "texts kept from another device: 1 session (\(ids[0]))")
    }
    a.ok("lock")
    #expect(named)
    // And an export carries the kept text, which an import into another journal keeps
    let exported = a.export()
    #expect(exported.contains(#""conflicts" : ["#), "\(exported)")
    let elsewhere = Device(nil)
    _ = elsewhere.initialise(sessions: 0)
    let file = elsewhere.home.write("export.json", exported)
    elsewhere.ok("import", file)
    #expect(elsewhere.ok("show", ids[0]).stdout.contains("Also written on another device"))
    // And the independent reader, written from SECURITY.md, checks the ledger over what
    // sync agreed and reads the kept text (never skipped under CI)
    #expect(IndependentReader.available || !Prerequisites.areRequired, "PyNaCl is missing")
    if IndependentReader.available {
      let read = try a.independentRead()
      #expect(read.status == 0, "\(read.stderr)")
      #expect(read.stdout.contains(#""conflicts""#) && read.stdout.contains("WORDS-OF-B"))
    }
    // When one device keeps both, and both sync
    b.ok("resolve", ids[0], "reflection", "--keep", "both")
    b.ok("sync")
    a.ok("sync")
    // Then the conflict is gone on both and the reflection holds both texts
    let resolved = a.ok("show", ids[0]).stdout
    #expect(!resolved.contains("Also written on another device"))
    #expect(resolved.contains("WORDS-OF-A") && resolved.contains("WORDS-OF-B"))
    #expect(resolved == b.ok("show", ids[0]).stdout)
    #expect(a.run("resolve", ids[0], "reflection", "--keep", "shown").status == 6)
  }

  /// Three devices editing the same and different fields, syncing in turn in every order,
  /// agree at the end; a device that joins later gets exactly the same journal.
  @Test(needsServer, arguments: ["abc", "acb", "bac", "bca", "cab", "cba"])
  func threeDevicesConverge(order: String) throws {
    // Given three devices
    let (server, a, b, ids) = try Self.pair("three_\(order)", sessions: 3)
    let c = Device(server)
    c.ok("sync", "join", server.url)
    // When each edits, some of them the same field, without syncing in between
    a.ok("edit", ids[0], "--intention", "A-INTENTION")
    b.ok("edit", ids[0], "--intention", "B-INTENTION")
    c.ok("edit", ids[0], "--dose", "C-DOSE")
    c.ok("reflect", ids[1], "--reflection", "C-REFLECTION")
    a.ok("close", ids[2])
    b.ok("new", "--intention", "NEW-ON-B", "--mood-before", "6", "--date", "2026-11-21 10:00")
    let devices = ["a": a, "b": b, "c": c]
    for _ in 0..<2 {
      for name in order { devices[String(name)]?.ok("sync") }
    }
    // Then all three hold the same journal, with both intentions on each
    let exported = a.export()
    #expect(exported == b.export())
    #expect(exported == c.export())
    for text in ["C-DOSE", "C-REFLECTION", "NEW-ON-B", #""status" : "closed""#] {
      #expect(exported.contains(text), "\(text)")
    }
    let shown = a.ok("show", ids[0]).stdout
    #expect(shown == b.ok("show", ids[0]).stdout && shown == c.ok("show", ids[0]).stdout)
    #expect(shown.contains("A-INTENTION") && shown.contains("B-INTENTION"))
    // And a fourth device joining now gets the same
    let d = Device(server)
    d.ok("sync", "join", server.url)
    #expect(d.export() == exported)
  }

  /// A deletion reaches the server only once its undo window has closed, then removes the
  /// session everywhere, and the server's row with it; an edit made elsewhere does not bring
  /// it back.
  @Test(needsServer) func deletionAfterTheUndoWindow() throws {
    // Given a journal on two devices
    let (server, a, b, ids) = try Self.pair("delete")
    #expect(try server.count("SELECT count(*) FROM journal_row") == 2)
    // When one deletes a session, and syncs within its undo window
    let deleted = "2026-11-24T00:00:00Z"
    a.ok("delete", ids[0], "--yes", extra: ["JOURNAL_DEBUG_NOW": deleted])
    let within = a.ok("sync", extra: ["JOURNAL_DEBUG_NOW": "2026-11-24T00:00:05Z"])
    // Then nothing of it is sent yet, and an undo still brings it back whole
    #expect(within.stdout == "up to date\n", "\(within)")
    #expect(try server.count("SELECT count(*) FROM journal_row") == 2)
    // When the other device edits it meanwhile, and the window closes
    b.ok("edit", ids[0], "--dose", "EDITED-WHILE-DELETED")
    b.ok("sync")
    let after = a.ok("sync")
    #expect(after.stdout.contains("sent 1 deletion"), "\(after)")
    b.ok("edit", ids[0], "--music", "UNSENT-WHEN-DELETED")
    let told = b.ok("sync")
    // Then the session is gone on both, and from the server; the device whose unsent change
    // went with it says so
    #expect(told.stdout.contains("removed 1 session"), "\(told)")
    #expect(told.stdout.contains("had not been sent and went with it"), "\(told)")
    #expect(a.export() == b.export())
    #expect(!a.export().contains(ids[0]))
    #expect(b.run("show", ids[0]).status == 6)
    #expect(try server.count("SELECT count(*) FROM journal_row") == 1)
  }

  /// `passwd` on one device: the other takes the new header at its next sync, and its next
  /// unlock asks for the new passphrase; a new key is refused while the journal syncs.
  @Test(needsServer) func passphraseChangeReachesTheOtherDevice() throws {
    // Given a journal on two devices
    let (_, a, b, _) = try Self.pair("passwd", sessions: 1)
    let newFile = a.home.write("new", "another calm passphrase\n")
    // When one device changes the passphrase, it says the others still open with the old one
    let changed = a.ok("passwd", "--new-passphrase-file", newFile)
    #expect(
      changed.stderr.contains(
        #"the next "journal sync" sends it; each other device takes it at its own next sync, "#
          + "and opens with the old one until then"),
      "\(changed)")
    // And when it syncs, that it was sent, not that it opens the journal everywhere
    let sent = a.ok("sync", extra: ["JOURNAL_PASSPHRASE_FILE": newFile])
    #expect(
      sent.stdout.contains(
        "the new passphrase was sent: each other device takes it at its next sync, "
          + "and opens with the old one until then"),
      "\(sent)")
    #expect(b.run("list", extra: ["JOURNAL_PASSPHRASE_FILE": newFile]).status == 4)
    // Then the other device still syncs with the key it has, and learns of it
    let learnt = b.ok("sync")
    #expect(learnt.stdout.contains("the passphrase was changed on another device"), "\(learnt)")
    // And its next unlock takes the new passphrase only
    #expect(b.run("list").status == 4)
    #expect(b.run("list", extra: ["JOURNAL_PASSPHRASE_FILE": newFile]).status == 0)
  }

  /// A sync cut anywhere loses nothing and duplicates nothing: the server's connection
  /// killed in the middle of a push, and the client killed after the server took its push
  /// and after it read a pull, each followed by a retry.
  @Test(needsServer) func cutSyncsLoseNothing() throws {
    // Given a journal on two devices, with changes waiting on both
    let (server, a, b, ids) = try Self.pair("cut")
    a.ok("edit", ids[0], "--dose", "AFTER-CUTS")
    a.ok("new", "--intention", "NEW-AFTER-CUTS", "--mood-before", "4", "--date", "2026-11-22 09:00")
    // When the server drops the connection in the middle of the push
    try server.tables.executeScript(
      """
      CREATE FUNCTION cut() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN PERFORM pg_terminate_backend(pg_backend_pid()); RETURN NEW; END $$;
      CREATE TRIGGER cut BEFORE INSERT ON journal_link FOR EACH ROW EXECUTE FUNCTION cut();
      """)
    let cut = a.run("sync")
    #expect(cut.status == 13, "\(cut)")
    #expect(cut.stderr.hasPrefix("journal: error: the connection to the sync server was cut"))
    #expect(cut.stderr.contains("nothing here was lost"))
    #expect(try server.count("SELECT count(*) FROM journal_link") == 1)
    try server.tables.executeScript("DROP TRIGGER cut ON journal_link")
    // And the client is killed right after the server took its push
    let killed = a.run("sync", extra: ["JOURNAL_DEBUG_KILL_AT": "sync-after-push"])
    #expect(killed.status != 0)
    #expect(try server.count("SELECT count(*) FROM journal_link") == 2)
    // And the other device is killed after writing the sessions it read, before writing
    // how far it read
    b.ok("edit", ids[1], "--dose", "B-DURING-CUTS")
    let killedPull = b.run("sync", extra: ["JOURNAL_DEBUG_KILL_AT": "sync-pulled"])
    #expect(killedPull.status != 0)
    // Then plain retries bring both to the same journal, each session once on the server
    a.ok("sync")
    b.ok("sync")
    a.ok("sync")
    let exported = a.export()
    #expect(exported == b.export())
    for text in ["AFTER-CUTS", "NEW-AFTER-CUTS", "B-DURING-CUTS"] {
      #expect(exported.contains(text), "\(text)")
    }
    #expect(try server.count("SELECT count(*) FROM journal_row") == 3)
    #expect(a.ok("sync").stdout == "up to date\n")
  }

  /// Another journal changing a session while a sync merges it: the sync writes nothing
  /// over it, merges again, and the edit is kept and sent.
  @Test(needsServer) func editDuringASync() throws {
    // Given a journal on two devices, and a change from the second waiting on the server
    let (_, a, b, ids) = try Self.pair("during")
    b.ok("edit", ids[0], "--dose", "DOSE-FROM-B")
    b.ok("sync")
    // When the first device's sync has merged it and, before writing, the person reflects
    let pause = a.home.file("pause")
    let syncing = Spawned(
      arguments: [CLI.binary, "sync"],
      environment: a.cli.environment.merging([
        "JOURNAL_DEBUG_PAUSE_AT": "sync-merged", "JOURNAL_DEBUG_PAUSE_FILE": pause,
      ]) { $1 }, terminal: false)
    syncing.closeInput()
    #expect(eventually(timeout: 60) { FileManager.default.fileExists(atPath: pause + ".paused") })
    a.ok("reflect", ids[0], "--reflection", "WRITTEN-DURING-THE-SYNC")
    _ = a.home.write("pause", "")
    let synced = syncing.wait()
    // Then the sync ends well, and both the edit and the reflection stand on both devices
    #expect(synced.status == 0, "\(synced)")
    b.ok("sync")
    let exported = a.export()
    #expect(exported == b.export())
    #expect(exported.contains("DOSE-FROM-B") && exported.contains("WRITTEN-DURING-THE-SYNC"))
  }

  /// What sync agreed is part of the ledger: a deleted agreement (a deletion that would then
  /// never be sent) or the sync state moved back is refused like any other tampering.
  @Test(needsServer, arguments: ["DELETE FROM sync_row", "UPDATE sync SET seq = 0, head = NULL"])
  func syncStateIsInTheLedger(sql: String) throws {
    let (_, a, _, _) = try Self.pair("ledger_\(sql.hasPrefix("DELETE") ? "row" : "seq")")
    let listed = a.run("list")
    #expect(listed.status == 0, "\(listed)")
    try Device.tamper(a.vaultPath, sql)
    let refused = a.run("list")
    #expect(refused.status == 12, "\(refused)")
    #expect(a.run("sync").status == 12)
  }

  /// A sync checks the leaves of what it sends (issue 35): a session planted to look changed
  /// here, or a deletion planted for one agreed, is refused before anything is sent, and the
  /// other device keeps the session as it was.
  @Test(
    needsServer,
    arguments: [
      "UPDATE session SET revision = revision + 1 WHERE id = '@ID@'",
      "INSERT INTO tombstone (id) VALUES ('@ID@')",
    ])
  func plantedOutboxIsRefused(sql: String) throws {
    let (_, a, b, ids) = try Self.pair("planted_\(sql.hasPrefix("UPDATE") ? "change" : "tomb")")
    a.ok("unlock")
    defer { a.run("lock") }
    let id = a.fullID(ids[0])
    if sql.hasPrefix("INSERT") {
      try Device.tamper(a.vaultPath, "DELETE FROM session WHERE id = '\(id)'")
    }
    try Device.tamper(a.vaultPath, sql.replacingOccurrences(of: "@ID@", with: id))
    let refused = a.run("sync")
    #expect(refused.status == 12, "\(refused)")
    b.ok("sync")
    #expect(b.ok("show", ids[0]).stdout.contains("intention 0"))
  }

  /// A sync reads only the sessions it moves: one removed from the file behind the ledger's
  /// back and not among them is neither sent as a deletion nor blessed by the sync's write;
  /// the next command that reads it still refuses the vault.
  @Test(needsServer) func syncDoesNotBlessWhatItDidNotRead() throws {
    let (_, a, b, ids) = try Self.pair("unread")
    a.ok("unlock")
    defer { a.run("lock") }
    try Device.tamper(a.vaultPath, "DELETE FROM session WHERE id = '\(a.fullID(ids[0]))'")
    // A change of another session is sent and taken by the other device
    a.ok("edit", ids[1], "--dose", "SENT-AFTER-THE-DELETION")
    a.ok("sync")
    b.ok("sync")
    #expect(b.ok("show", ids[1]).stdout.contains("SENT-AFTER-THE-DELETION"))
    // The deleted one was not sent as a deletion, and this vault is still refused
    #expect(b.ok("show", ids[0]).stdout.contains("intention 0"))
    #expect(a.run("list").status == 12)
    #expect(a.run("show", ids[0]).status == 12)
  }

  /// A server address edited into the vault file is refused by the vault's check, and never
  /// contacted first, even while the agent holds the key (the connection made during the
  /// check goes only to an address whose tag the key confirms).
  @Test(needsServer) func editedAddressIsNeverContacted() throws {
    let (_, a, _, _) = try Self.pair("edited")
    // A listener standing in for someone else's server, counting who connects
    let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(listener) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    #expect(bound == 0)
    #expect(listen(listener, 8) == 0)
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        getsockname(listener, $0, &length)
      }
    }
    let port = UInt16(bigEndian: address.sin_port)
    a.ok("unlock")
    defer { a.run("lock") }
    try Device.tamper(
      a.vaultPath, "UPDATE sync SET server = 'postgres://someone@127.0.0.1:\(port)/theirs'")
    let refused = a.run("sync")
    #expect(refused.status == 12, "\(refused)")
    _ = fcntl(listener, F_SETFL, O_NONBLOCK)
    let contacted = accept(listener, nil, nil)
    #expect(contacted < 0, "the edited address was contacted")
    if contacted >= 0 { close(contacted) }
  }

  /// Leaving sync and setting it up on another server (after the first was found changed):
  /// everything is sent there, and a device that had it set up again agrees.
  @Test(needsServer) func leaveAndMoveToAnotherServer() throws {
    // Given a journal on two devices, and a server that dropped a change
    let (server, a, b, ids) = try Self.pair("leave")
    a.ok("edit", ids[0], "--dose", "BEFORE-THE-MOVE")
    a.ok("sync")
    try server.tables.execute(
      "DELETE FROM journal_link WHERE seq = (SELECT max(seq) FROM journal_link)")
    #expect(b.run("sync").status == 12)
    // When both leave it and move to a new server
    let other = try TestServer("leave_new")
    let left = b.ok("sync", "leave")
    #expect(left.stderr.contains("no longer syncs here"))
    #expect(b.run("sync").status == 7)
    let moved = b.ok("sync", "setup", other.url, extra: ["PGPASSFILE": other.pgpass])
    #expect(moved.stdout.contains("sent 2 sessions"), "\(moved)")
    a.ok("sync", "leave")
    a.ok("sync", "setup", other.url, extra: ["PGPASSFILE": other.pgpass])
    b.ok("sync", extra: ["PGPASSFILE": other.pgpass])
    // Then both hold the same journal, the change that reached only one included
    #expect(a.export() == b.export())
    #expect(b.export().contains("BEFORE-THE-MOVE"))
  }

  /// Leaving on a terminal three hours after a session (issue 36): the calm line and one more
  /// question; no leaves everything as it was (still syncing, the server's copy kept), yes
  /// leaves. Without a terminal it leaves at once, as ever.
  @Test(needsServer) func leavingJustAfterASessionPauses() throws {
    // Given a journal on two devices, its session at 2026-11-10 18:00 UTC
    let (server, a, b, _) = try Self.pair("cooling", sessions: 1)
    let within = ["JOURNAL_DEBUG_NOW": "2026-11-10T21:00:00Z"]
    let line = "Your last session was 3 hours ago. This can wait until another day."
    for (flags, question) in [
      ([], "Stop syncing here now anyway? [y/N] "),
      (["--delete-server-copy"], "Stop syncing and delete the server's copy now anyway? [y/N] "),
    ] {
      // When it is asked to leave, and the answer is no
      let asked = a.cli.interactive(["sync", "leave"] + flags, extra: within)
      #expect(asked.expect(question), "\(asked.screenText)")
      #expect(asked.screenWords.contains(line), "\(asked.screenText)")
      asked.write("\r")
      let declined = asked.wait()
      // Then nothing changed
      #expect(declined.status == 130, "\(declined)")
      #expect(declined.stderr == "journal: this journal still syncs here\n", "\(declined)")
      #expect(a.run("sync", "status").status == 0)
      #expect(try server.count("SELECT count(*) FROM journal_vault") == 1)
    }
    // When the answer is yes, it leaves
    let asked = a.cli.interactive(["sync", "leave"], extra: within)
    #expect(asked.expect("Stop syncing here now anyway? [y/N] "), "\(asked.screenText)")
    asked.write("y\r")
    let left = asked.wait()
    #expect(left.status == 0, "\(left)")
    #expect(a.run("sync", "status").status == 7)
    // And a script leaves without a word, as ever
    let script = b.run("sync", "leave", extra: within)
    #expect(script.status == 0, "\(script)")
    #expect(!script.stderr.contains("Your last session"), "\(script)")
    #expect(b.run("sync", "status").status == 7)
  }

  /// Two `journal sync` at once on one device: one waits for the other; each session is
  /// sent once.
  @Test(needsServer) func twoSyncsAtOnce() throws {
    // Given a journal with many sessions set up, and more written since
    let server = try TestServer("twice")
    let a = Device(server)
    _ = a.initialise(sessions: 2)
    a.ok("sync", "setup", server.url)
    for index in 0..<8 {
      a.ok(
        "new", "--intention", "more \(index)", "--mood-before", "5", "--date",
        "2026-11-0\(index + 1) 08:00")
    }
    // When two syncs start at the same moment, each sending three sessions a push
    let running = (0..<2).map { _ in
      Spawned(
        arguments: [CLI.binary, "sync"],
        environment: a.cli.environment.merging(["JOURNAL_DEBUG_PUSH_BATCH": "3"]) { $1 },
        terminal: false)
    }
    running.forEach { $0.closeInput() }
    let results = running.map { $0.wait() }
    // Then both end well, and the server holds each session once
    for result in results {
      #expect(result.status == 0, "\(result)")
    }
    #expect(try server.count("SELECT count(*) FROM journal_row") == 10)
    // The eight new sessions went three at a time: the setup's link and three more.
    #expect(try server.count("SELECT count(*) FROM journal_link") == 4)
    // And a device joining reads them three at a time, to the same journal
    let b = Device(server)
    b.ok("sync", "join", server.url, extra: ["JOURNAL_DEBUG_PULL_BATCH": "3"])
    #expect(b.export() == a.export())
  }

  /// With background sync on, a command that writes returns at once and its change reaches
  /// the server on its own; a reflection written elsewhere clears the reminder here.
  @Test(needsServer) func backgroundSyncAndReminders() throws {
    // Given a journal on two devices, a reminder on the first, and background sync on there
    let (server, a, b, ids) = try Self.pair("background")
    a.ok("remind", ids[0], "--in", "2h")
    #expect(a.ok("reminders", "list").stdout.contains(ids[0]))
    #expect(a.ok("sync", "background", "on").stdout == "background sync is on\n")
    #expect(a.ok("sync", "status").stdout.contains("background sync: on"))
    // When the first device writes a new session
    a.ok(
      "new", "--intention", "IN-THE-BACKGROUND", "--mood-before", "6", "--date", "2026-11-23 20:00")
    // Then it reaches the server without a sync being asked for
    #expect(
      eventually(timeout: 60) { (try? server.count("SELECT count(*) FROM journal_row")) == 3 })
    // When the other device reflects on the reminded session and syncs
    b.ok("reflect", ids[0], "--reflection", "DONE-ELSEWHERE")
    b.ok("sync")
    // Then the first device's next sync completes the session there and clears the reminder
    #expect(eventually(timeout: 60) { a.run("sync").status == 0 && a.export() == b.export() })
    #expect(!a.ok("reminders", "list").stdout.contains(ids[0]))
    #expect(a.ok("sync", "background", "off").stdout == "background sync is off\n")
  }

  /// `sync status` needs no passphrase, and counts what waits to be sent.
  @Test(needsServer) func statusWithoutThePassphrase() throws {
    let (server, a, _, ids) = try Self.pair("status")
    a.ok("edit", ids[0], "--dose", "1g")
    let status = a.ok("sync", "status", extra: ["JOURNAL_PASSPHRASE_FILE": ""])
    #expect(status.stdout.contains("server: \(server.url)"))
    #expect(status.stdout.contains("waiting to be sent: 1 session"))
    #expect(!status.stdout.contains("last sync: not yet"))
    #expect(status.stdout.contains("texts kept from another device: unlock"))
  }
}

/// What needs no server: addresses refused before anything connects, and the client library
/// missing.
struct SyncRefusalTests {
  /// A password in the address is refused with where to put it, and nothing is stored.
  @Test func passwordInTheAddress() {
    let a = Device(nil)
    _ = a.initialise(sessions: 1)
    let refused = a.run("sync", "setup", "postgres://me:SECRETPW@127.0.0.1/journal")
    #expect(refused.status == 2)
    #expect(refused.stderr.contains("~/.pgpass"))
    #expect(!refused.stderr.contains("SECRETPW"))
    #expect(a.run("sync", "status").status == 7)
    let weak = a.run("sync", "setup", "postgres://me@db.example.org/journal?sslmode=require")
    #expect(weak.status == 2)
    #expect(weak.stderr.contains("verify-full"))
  }

  /// Without libpq the sync commands say what to install (exit 13); every other command,
  /// `sync status` included, works as before.
  @Test func withoutTheClientLibrary() {
    let a = Device(nil)
    let ids = a.initialise(sessions: 1)
    let hidden = ["JOURNAL_DEBUG_LIBPQ": "libpq-not-here.so.5"]
    let refused = a.run("sync", "setup", "postgres://me@127.0.0.1/journal", extra: hidden)
    #expect(refused.status == 13)
    #expect(refused.stderr.contains("libpq5"))
    #expect(a.run("list", extra: hidden).status == 0)
    #expect(a.run("show", ids[0], extra: hidden).status == 0)
    #expect(a.run("sync", extra: hidden).status == 7)
  }

  /// A server that cannot be reached: one line, exit 13, nothing changed.
  @Test func serverUnreachable() {
    let a = Device(nil)
    _ = a.initialise(sessions: 1)
    let before = a.export()
    let refused = a.run("sync", "setup", "postgres://me@127.0.0.1:1/journal")
    #expect(refused.status == 13, "\(refused)")
    #expect(refused.stderr.contains("could not be reached"))
    #expect(a.export() == before)
    #expect(a.run("sync", "status").status == 7)
  }

  /// Joining where a journal already is, or with the wrong passphrase, changes nothing.
  @Test(SyncTests.needsServer) func joinRefusals() throws {
    let (server, _, _, _) = try SyncTests.pair("joinrefusals", sessions: 1)
    let c = Device(server, passphrase: "not the journal's passphrase")
    let wrong = c.run("sync", "join", server.url)
    #expect(wrong.status == 4, "\(wrong)")
    #expect(!FileManager.default.fileExists(atPath: c.vaultPath))
    let d = Device(server)
    _ = d.initialise(sessions: 0)
    let there = d.run("sync", "join", server.url)
    #expect(there.status == 7, "\(there)")
    let other = d.run("sync", "setup", server.url)
    #expect(other.status == 7, "\(other)")
    #expect(other.stderr.contains("another journal"))
  }
}

/// A passphrase that leaked on a journal that syncs (issue 33): the path the guide gives,
/// run end to end. The server's copy, sealed under the old key, is deleted; the journal goes
/// back under a new key; the other device joins it with the new passphrase; nothing written
/// is lost, and the old passphrase opens nothing the server holds.
struct LeakedPassphraseTests {
  @Test(SyncTests.needsServer) func newKeyOnASyncingJournal() throws {
    // Given a journal on two devices, a change of the second's just sent
    let (server, a, b, ids) = try SyncTests.pair("leaked", sessions: 2)
    b.ok("edit", ids[1], "--dose", "WRITTEN-BEFORE-THE-LEAK")
    b.ok("sync")
    a.ok("sync")
    let oldHeader = try server.tables.execute("SELECT header FROM journal_vault").values
    // When every device but one leaves, and the last deletes the server's copy
    b.ok("sync", "leave")
    let deleted = a.ok("sync", "leave", "--delete-server-copy")
    #expect(deleted.stderr.contains("was deleted"), "\(deleted)")
    for table in ["journal_vault", "journal_row", "journal_link"] {
      #expect(try server.count("SELECT count(*) FROM \(table)") == 0, "\(table)")
    }
    // And it changes the key and sends the journal again under it
    let newFile = a.home.write("new", "a new passphrase after the leak\n")
    a.ok("passwd", "--new-key", "--new-passphrase-file", newFile)
    let newPassphrase = ["JOURNAL_PASSPHRASE_FILE": newFile]
    #expect(a.ok("sync", "setup", server.url, extra: newPassphrase).stdout == "sent 2 sessions\n")
    // And the other device, its old journal set aside, joins with the new passphrase
    let aside = b.vaultPath + ".old-key"
    #expect(rename(b.vaultPath, aside) == 0)
    let bNew = b.home.write("new", "a new passphrase after the leak\n")
    let joined = b.ok("sync", "join", server.url, extra: ["JOURNAL_PASSPHRASE_FILE": bNew])
    #expect(joined.stdout == "received 2 sessions\n", "\(joined)")
    // Then both hold the whole journal, the change made before the leak included
    let exported = a.run("export", "--format", "json", extra: newPassphrase).stdout
    let joinedExport = b.run("export", "--format", "json", extra: ["JOURNAL_PASSPHRASE_FILE": bNew])
    func sessions(_ text: String) -> String {
      text.split(separator: "\n").filter { !$0.contains("\"exported\"") }.joined(separator: "\n")
    }
    #expect(sessions(exported) == sessions(joinedExport.stdout))
    #expect(exported.contains("WRITTEN-BEFORE-THE-LEAK"))
    // And the server holds a new header, which the old passphrase does not open
    #expect(try server.tables.execute("SELECT header FROM journal_vault").values != oldHeader)
    let stranger = Device(server)
    #expect(stranger.run("sync", "join", server.url).status == 4)
  }
}
