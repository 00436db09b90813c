#define SQLITE_ENABLE_PREUPDATE_HOOK 1
#include <sqlite3.h>

#include "CSQLiteHooks.h"

void *journal_preupdate_hook(sqlite3 *connection, journal_preupdate_callback callback,
                             void *context) {
  return sqlite3_preupdate_hook(connection, callback, context);
}

int journal_preupdate_old(sqlite3 *connection, int column, sqlite3_value **value) {
  return sqlite3_preupdate_old(connection, column, value);
}

int journal_preupdate_new(sqlite3 *connection, int column, sqlite3_value **value) {
  return sqlite3_preupdate_new(connection, column, value);
}
