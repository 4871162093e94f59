// jemalloc, a Debian system library (apt: libjemalloc-dev). Linked into pushwired, it serves every
// malloc of the process; `mallctl` reads its version and statistics.
#include <jemalloc/jemalloc.h>
