import Foundation
import GRDB

/// Raw access to a vault's tables, for tests that tamper with it or look at its bytes.
enum GRDBAccess {
  static func queue(_ path: String) throws -> DatabaseQueue {
    var configuration = Configuration()
    configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA secure_delete = ON") }
    return try DatabaseQueue(path: path, configuration: configuration)
  }

  /// (summary, body) of the session row with this id.
  static func row(_ db: Database, id: String) throws -> (Data, Data) {
    guard
      let row = try Row.fetchOne(
        db, sql: "SELECT summary, body FROM session WHERE id = ?", arguments: [id])
    else { return (Data(), Data()) }
    return (row[0], row[1])
  }
}
