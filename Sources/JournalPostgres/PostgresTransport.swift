import JournalCore
import JournalSync

/// `SyncTransport` over PostgreSQL with libpq (PostgresSchema's tables).
public final class PostgresTransport: SyncTransport {
  private let connection: PostgresConnection
  /// The server's schema version, as last read: a push of version 2 or later goes through
  /// `journal_push`; one of version 1 (a server not brought up to date yet) writes itself.
  private var schema: Int?
  /// Rows are read this many at a time (by id), so that a join of a large journal never
  /// holds more than a batch of them.
  private let batch: Int

  /// Connects with a connection string or URL already checked by `ServerAddress`; every
  /// wait is bounded by `bounds`.
  public init(
    _ conninfo: String, library: String = "libpq.so.5", batch: Int = 500,
    bounds: SyncBounds = .standard
  ) throws(SyncError) {
    connection = try PostgresConnection(conninfo, library: library, bounds: bounds)
    self.batch = max(batch, 1)
  }

  public var role: String { connection.role }

  public func schemaVersion() throws(SyncError) -> Int? {
    let exists = try connection.execute("SELECT to_regclass('journal_schema') IS NOT NULL")
    guard exists.values.first?.first??.first == 1 else { return nil }
    let rows = try connection.execute("SELECT version FROM journal_schema")
    guard let bytes = rows.values.first?.first ?? nil else { return nil }
    schema = Int(Self.integer(bytes))
    return schema
  }

  public func createSchema() throws(SyncError) {
    // PostgreSQL's notices ("policy … does not exist, skipping") are not for the person.
    try connection.executeScript("SET client_min_messages TO warning")
    try connection.executeScript(PostgresSchema.sql)
    schema = PostgresSchema.version
  }

  public func upgradeSchema() throws(SyncError) -> Bool {
    try connection.executeScript("SET client_min_messages TO warning")
    do {
      try connection.executeScript(PostgresSchema.upgrade)
    } catch {
      // The transaction the script began is left aborted: ended here.
      try? connection.executeScript("ROLLBACK")
      // Not the tables' owner: their admin brings them up to date.
      if case .statement("42501", _) = error { return false }
      throw error
    }
    schema = PostgresSchema.version
    return true
  }

  public func vaults() throws(SyncError) -> [[UInt8]] {
    try connection.execute("SELECT vault_id FROM journal_vault ORDER BY vault_id").values
      .compactMap { $0.first ?? nil }
  }

  public func addVault(_ vault: [UInt8], header: [UInt8]) throws(SyncError) -> Bool {
    if (schema ?? 0) >= 2 {
      let added = try connection.execute(
        "SELECT journal_add_vault($1::bytea, $2::bytea)", [vault, header])
      return added.values.first?.first??.first == 1
    }
    return try connection.execute(
      """
      INSERT INTO journal_vault (vault_id, header) VALUES ($1::bytea, $2::bytea)
      ON CONFLICT DO NOTHING
      """, [vault, header]
    ).affected == 1
  }

  public func removeVault(_ vault: [UInt8]) throws(SyncError) -> Bool {
    if (schema ?? 0) >= 2 {
      let removed = try connection.execute("SELECT journal_remove_vault($1::bytea)", [vault])
      return removed.values.first?.first??.first == 1
    }
    return try connection.execute(
      "DELETE FROM journal_vault WHERE vault_id = $1::bytea", [vault]
    ).affected == 1
  }

  public func pull(
    _ vault: [UInt8], links fromSeq: Int64, rowsAfter afterSeq: Int64, passes: Int,
    begin: (ServerState) throws -> Void, rows: (_ pass: Int, [ServerRow]) throws -> Void
  ) throws -> ServerState? {
    try connection.executeScript("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
    var finished = false
    defer { if !finished { try? connection.executeScript("ROLLBACK") } }
    // The schema's version with the vault's state, in the same round trip.
    let state = try connection.execute(
      """
      SELECT counter, header, (SELECT version FROM journal_schema)
      FROM journal_vault WHERE vault_id = $1::bytea
      """, [vault])
    guard let first = state.values.first, let counter = first[0], let header = first[1] else {
      return nil
    }
    schema = first[2].map { Int(Self.integer($0)) }
    let links = try connection.execute(
      """
      SELECT seq, device, entry, tag FROM journal_link
      WHERE vault_id = $1::bytea AND seq >= $2::bigint ORDER BY seq
      """, [vault, Self.bytes(fromSeq)]
    ).values.map { row in
      ServerLink(
        seq: Self.integer(row[0] ?? []), device: row[1] ?? [], entry: row[2] ?? [],
        tag: row[3] ?? [])
    }
    let read = ServerState(
      counter: Self.integer(counter), header: header, links: links,
      schema: schema ?? PostgresSchema.version)
    try begin(read)
    for pass in 0..<passes {
      try rowsOnce(vault, after: afterSeq) { try rows(pass, $0) }
    }
    try connection.executeScript("COMMIT")
    finished = true
    return read
  }

  /// Every row written after `afterSeq`, a batch at a time.
  private func rowsOnce(
    _ vault: [UInt8], after afterSeq: Int64, _ handle: ([ServerRow]) throws -> Void
  ) throws {
    var after: [UInt8] = []
    while true {
      let rows = try connection.execute(
        """
        SELECT row_id, seq, body FROM journal_row
        WHERE vault_id = $1::bytea AND seq > $2::bigint AND row_id > $3::bytea
        ORDER BY row_id LIMIT \(batch)
        """, [vault, Self.bytes(afterSeq), after]
      ).values.map { row in
        ServerRow(id: row[0] ?? [], seq: Self.integer(row[1] ?? []), body: row[2] ?? [])
      }
      guard let last = rows.last else { break }
      try handle(rows)
      after = last.id
      if rows.count < self.batch { break }
    }
  }

  public func push(
    _ vault: [UInt8], expecting counter: Int64, _ change: ServerChange
  ) throws(SyncError) -> Bool {
    guard (schema ?? 0) >= 2 else { return try pushWriting(vault, expecting: counter, change) }
    // One statement: the journal's row is locked only while it runs.
    let link = change.link
    let pushed = try connection.execute(
      """
      SELECT journal_push($1::bytea, $2::bigint, $3::bigint, $4::bytea, $5::bytea, $6::bytea,
        $7::bytea, $8::bytea[], $9::bytea[], $10::bytea[])
      """,
      [
        vault, Self.bytes(counter), Self.bytes(link.seq), link.device, link.entry, link.tag,
        change.header, Self.array(change.removed), Self.array(change.rows.map(\.id)),
        Self.array(change.rows.map(\.body)),
      ])
    return pushed.values.first?.first??.first == 1
  }

  /// A push to a server of schema version 1, which lets the role write to the tables itself.
  private func pushWriting(
    _ vault: [UInt8], expecting counter: Int64, _ change: ServerChange
  ) throws(SyncError) -> Bool {
    try connection.executeScript("BEGIN")
    var finished = false
    defer { if !finished { try? connection.executeScript("ROLLBACK") } }
    let current = try connection.execute(
      "SELECT counter FROM journal_vault WHERE vault_id = $1::bytea FOR UPDATE", [vault])
    guard let value = current.values.first?.first ?? nil, Self.integer(value) == counter else {
      return false
    }
    for id in change.removed {
      try connection.execute(
        "DELETE FROM journal_row WHERE vault_id = $1::bytea AND row_id = $2::bytea", [vault, id])
    }
    // Many rows to a statement: a round trip each would be most of a first setup.
    var start = 0
    while start < change.rows.count {
      let slice = change.rows[start..<min(start + 200, change.rows.count)]
      var values: [String] = []
      var parameters: [[UInt8]?] = [vault]
      for row in slice {
        let n = parameters.count
        values.append("($1::bytea, $\(n + 1)::bytea, $\(n + 2)::bigint, $\(n + 3)::bytea)")
        parameters += [row.id, Self.bytes(row.seq), row.body]
      }
      try connection.execute(
        """
        INSERT INTO journal_row (vault_id, row_id, seq, body) VALUES \(values.joined(separator: ", "))
        ON CONFLICT (owner, vault_id, row_id) DO UPDATE SET seq = excluded.seq, body = excluded.body
        """, parameters)
      start += slice.count
    }
    let link = change.link
    try connection.execute(
      """
      INSERT INTO journal_link (vault_id, seq, device, entry, tag)
      VALUES ($1::bytea, $2::bigint, $3::bytea, $4::bytea, $5::bytea)
      """, [vault, Self.bytes(link.seq), link.device, link.entry, link.tag])
    try connection.execute(
      """
      UPDATE journal_vault SET counter = $2::bigint, header = coalesce($3::bytea, header)
      WHERE vault_id = $1::bytea
      """, [vault, Self.bytes(link.seq), change.header])
    try connection.executeScript("COMMIT")
    finished = true
    return true
  }

  /// A bytea[] in PostgreSQL's binary format: dimensions, no NULLs, the element type (bytea,
  /// 17), the length and lower bound (1), then each value's length and bytes; all integers 4
  /// bytes, big-endian.
  static func array(_ values: [[UInt8]]) -> [UInt8] {
    var out: [UInt8] = []
    guard !values.isEmpty else {
      for header: Int32 in [0, 0, 17] { out.append(bigEndian: header) }
      return out
    }
    for header in [1, 0, 17, Int32(values.count), 1] { out.append(bigEndian: header) }
    for value in values {
      out.append(bigEndian: Int32(value.count))
      out += value
    }
    return out
  }

  /// A bigint in PostgreSQL's binary format: 8 bytes, big-endian.
  static func bytes(_ value: Int64) -> [UInt8] {
    var out: [UInt8] = []
    out.append(bigEndian: value)
    return out
  }

  /// A binary integer of 2, 4 or 8 bytes, big-endian, or a boolean's one byte.
  static func integer(_ bytes: [UInt8]) -> Int64 {
    bytes.withUnsafeBytes { raw in
      var reader = ByteReader(raw)
      return switch bytes.count {
      case 1: Int64(Int8(bitPattern: (try? reader.byte()) ?? 0))
      case 2: Int64((try? reader.bigEndian(Int16.self)) ?? 0)
      case 4: Int64((try? reader.bigEndian(Int32.self)) ?? 0)
      case 8: (try? reader.bigEndian(Int64.self)) ?? 0
      default: 0
      }
    }
  }
}
