// libpq, PostgreSQL's client library, as Debian's libpq-dev installs it.
#include <libpq-fe.h>
