#ifndef CSQLITEHOOKS_H
#define CSQLITEHOOKS_H

// SQLite's pre-update hook: Debian's libsqlite3 is built with SQLITE_ENABLE_PREUPDATE_HOOK, but
// <sqlite3.h> declares the hook only where that macro is defined, and GRDB's module of the
// header does not define it. The types are SQLite's own (the same incomplete structs, so Swift
// sees the same OpaquePointer as GRDBSQLite's); the functions call SQLite's, nothing more.

typedef struct sqlite3 sqlite3;
typedef struct sqlite3_value sqlite3_value;

/// Called before each row of a table in the connection is inserted, updated or deleted:
/// the context, the connection, SQLITE_INSERT, SQLITE_UPDATE or SQLITE_DELETE, the database
/// ("main", "temp") and table names, and the row ids before and after.
typedef void (*journal_preupdate_callback)(void *context, sqlite3 *connection, int operation,
                                           const char *database, const char *table,
                                           long long rowid_before, long long rowid_after);

/// sqlite3_preupdate_hook: registers `callback` for `connection` (NULL removes it); returns
/// the context registered before.
void *journal_preupdate_hook(sqlite3 *connection, journal_preupdate_callback callback,
                             void *context);

/// sqlite3_preupdate_old and sqlite3_preupdate_new: column `column` of the row as it was
/// (update, delete) or as it will be (insert, update), valid only inside the callback.
int journal_preupdate_old(sqlite3 *connection, int column, sqlite3_value **value);
int journal_preupdate_new(sqlite3 *connection, int column, sqlite3_value **value);

#endif
