// SQLite 3, as Debian's libsqlite3-dev installs it.
#include <sqlite3.h>

/// SQLite's error log callback (SQLITE_CONFIG_LOG): the context given, the result code, the message.
typedef void (*pushwire_sqlite_log_callback)(void *context, int code, const char *message);

/// `sqlite3_config(SQLITE_CONFIG_LOG, callback, context)`, which Swift cannot call (a variadic C
/// function). Only before SQLite initializes (before the first connection is opened):
/// SQLITE_MISUSE after.
static inline int pushwire_sqlite_config_log(pushwire_sqlite_log_callback callback, void *context) {
    return sqlite3_config(SQLITE_CONFIG_LOG, callback, context);
}
