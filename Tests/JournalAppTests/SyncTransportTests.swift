import Foundation
import JournalApp
import JournalCore
import JournalCrypto
import JournalPostgres
import JournalSync
import JournalTestSupport
import Testing

/// A server that is not PostgreSQL at all (an in-memory `SyncTransport`), for what a patched
/// server could do that editing tables cannot: answer the two passes of one pull differently.
struct SyncTransportTests {
  /// One vault's server state in memory, as PostgresTransport keeps it in tables.
  final class MemoryServer: SyncTransport {
    var header: [UInt8] = []
    var counter: Int64 = 0
    var links: [ServerLink] = []
    var rows: [[UInt8]: ServerRow] = [:]
    var vault: [UInt8]?
    /// What the second pass of a pull shows instead of the rows (nil: the rows).
    var secondPass: (([ServerRow]) -> [ServerRow])?

    func schemaVersion() throws(SyncError) -> Int? { PostgresSchema.version }
    let role = "memory"
    func createSchema() throws(SyncError) {}
    func upgradeSchema() throws(SyncError) -> Bool { true }
    func removeVault(_ vault: [UInt8]) throws(SyncError) -> Bool { false }
    func vaults() throws(SyncError) -> [[UInt8]] { vault.map { [$0] } ?? [] }

    func addVault(_ vault: [UInt8], header: [UInt8]) throws(SyncError) -> Bool {
      guard self.vault == nil else { return false }
      self.vault = vault
      self.header = header
      return true
    }

    func pull(
      _ vault: [UInt8], links fromSeq: Int64, rowsAfter afterSeq: Int64, passes: Int,
      begin: (ServerState) throws -> Void, rows handle: (Int, [ServerRow]) throws -> Void
    ) throws -> ServerState? {
      guard vault == self.vault else { return nil }
      let state = ServerState(
        counter: counter, header: header, links: links.filter { $0.seq >= fromSeq })
      try begin(state)
      let shown = rows.values.filter { $0.seq > afterSeq }.sorted {
        $0.id.lexicographicallyPrecedes($1.id)
      }
      for pass in 0..<passes {
        let batch = pass == 1 ? secondPass.map { $0(shown) } ?? shown : shown
        if !batch.isEmpty { try handle(pass, batch) }
      }
      return state
    }

    func push(
      _ vault: [UInt8], expecting counter: Int64, _ change: ServerChange
    ) throws(SyncError) -> Bool {
      guard counter == self.counter else { return false }
      for id in change.removed { rows[id] = nil }
      for row in change.rows { rows[row.id] = row }
      links.append(change.link)
      self.counter = change.link.seq
      if let header = change.header { self.header = header }
      return true
    }
  }

  /// What the engine is handed in these tests: the fixture's clock and random bytes.
  static func options(_ journal: JournalVault) -> SyncEngine.Options {
    SyncEngine.Options(
      now: { TestClock.reference }, random: SystemRandom(), lockPath: journal.path + ".sync-lock")
  }

  static func engine(_ journal: JournalVault, _ server: MemoryServer) -> SyncEngine {
    SyncEngine(
      storage: journal.syncStorage, keys: journal.unlockedKeys,
      transport: server, options: options(journal))
  }

  /// A journal set up on the memory server, and a second device joined to it.
  static func pair() throws -> (AppFixture, AppFixture, JournalVault, MemoryServer, [Session]) {
    let first = try AppFixture()
    let sessions = [try first.saved(), try first.saved()]
    let server = MemoryServer()
    let address = try ServerAddress("host=localhost", environment: [:])
    _ = try SyncEngine.setup(
      first.journal.syncStorage, keys: first.journal.unlockedKeys,
      server: address.given, transport: server, options: Self.options(first.journal))
    let second = try AppFixture()
    let path = second.directory.file("joined/vault.db")
    let header = try SyncEngine.serverHeader(server)
    let joined = try JournalVault.join(
      at: path, header: header, context: second.context, tries: 1, tryAgain: {}
    ) { try AppFixture.secret(AppFixture.passphrase) }
    _ = try SyncEngine.join(
      joined.syncStorage, keys: joined.unlockedKeys, server: address.given,
      transport: server, options: Self.options(joined))
    return (first, second, joined, server, sessions)
  }

  /// A second pass without the rows the first showed, or with an earlier version of one in
  /// its place, is refused: nothing of it is written, and this device stays where it was.
  @Test(arguments: ["none", "older"])
  func secondPassUnlikeTheFirst(answer: String) throws {
    // Given two devices up to date, and a change from the first the second has not read
    // (the second fixture held: its directory goes with it)
    let (first, place, second, server, sessions) = try Self.pair()
    defer { withExtendedLifetime(place) {} }
    let id = sessions[0].id
    let older = try #require(server.rows[id.bytes])
    _ = try first.journal.apply(.dose("NEW-DOSE"), to: id)
    _ = try Self.engine(first.journal, server).sync()
    // When the server shows the rows on the first pass, and something else on the second
    server.secondPass = { rows in
      answer == "none" ? [] : rows.map { $0.id == id.bytes ? older : $0 }
    }
    // Then the second device refuses, and keeps the session as it was
    #expect(throws: SyncError.self) {
      try Self.engine(second, server).sync()
    }
    #expect(try second.session(id).dose == nil)
    // And once the server answers honestly, the change comes through
    server.secondPass = nil
    _ = try Self.engine(second, server).sync()
    #expect(try second.session(id).dose == "NEW-DOSE")
  }
}
