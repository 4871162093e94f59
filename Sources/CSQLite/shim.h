// SQLite 3, as Debian's libsqlite3-dev installs it.
#include <sqlite3.h>
