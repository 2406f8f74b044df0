/// A libdbus object pointer (DBusWatch, DBusTimeout, DBusPendingCall) kept in Swift state behind a lock.
///
/// `@unchecked Sendable` is safe because the pointer is only compared and handed back to libdbus, whose objects
/// are thread-safe once `dbus_threads_init_default()` has run (DBusClient does so before opening anything),
/// and its lifetime is managed by libdbus's own reference counts, not by this value.
struct DBusHandle: @unchecked Sendable, Hashable {  // safe: only compared and handed back to libdbus
    let pointer: OpaquePointer
    init(_ pointer: OpaquePointer) { self.pointer = pointer }
}
