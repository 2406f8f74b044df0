// libmaxminddb for Swift (Sources/CoreLocationSources/Network). MMDB_get_value is variadic and not imported:
// the Swift side uses MMDB_aget_value with a NULL-terminated path array.
#include <maxminddb.h>
