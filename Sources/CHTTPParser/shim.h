// Node's http_parser (Debian: libhttp-parser-dev), the HTTP/1.1 request parser of the HTTP door.
#include <http_parser.h>
