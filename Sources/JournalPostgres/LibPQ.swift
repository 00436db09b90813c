import Glibc
import JournalSync
import Synchronization

/// libpq, PostgreSQL's own client library, loaded at run time (`dlopen` of `libpq.so.5`) by
/// the sync commands only: the binary does not link it, so every other command starts as
/// fast as before and runs on a machine where it is not installed. The calls used, as C
/// function pointers looked up once. libpq reads `~/.pgpass`, `PGPASSFILE` and service
/// files, does TLS with the system's OpenSSL and channel binding; journal adds none of that.
///
/// Only libpq's asynchronous calls are used to talk (`PQconnectStartParams` and
/// `PQconnectPoll`, `PQsendQueryParams` and `PQgetResult`): journal waits on the socket
/// itself, so that every wait has a bound of its own choosing, and the notice processor is in
/// place before the server has said a word.
final class LibPQ: Sendable {
  typealias Connection = OpaquePointer
  typealias Result = OpaquePointer
  typealias NoticeProcessor =
    @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?) ->
    Void

  let connectStart:
    @convention(c) (
      UnsafePointer<UnsafePointer<CChar>?>, UnsafePointer<UnsafePointer<CChar>?>, Int32
    ) -> Connection?
  let connectPoll: @convention(c) (Connection?) -> Int32
  let socket: @convention(c) (Connection?) -> Int32
  let status: @convention(c) (Connection?) -> Int32
  let errorMessage: @convention(c) (Connection?) -> UnsafePointer<CChar>?
  let finish: @convention(c) (Connection?) -> Void
  let user: @convention(c) (Connection?) -> UnsafePointer<CChar>?
  let database: @convention(c) (Connection?) -> UnsafePointer<CChar>?
  let needsPassword: @convention(c) (Connection?) -> Int32
  let usedPassword: @convention(c) (Connection?) -> Int32
  let setErrorVerbosity: @convention(c) (Connection?, Int32) -> Int32
  let setNonBlocking: @convention(c) (Connection?, Int32) -> Int32
  let sendQueryParams:
    @convention(c) (
      Connection?, UnsafePointer<CChar>, Int32, UnsafePointer<UInt32>?,
      UnsafePointer<UnsafePointer<CChar>?>?, UnsafePointer<Int32>?, UnsafePointer<Int32>?, Int32
    ) -> Int32
  let sendQuery: @convention(c) (Connection?, UnsafePointer<CChar>) -> Int32
  let flush: @convention(c) (Connection?) -> Int32
  let consumeInput: @convention(c) (Connection?) -> Int32
  let isBusy: @convention(c) (Connection?) -> Int32
  let getResult: @convention(c) (Connection?) -> Result?
  let resultStatus: @convention(c) (Result?) -> Int32
  let resultErrorField: @convention(c) (Result?, Int32) -> UnsafePointer<CChar>?
  let rowCount: @convention(c) (Result?) -> Int32
  let fieldCount: @convention(c) (Result?) -> Int32
  let value: @convention(c) (Result?, Int32, Int32) -> UnsafePointer<CChar>?
  let length: @convention(c) (Result?, Int32, Int32) -> Int32
  let isNull: @convention(c) (Result?, Int32, Int32) -> Int32
  let affected: @convention(c) (Result?) -> UnsafePointer<CChar>?
  let clear: @convention(c) (Result?) -> Void
  let setNoticeProcessor:
    @convention(c) (Connection?, NoticeProcessor?, UnsafeMutableRawPointer?) -> OpaquePointer?

  // libpq's constants (libpq-fe.h, postgres_ext.h).
  static let connectionOK: Int32 = 0
  static let connectionBad: Int32 = 1
  static let pollingFailed: Int32 = 0
  static let pollingReading: Int32 = 1
  static let pollingWriting: Int32 = 2
  static let pollingOK: Int32 = 3
  static let commandOK: Int32 = 1
  static let tuplesOK: Int32 = 2
  /// PQERRORS_VERBOSE: a connection's error message carries the server's SQLSTATE.
  static let errorsVerbose: Int32 = 2
  static let diagnosticSQLState = Int32(UInt8(ascii: "C"))
  static let diagnosticMessage = Int32(UInt8(ascii: "M"))

  /// The library loaded once per process, by `name` (`libpq.so.5` unless a test names
  /// another).
  static func load(_ name: String = "libpq.so.5") throws(SyncError) -> LibPQ {
    let cached = loaded.withLock { $0[name] }
    if let cached { return cached }
    guard let handle = dlopen(name, RTLD_NOW | RTLD_LOCAL) else {
      throw .clientLibraryMissing(name: name)
    }
    guard let library = LibPQ(handle) else {
      dlclose(handle)
      throw .clientLibraryMissing(name: name)
    }
    loaded.withLock { $0[name] = library }
    return library
  }

  private static let loaded = Mutex<[String: LibPQ]>([:])

  private init?(_ handle: UnsafeMutableRawPointer) {
    func symbol<T>(_ name: String, as type: T.Type) -> T? {
      dlsym(handle, name).map { unsafeBitCast($0, to: type) }
    }
    guard
      let connectStart = symbol("PQconnectStartParams", as: type(of: self.connectStart)),
      let connectPoll = symbol("PQconnectPoll", as: type(of: self.connectPoll)),
      let socket = symbol("PQsocket", as: type(of: self.socket)),
      let status = symbol("PQstatus", as: type(of: self.status)),
      let errorMessage = symbol("PQerrorMessage", as: type(of: self.errorMessage)),
      let finish = symbol("PQfinish", as: type(of: self.finish)),
      let user = symbol("PQuser", as: type(of: self.user)),
      let database = symbol("PQdb", as: type(of: self.database)),
      let needsPassword = symbol("PQconnectionNeedsPassword", as: type(of: self.needsPassword)),
      let usedPassword = symbol("PQconnectionUsedPassword", as: type(of: self.usedPassword)),
      let setErrorVerbosity = symbol(
        "PQsetErrorVerbosity", as: type(of: self.setErrorVerbosity)),
      let setNonBlocking = symbol("PQsetnonblocking", as: type(of: self.setNonBlocking)),
      let sendQueryParams = symbol("PQsendQueryParams", as: type(of: self.sendQueryParams)),
      let sendQuery = symbol("PQsendQuery", as: type(of: self.sendQuery)),
      let flush = symbol("PQflush", as: type(of: self.flush)),
      let consumeInput = symbol("PQconsumeInput", as: type(of: self.consumeInput)),
      let isBusy = symbol("PQisBusy", as: type(of: self.isBusy)),
      let getResult = symbol("PQgetResult", as: type(of: self.getResult)),
      let resultStatus = symbol("PQresultStatus", as: type(of: self.resultStatus)),
      let resultErrorField = symbol("PQresultErrorField", as: type(of: self.resultErrorField)),
      let rowCount = symbol("PQntuples", as: type(of: self.rowCount)),
      let fieldCount = symbol("PQnfields", as: type(of: self.fieldCount)),
      let value = symbol("PQgetvalue", as: type(of: self.value)),
      let length = symbol("PQgetlength", as: type(of: self.length)),
      let isNull = symbol("PQgetisnull", as: type(of: self.isNull)),
      let affected = symbol("PQcmdTuples", as: type(of: self.affected)),
      let clear = symbol("PQclear", as: type(of: self.clear)),
      let setNoticeProcessor = symbol(
        "PQsetNoticeProcessor", as: type(of: self.setNoticeProcessor))
    else { return nil }
    self.connectStart = connectStart
    self.connectPoll = connectPoll
    self.socket = socket
    self.status = status
    self.errorMessage = errorMessage
    self.finish = finish
    self.user = user
    self.database = database
    self.needsPassword = needsPassword
    self.usedPassword = usedPassword
    self.setErrorVerbosity = setErrorVerbosity
    self.setNonBlocking = setNonBlocking
    self.sendQueryParams = sendQueryParams
    self.sendQuery = sendQuery
    self.flush = flush
    self.consumeInput = consumeInput
    self.isBusy = isBusy
    self.getResult = getResult
    self.resultStatus = resultStatus
    self.resultErrorField = resultErrorField
    self.rowCount = rowCount
    self.fieldCount = fieldCount
    self.value = value
    self.length = length
    self.isNull = isNull
    self.affected = affected
    self.clear = clear
    self.setNoticeProcessor = setNoticeProcessor
  }
}
