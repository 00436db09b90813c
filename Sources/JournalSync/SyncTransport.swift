/// What sync needs of a server, whatever it is: the rest of journal sees only this (libpq's
/// types stay in this module). Everything handed over is ciphertext or authenticated
/// bytes made on the devices; a transport adds no meaning to them.
public protocol SyncTransport: AnyObject {
  /// The role the server knows this device as (for messages).
  var role: String { get }
  /// Whether the server has journal's schema, and its version (nil: none yet).
  func schemaVersion() throws(SyncError) -> Int?
  /// Creates the schema (the backend's schema).
  func createSchema() throws(SyncError)
  /// Brings a schema of an earlier version up to this one (the backend's upgrade); false when
  /// this role may not (it does not own the tables: their admin does it).
  func upgradeSchema() throws(SyncError) -> Bool
  /// The vaults this person's role holds on the server: their ids.
  func vaults() throws(SyncError) -> [[UInt8]]
  /// Adds a vault with its key header and no changes; false when it is there already.
  func addVault(_ vault: [UInt8], header: [UInt8]) throws(SyncError) -> Bool
  /// Deletes the vault with every row and link of it; false when the server held none.
  func removeVault(_ vault: [UInt8]) throws(SyncError) -> Bool
  /// Reads the vault's state and every link from `fromSeq` on (handed to `begin` first),
  /// then hands over every row written after `afterSeq` in batches, `passes` times over (the
  /// pass from 0), all as of one moment (one snapshot): a reader can check every row before
  /// it keeps any, holding only a batch at a time. Nil when the server holds no such vault.
  func pull(
    _ vault: [UInt8], links fromSeq: Int64, rowsAfter afterSeq: Int64, passes: Int,
    begin: (ServerState) throws -> Void, rows: (_ pass: Int, [ServerRow]) throws -> Void
  ) throws -> ServerState?
  /// Writes one change if the vault's counter is still `counter` (no other device wrote
  /// meanwhile), all or nothing; false, having written nothing, when it moved.
  func push(_ vault: [UInt8], expecting counter: Int64, _ change: ServerChange)
    throws(SyncError) -> Bool
}

/// One link of a vault's chain of changes as the server keeps it.
public struct ServerLink: Sendable, Equatable {
  public let seq: Int64
  public let device: [UInt8]
  public let entry: [UInt8]
  public let tag: [UInt8]

  public init(seq: Int64, device: [UInt8], entry: [UInt8], tag: [UInt8]) {
    self.seq = seq
    self.device = device
    self.entry = entry
    self.tag = tag
  }
}

/// One session as the server keeps it: its latest version, sealed.
public struct ServerRow: Sendable, Equatable {
  public let id: [UInt8]
  public let seq: Int64
  public let body: [UInt8]

  public init(id: [UInt8], seq: Int64, body: [UInt8]) {
    self.id = id
    self.seq = seq
    self.body = body
  }
}

/// What a pull read besides the rows.
public struct ServerState: Sendable, Equatable {
  public let counter: Int64
  public let header: [UInt8]
  public let links: [ServerLink]
  /// The server's schema version, read with the rest.
  public let schema: Int

  public init(
    counter: Int64, header: [UInt8], links: [ServerLink], schema: Int = ServerSchema.version
  ) {
    self.counter = counter
    self.header = header
    self.links = links
    self.schema = schema
  }
}

/// One change a device pushes: its link, the rows it writes, the rows it removes, and the
/// key header when it changed.
public struct ServerChange: Sendable {
  public let link: ServerLink
  public let rows: [ServerRow]
  public let removed: [[UInt8]]
  public let header: [UInt8]?

  public init(link: ServerLink, rows: [ServerRow], removed: [[UInt8]], header: [UInt8]?) {
    self.link = link
    self.rows = rows
    self.removed = removed
    self.header = header
  }
}

/// The version of the server's tables this code creates and reads. The tables are the
/// backend's own (JournalPostgres's `PostgresSchema`); the engine compares a server's version
/// with this one.
public enum ServerSchema {
  public static let version = 3
}
