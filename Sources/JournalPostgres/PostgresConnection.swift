import Glibc
import JournalSync

/// One connection to the sync server through libpq: statements with binary parameters and
/// binary results (bytea as its bytes, bigint as 8 bytes big-endian), so that ciphertext is
/// never escaped or quoted into SQL text. Closed when it goes.
///
/// Every wait is bounded (`SyncBounds`): libpq is driven asynchronously and journal waits on
/// the socket itself, with a deadline, both while connecting and for every answer; the
/// server's own timeouts are set on the session before the first statement. A connection
/// that missed a deadline is given up: it is never used again.
///
/// The server's notices are never written out, from the first byte it sends: the notice
/// processor is installed before the connection is made (libpq's default one writes them to
/// stderr as they come, escape sequences and all). What the server says in an error is kept
/// as `ServerText`, to be shown quoted.
public final class PostgresConnection {
  private let library: LibPQ
  private let connection: LibPQ.Connection
  private let bounds: SyncBounds
  /// The session settings, not yet sent: they go with the first statement.
  private var settings: String?
  /// Set once a deadline was missed or the connection was cut: nothing more is sent.
  private var broken: SyncError?

  /// Connects with a libpq connection string or URL (`postgres://…`, `service=…`); the
  /// password comes from `~/.pgpass`, `PGPASSFILE` or the service file, as libpq reads them.
  /// `library` names the client library (a test may name one that is not there).
  public init(
    _ conninfo: String, library name: String = "libpq.so.5", bounds: SyncBounds = .standard
  ) throws(SyncError) {
    let library = try LibPQ.load(name)
    self.library = library
    self.bounds = bounds
    settings = bounds.sessionSQL
    // Keepalives first, then the address expanded (`dbname` with expand_dbname): what the
    // address itself says wins over journal's defaults.
    let pairs =
      SyncBounds.keepalives + [("fallback_application_name", "journal"), ("dbname", conninfo)]
    let started: LibPQ.Connection? = withCStrings(pairs.map(\.0)) { keywords in
      withCStrings(pairs.map(\.1)) { values in library.connectStart(keywords, values, 1) }
    }
    guard let connection = started else {
      throw .connection(.unreachable(said: ServerText("out of memory")))
    }
    // Before libpq reads anything from the server: a notice sent while connecting would
    // otherwise reach the terminal raw.
    _ = library.setNoticeProcessor(connection, { _, _ in }, nil)
    // The server's SQLSTATE in the error text, so that a refusal while connecting (which has
    // no result to ask) can be told from another.
    _ = library.setErrorVerbosity(connection, LibPQ.errorsVerbose)
    self.connection = connection
    // Thrown from here on, the connection is finished by deinit.
    try connect()
  }

  deinit { library.finish(connection) }

  /// The role this connection logged in as.
  public var role: String { library.user(connection).map { String(cString: $0) } ?? "" }

  /// The socket, for a test that checks its options.
  var socketDescriptor: Int32 { library.socket(connection) }

  /// Drives PQconnectPoll to the end, waiting on the socket at most `bounds.connect` in all.
  private func connect() throws(SyncError) {
    let deadline = Deadline(bounds.connect)
    guard library.status(connection) != LibPQ.connectionBad else { throw connectionFailure() }
    var state = LibPQ.pollingWriting
    while true {
      switch state {
      case LibPQ.pollingOK:
        _ = library.setNonBlocking(connection, 1)
        return
      case LibPQ.pollingReading:
        guard try wait(for: Int16(POLLIN), until: deadline) else {
          throw .waited(.connecting, milliseconds: bounds.connect)
        }
      case LibPQ.pollingWriting:
        guard try wait(for: Int16(POLLOUT), until: deadline) else {
          throw .waited(.connecting, milliseconds: bounds.connect)
        }
      default:
        throw connectionFailure()
      }
      state = library.connectPoll(connection)
    }
  }

  /// Why the connection failed, from what libpq knows: whether a password was needed or
  /// used, and the server's SQLSTATE in its (verbose) message.
  private func connectionFailure() -> SyncError {
    let text = library.errorMessage(connection).map { String(cString: $0) } ?? ""
    let role = library.user(connection).map { String(cString: $0) } ?? ""
    if library.needsPassword(connection) == 1 { return .connection(.noPassword(role: role)) }
    guard let (state, said) = Self.serverError(in: text) else {
      return .connection(.unreachable(said: ServerText(Self.firstLine(text))))
    }
    switch state {
    case "28P01": return .connection(.passwordRefused(role: role))
    case "28000": return .connection(.roleRefused(role: role, said: said))
    case "3D000":
      return .connection(
        .noDatabase(name: library.database(connection).map { String(cString: $0) } ?? ""))
    default: return .connection(.refused(sqlState: state, said: said))
    }
  }

  /// The last error a server sent in a verbose libpq message, `SEVERITY:  SQLSTATE: text`:
  /// its SQLSTATE and its text (to the end of that line).
  static func serverError(in text: String) -> (String, ServerText)? {
    var found: (String, ServerText)?
    for line in text.split(whereSeparator: \.isNewline) {
      var rest = Substring(line)
      while let range = rest.range(of: ":  ") {
        let after = rest[range.upperBound...]
        let code = after.prefix(5)
        if code.count == 5, code.allSatisfy({ $0.isASCII && ($0.isUppercase || $0.isNumber) }),
          after.dropFirst(5).hasPrefix(": ")
        {
          found = (String(code), ServerText(String(after.dropFirst(7))))
          break
        }
        rest = after
      }
    }
    return found
  }

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
    if let settings {
      self.settings = nil
      try executeScript(settings)
    }
    try usable()
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
    let sent = buffer.withUnsafeBufferPointer { bytes in
      let pointers: [UnsafePointer<CChar>?] = offsets.map { start -> UnsafePointer<CChar>? in
        guard let start, let base = bytes.baseAddress else { return nil }
        return base + start
      }
      return sql.withCString { text in
        pointers.withUnsafeBufferPointer { values in
          library.sendQueryParams(
            connection, text, count, nil, values.baseAddress, lengths, formats, 1)
        }
      }
    }
    return try answer(sent: sent == 1)
  }

  /// Runs several statements with no parameters (a schema), in one round trip.
  public func executeScript(_ sql: String) throws(SyncError) {
    try usable()
    let script = (settings ?? "") + sql
    settings = nil
    let sent = script.withCString { library.sendQuery(connection, $0) }
    _ = try answer(sent: sent == 1)
  }

  /// Throws what made the connection unusable, if anything did.
  private func usable() throws(SyncError) {
    if let broken { throw broken }
  }

  /// Sends what was queued and waits for every result of it, within `bounds.answer`: the
  /// rows of the last, or the first error.
  private func answer(sent: Bool) throws(SyncError) -> Rows {
    do throws(SyncError) {
      guard sent else { throw cut() }
      let deadline = Deadline(bounds.answer)
      // Nonblocking: a large push goes out as the server takes it, within the deadline.
      while true {
        let flushed = library.flush(connection)
        if flushed == 0 { break }
        guard flushed == 1 else { throw cut() }
        guard try wait(for: Int16(POLLOUT | POLLIN), until: deadline) else {
          throw .waited(.answer, milliseconds: bounds.answer)
        }
        guard library.consumeInput(connection) == 1 else { throw cut() }
      }
      var rows: Rows?
      var failure: SyncError?
      while true {
        while library.isBusy(connection) == 1 {
          guard try wait(for: Int16(POLLIN), until: deadline) else {
            throw .waited(.answer, milliseconds: bounds.answer)
          }
          guard library.consumeInput(connection) == 1 else { throw cut() }
        }
        guard let result = library.getResult(connection) else { break }
        defer { library.clear(result) }
        let status = library.resultStatus(result)
        if status == LibPQ.commandOK || status == LibPQ.tuplesOK {
          rows = self.rows(of: result)
        } else if failure == nil {
          failure = error(of: result)
        }
      }
      if let failure { throw failure }
      return rows ?? Rows(values: [], affected: 0)
    } catch {
      switch error {
      case .waited(.answer, _), .cut, .waited(.quietHere, _): broken = error
      default: break
      }
      throw error
    }
  }

  /// The error a result reports, by its SQLSTATE: the waits the session's settings bound, a
  /// connection the server ended, or a statement it refused.
  private func error(of result: LibPQ.Result) -> SyncError {
    var state = library.resultErrorField(result, LibPQ.diagnosticSQLState).map {
      String(cString: $0)
    }
    var said = ServerText(
      Self.firstLine(
        library.resultErrorField(result, LibPQ.diagnosticMessage).map { String(cString: $0) }
          ?? library.errorMessage(connection).map { String(cString: $0) } ?? ""))
    // A server that ends the connection sends its reason first; libpq then reports the
    // connection lost, with that reason (and its SQLSTATE) in its own message only.
    if state == nil,
      let (code, text) = Self.serverError(
        in: library.errorMessage(connection).map { String(cString: $0) } ?? "")
    {
      state = code
      said = text
    }
    guard let state else {
      // libpq's own error: the connection went, or something libpq refused itself.
      return library.status(connection) == LibPQ.connectionBad
        ? .cut(said: said) : .statement(sqlState: "?????", said: said)
    }
    return error(state, said: said)
  }

  /// The error a SQLSTATE stands for: the waits the session's settings bound, a connection
  /// the server ended, or a statement it refused.
  private func error(_ state: String, said: ServerText) -> SyncError {
    switch state {
    case "55P03": .waited(.lock, milliseconds: bounds.lock)
    case "57014": .waited(.statement, milliseconds: bounds.statement)
    case "25P03": .waited(.quietHere, milliseconds: bounds.idle)
    case "57P01", "57P02", "57P03": .cut(said: said)
    case let state where state.hasPrefix("08"): .cut(said: said)
    default: .statement(sqlState: state, said: said)
    }
  }

  /// The connection as cut: what libpq said of it, or the reason the server gave first.
  private func cut() -> SyncError {
    let text = library.errorMessage(connection).map { String(cString: $0) } ?? ""
    if let (state, said) = Self.serverError(in: text) { return error(state, said: said) }
    return .cut(said: ServerText(Self.firstLine(text)))
  }

  /// A result's rows.
  private func rows(of result: LibPQ.Result) -> Rows {
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

  /// Waits until the socket is ready for `events` or the deadline passes (false).
  private func wait(for events: Int16, until deadline: Deadline) throws(SyncError) -> Bool {
    while true {
      let remaining = deadline.remaining
      guard remaining > 0 else { return false }
      var descriptor = pollfd(fd: library.socket(connection), events: events, revents: 0)
      guard descriptor.fd >= 0 else { throw cut() }
      let ready = poll(&descriptor, 1, Int32(min(remaining, Int(Int32.max))))
      if ready > 0 { return true }
      // A wait with a deadline: after a signal (EINTR), poll again for what is left of it.
      if ready < 0 && errno != EINTR { throw cut() }
    }
  }

  /// The first line of a message, or "no message".
  static func firstLine(_ text: String) -> String {
    let line = text.split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
    return line.isEmpty ? "no message" : line
  }
}

/// A moment on the monotonic clock, `milliseconds` from when it was made.
struct Deadline {
  private let end: Int

  init(_ milliseconds: Int) { end = Self.now() + milliseconds }

  /// Milliseconds left (0 or less: passed).
  var remaining: Int { end - Self.now() }

  static func now() -> Int {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return time.tv_sec * 1000 + time.tv_nsec / 1_000_000
  }
}

/// Calls `body` with the strings as a C array of pointers ending in NULL, valid for the call.
private func withCStrings<R>(
  _ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> R
) -> R {
  let copies: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) }
  defer { copies.forEach { free($0) } }
  let pointers: [UnsafePointer<CChar>?] = copies.map { $0.map { UnsafePointer($0) } } + [nil]
  return body(pointers)
}
