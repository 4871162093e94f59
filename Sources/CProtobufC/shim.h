// libprotobuf-c, as Debian's libprotobuf-c-dev installs it.
#include <protobuf-c/protobuf-c.h>
