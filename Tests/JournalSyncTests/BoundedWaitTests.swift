import Foundation
import Glibc
import JournalTestSupport
import Testing

@testable import JournalPostgres
@testable import JournalSync

/// Every wait of a sync has a bound, and each ends with exit 13 and a line saying what it
/// waited for (issue 33): a server that goes silent after the handshake, one that never
/// takes the connection, another device's push holding the journal, this device gone quiet
/// inside a transaction, a stuck sync on this device. The bounds are made short through a
/// debug build's JOURNAL_DEBUG_SYNC_BOUNDS, so that no test waits out a real timeout; a
/// process that waits with no bound is ended after 30 s, and fails its test.
struct BoundedWaitTests {
  /// A journal that syncs through a proxy to the test server.
  static func throughProxy(_ name: String) throws -> (TestServer, StallingProxy, Device, String) {
    let server = try TestServer(name)
    let proxy = StallingProxy(to: server.port)
    let a = Device(server, pgpass: server.pgpass(alsoFor: proxy.port))
    let ids = a.initialise(sessions: 1)
    a.ok("sync", "setup", server.url(port: proxy.port))
    return (server, proxy, a, ids[0])
  }

  static let error = "journal: error: "

  /// A server (or something between) that takes the connection and then says nothing: the
  /// sync ends after its bound for an answer, loses nothing, and the next one goes through.
  @Test(SyncTests.needsServer) func silentAfterTheHandshake() throws {
    // Given a journal that syncs through a proxy, with a change waiting
    let (_, proxy, a, id) = try Self.throughProxy("stall")
    defer { proxy.close() }
    a.ok("edit", id, "--dose", "WAITING-TO-BE-SENT")
    let before = a.export()
    // When the proxy goes silent once the server is ready for the first statement
    proxy.set(.stallAfterHandshake)
    let stalled = a.run(
      "sync", timeout: 30, extra: ["JOURNAL_DEBUG_SYNC_BOUNDS": "answer=1500"])
    // Then the sync says what it waited for, in one line, and ends with exit 13
    #expect(stalled.status == 13, "\(stalled)")
    #expect(
      stalled.stderr
        == Self.error + "waited 1.5 s for the sync server to answer; it took the connection, "
        + "then went silent\n"
        + #"journal: hint: nothing here was lost; run "journal sync" again once the server answers"#
        + "\n")
    #expect(a.export() == before)
    // And once the server answers again, the change is sent
    proxy.set(.forward)
    #expect(a.ok("sync").stdout == "sent 1 session\n")
  }

  /// A server that takes the TCP connection and never answers it: connecting has its bound,
  /// kept by journal (libpq's connect_timeout is not, when it is driven asynchronously).
  @Test(SyncTests.needsServer) func silentWhileConnecting() throws {
    let (_, proxy, a, _) = try Self.throughProxy("silent")
    defer { proxy.close() }
    proxy.set(.silent)
    let refused = a.run(
      "sync", timeout: 30, extra: ["JOURNAL_DEBUG_SYNC_BOUNDS": "connect=1000"])
    #expect(refused.status == 13, "\(refused)")
    #expect(
      refused.stderr.hasPrefix(
        Self.error + "waited 1 s for the sync server to take the connection\n"),
      "\(refused)")
  }

  /// Another session holding the journal's row on the server (a device that vanished in the
  /// middle of its push, as an older journal could leave it): the sync waits `lock_timeout`,
  /// says so, and goes through once the lock is let go.
  @Test(SyncTests.needsServer) func anotherSessionHoldsTheJournal() throws {
    // Given a journal on the server, and another session holding its row
    let (server, a, _, ids) = try SyncTests.pair("held", sessions: 1)
    let holder = try PostgresConnection(server.adminConninfo)
    try holder.executeScript("BEGIN; SELECT counter FROM journal_vault FOR UPDATE")
    // When the device has something to send
    a.ok("edit", ids[0], "--dose", "WHILE-HELD")
    let held = a.run("sync", timeout: 30, extra: ["JOURNAL_DEBUG_SYNC_BOUNDS": "lock=1000"])
    // Then it waits its bound and says for what
    #expect(held.status == 13, "\(held)")
    #expect(
      held.stderr.hasPrefix(
        Self.error
          + "waited 1 s for another device's sync to let go of the journal on the server\n"),
      "\(held)")
    // And once the other session lets go, the change is sent
    try holder.executeScript("ROLLBACK")
    #expect(a.ok("sync").stdout == "sent 1 session\n")
  }

  /// A device gone quiet inside its transaction (a lid closed mid-sync) is let go by the
  /// server after the bound the device set on its own session, whatever the server's
  /// settings; the device, back, says what happened, and the next sync completes.
  @Test(SyncTests.needsServer) func quietDeviceIsLetGoByTheServer() throws {
    // Given a change from one device waiting on the server for the other
    let (server, a, b, ids) = try SyncTests.pair("quiet", sessions: 1)
    a.ok("edit", ids[0], "--dose", "FROM-A")
    a.ok("sync")
    // When the other device stops in the middle of its pull's transaction
    let pause = b.home.file("pause")
    let pulling = b.start(
      "sync",
      extra: [
        "JOURNAL_DEBUG_PAUSE_AT": "sync-merged", "JOURNAL_DEBUG_PAUSE_FILE": pause,
        "JOURNAL_DEBUG_SYNC_BOUNDS": "idle=1000",
      ])
    #expect(eventually(timeout: 60) { FileManager.default.fileExists(atPath: pause + ".paused") })
    // Then the server ends its session on its own
    let sessions = "SELECT count(*) FROM pg_stat_activity WHERE usename = '\(server.role)'"
    #expect(eventually(timeout: 15) { (try? server.count(sessions)) == 0 })
    // And the device, going on, says so and ends with exit 13
    _ = b.home.write("pause", "")
    let ended = pulling.wait(timeout: 30)
    #expect(ended.status == 13, "\(ended)")
    #expect(
      ended.stderr.hasPrefix(
        Self.error + "the sync server ended this sync after this device was silent for 1 s"),
      "\(ended)")
    // And the next sync brings both devices together
    b.ok("sync")
    #expect(a.export() == b.export())
  }

  /// A background sync on this device that makes no progress (stopped half way) holds the
  /// sync lock: a foreground `journal sync` says so, ends it, and takes over.
  @Test(SyncTests.needsServer) func stuckBackgroundSyncIsTakenOver() throws {
    // Given a change, and a background sync stopped before sending it
    let (server, a, _, ids) = try SyncTests.pair("takeover", sessions: 1)
    a.ok("edit", ids[0], "--dose", "TAKEN-OVER")
    let pause = a.home.file("pause")
    let background = a.start(
      "sync", "now", "--background",
      extra: ["JOURNAL_DEBUG_PAUSE_AT": "sync-before-push", "JOURNAL_DEBUG_PAUSE_FILE": pause])
    #expect(eventually(timeout: 60) { FileManager.default.fileExists(atPath: pause + ".paused") })
    // Then `sync status` shows it
    let status = a.ok("sync", "status").stdout
    #expect(
      status.contains("running here: a background sync (process \(background.pid))"), "\(status)")
    // When a foreground sync starts
    let foreground = a.run("sync", timeout: 30, extra: ["JOURNAL_DEBUG_SYNC_BOUNDS": "stuck=1000"])
    // Then it says what it found, ends the background one, and sends the change once
    #expect(foreground.status == 0, "\(foreground)")
    #expect(foreground.stdout == "sent 1 session\n")
    #expect(
      foreground.stderr.contains(
        "journal: a background sync on this device (process \(background.pid)) made no progress "
          + "for 1 second; it was stopped, and this sync takes over"),
      "\(foreground)")
    #expect(background.wait(timeout: 10).status == 128 + SIGKILL)
    #expect(try server.count("SELECT count(*) FROM journal_link") == 2)
    #expect(!a.ok("sync", "status").stdout.contains("running here"))
  }

  /// A foreground sync stopped half way (Ctrl-Z in another terminal) is a person's own
  /// process: another sync leaves it alone, and says which it is (exit 13).
  @Test(SyncTests.needsServer) func stuckForegroundSyncIsNamed() throws {
    let (_, a, _, ids) = try SyncTests.pair("stuckfg", sessions: 1)
    a.ok("edit", ids[0], "--dose", "STOPPED")
    let pause = a.home.file("pause")
    let first = a.start(
      "sync",
      extra: ["JOURNAL_DEBUG_PAUSE_AT": "sync-before-push", "JOURNAL_DEBUG_PAUSE_FILE": pause])
    #expect(eventually(timeout: 60) { FileManager.default.fileExists(atPath: pause + ".paused") })
    let second = a.run("sync", timeout: 30, extra: ["JOURNAL_DEBUG_SYNC_BOUNDS": "stuck=1000"])
    #expect(second.status == 13, "\(second)")
    #expect(
      second.stderr.contains(
        Self.error + "another journal sync on this device (process \(first.pid)) has made no "
          + "progress for 1 second"),
      "\(second)")
    // And the first, resumed, goes on to send the change
    _ = a.home.write("pause", "")
    let resumed = first.wait(timeout: 30)
    #expect(resumed.status == 0, "\(resumed)")
    #expect(resumed.stdout == "sent 1 session\n")
  }

  /// The client sets its own bounds on its session, and asks the kernel for keepalives:
  /// whatever the server's settings, a lock, a statement and a quiet transaction end.
  @Test(SyncTests.needsServer) func sessionCarriesItsBounds() throws {
    let bounds = SyncBounds(connect: 5000, lock: 1234, statement: 5678, idle: 4321, answer: 9000)
    let connection = try PostgresConnection(try #require(TestServer.admin), bounds: bounds)
    func shown(_ name: String) throws -> String {
      String(
        decoding: try #require(try connection.execute("SHOW \(name)").values.first?.first ?? nil),
        as: UTF8.self)
    }
    #expect(try shown("lock_timeout") == "1234ms")
    #expect(try shown("statement_timeout") == "5678ms")
    #expect(try shown("idle_in_transaction_session_timeout") == "4321ms")
    func option(_ level: Int32, _ name: Int32) -> Int32 {
      var value: Int32 = -1
      var length = socklen_t(MemoryLayout<Int32>.size)
      _ = getsockopt(connection.socketDescriptor, level, name, &value, &length)
      return value
    }
    #expect(option(SOL_SOCKET, SO_KEEPALIVE) == 1)
    #expect(option(Int32(IPPROTO_TCP), TCP_KEEPIDLE) == 30)
    #expect(option(Int32(IPPROTO_TCP), TCP_KEEPINTVL) == 10)
    #expect(option(Int32(IPPROTO_TCP), TCP_KEEPCNT) == 3)
  }
}
