import Glibc

/// One connection to the sync server through libpq: statements with binary parameters and
/// binary results (bytea as its bytes, bigint as 8 bytes big-endian), so that ciphertext is
/// never escaped or quoted into SQL text. Closed when it goes.
public final class PostgresConnection {
  private let library: LibPQ
  private let connection: LibPQ.Connection

  /// Connects with a libpq connection string or URL (`postgres://…`, `service=…`); the
  /// password comes from `~/.pgpass`, `PGPASSFILE` or the service file, as libpq reads them.
  /// `library` names the client library (a test may name one that is not there).
  public init(_ conninfo: String, library name: String = "libpq.so.5") throws(SyncError) {
    let library = try LibPQ.load(name)
    self.library = library
    guard let connection = conninfo.withCString({ library.connect($0) }) else {
      throw .connection(message: "out of memory")
    }
    guard library.status(connection) == LibPQ.connectionOK else {
      let message = Self.firstLine(library.errorMessage(connection))
      library.finish(connection)
      throw .connection(message: message)
    }
    self.connection = connection
    // The server's notices are never written out: a hostile server could put escape
    // sequences in them (libpq's default writes them to stderr as they come).
    _ = library.setNoticeProcessor(connection, { _, _ in }, nil)
  }

  deinit { library.finish(connection) }

  /// What a statement returned: its rows (each value its bytes, or nil for NULL) and how
  /// many rows it changed.
  public struct Rows: Sendable, Equatable {
    public let values: [[[UInt8]?]]
    public let affected: Int
  }

  /// Runs one statement with `parameters` (`$1`, `$2`… as their bytes in binary format, nil
  /// for NULL; the statement casts them, `$1::bytea`).
  @discardableResult
  public func execute(_ sql: String, _ parameters: [[UInt8]?] = []) throws(SyncError) -> Rows {
    let count = Int32(parameters.count)
    let lengths = parameters.map { Int32($0?.count ?? 0) }
    let formats = [Int32](repeating: 1, count: parameters.count)
    // The bytes stay alive and in place for the call: copied into one buffer.
    let total = parameters.reduce(0) { $0 + ($1?.count ?? 0) }
    var buffer = [CChar](repeating: 0, count: max(total, 1))
    var offsets: [Int?] = []
    var offset = 0
    for parameter in parameters {
      guard let parameter else {
        offsets.append(nil)
        continue
      }
      for (index, byte) in parameter.enumerated() {
        buffer[offset + index] = CChar(bitPattern: byte)
      }
      offsets.append(offset)
      offset += parameter.count
    }
    let result = buffer.withUnsafeBufferPointer { bytes in
      let pointers: [UnsafePointer<CChar>?] = offsets.map { start -> UnsafePointer<CChar>? in
        guard let start, let base = bytes.baseAddress else { return nil }
        return base + start
      }
      return sql.withCString { text in
        pointers.withUnsafeBufferPointer { values in
          library.execute(
            connection, text, count, nil, values.baseAddress, lengths, formats, 1)
        }
      }
    }
    return try rows(of: result)
  }

  /// Runs several statements with no parameters (a schema), in one round trip.
  public func executeScript(_ sql: String) throws(SyncError) {
    let result = sql.withCString { library.executeScript(connection, $0) }
    _ = try rows(of: result)
  }

  /// A result's rows, or the error it reports; the result is cleared.
  private func rows(of result: LibPQ.Result?) throws(SyncError) -> Rows {
    defer { library.clear(result) }
    let status = library.resultStatus(result)
    guard status == LibPQ.commandOK || status == LibPQ.tuplesOK else {
      let state = library.resultErrorField(result, LibPQ.diagnosticSQLState).map {
        String(cString: $0)
      }
      throw .statement(
        sqlState: state ?? "?????",
        message: Self.firstLine(
          library.resultErrorField(result, LibPQ.diagnosticMessage)
            ?? library.errorMessage(connection)))
    }
    var rows: [[[UInt8]?]] = []
    let fields = library.fieldCount(result)
    for row in 0..<library.rowCount(result) {
      var values: [[UInt8]?] = []
      for field in 0..<fields {
        guard library.isNull(result, row, field) == 0,
          let start = library.value(result, row, field)
        else {
          values.append(nil)
          continue
        }
        let length = Int(library.length(result, row, field))
        let bytes: [UInt8] = start.withMemoryRebound(to: UInt8.self, capacity: length) {
          Array(UnsafeBufferPointer(start: $0, count: length))
        }
        values.append(bytes)
      }
      rows.append(values)
    }
    let affected = library.affected(result).map { Int(String(cString: $0)) ?? 0 } ?? 0
    return Rows(values: rows, affected: affected)
  }

  /// The first line of a message from libpq or the server, with any control character (an
  /// escape sequence a hostile server sent, say) shown as "?".
  static func firstLine(_ text: UnsafePointer<CChar>?) -> String {
    guard let text else { return "no message" }
    let line =
      String(cString: text).split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
    let shown = String(
      String.UnicodeScalarView(
        line.unicodeScalars.map { scalar in
          scalar.properties.generalCategory == .control
            || scalar.properties.generalCategory == .format ? "?" : scalar
        }))
    return shown.isEmpty ? "no message" : shown
  }
}
