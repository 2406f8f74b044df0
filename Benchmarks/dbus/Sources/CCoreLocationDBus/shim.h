// libdbus-1 for Swift (Sources/CoreLocationDBus). The DBUS_TYPE_* macros are character casts Swift does not
// import; CoreLocationDBus redefines them. Only the non-variadic calls are used (message iterators).
#include <dbus/dbus.h>
