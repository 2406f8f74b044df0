import CCoreLocationDBus

/// Appends `DBusValue`s to a message through `DBusMessageIter` (no variadic `dbus_message_append_args`).
///
/// Everything libdbus would reject with an assertion is checked first and thrown as `.invalidArgument`:
/// object paths and signatures are validated, strings must not hold NUL, containers must match their
/// declared element signature.
enum DBusMessageWriter {
    static func append(_ values: [DBusValue], to message: OpaquePointer) throws {
        for value in values { try validate(value) }
        var iter = DBusMessageIter()
        dbus_message_iter_init_append(message, &iter)
        for value in values { try write(value, into: &iter) }
    }

    static func validate(_ value: DBusValue) throws {
        switch value {
        case .string(let text):
            guard !text.utf8.contains(0) else { throw invalid("a string holds NUL") }
        case .objectPath(let path):
            guard dbus_validate_path(path, nil) != 0 else { throw invalid("'\(path)' is not an object path") }
        case .signature(let signature):
            guard dbus_signature_validate(signature, nil) != 0 else {
                throw invalid("'\(signature)' is not a signature")
            }
        case .array(let element, let elements):
            // A dict entry ({sv}) is a complete type only inside an array, so the array's signature is checked.
            guard dbus_signature_validate_single("a" + element, nil) != 0 else {
                throw invalid("'\(element)' is not a single complete type")
            }
            for item in elements {
                guard item.signature == element else {
                    throw invalid("an element of type \(item.signature) in an array of \(element)")
                }
                try validate(item)
            }
        case .dictEntry(let key, let value):
            guard key.signature.count == 1, key.signature != "v" else {
                throw invalid("a dictionary key must be a basic type, not \(key.signature)")
            }
            try validate(key)
            try validate(value)
        case .structure(let fields):
            guard !fields.isEmpty else { throw invalid("an empty structure") }
            for field in fields { try validate(field) }
        case .variant(let inner):
            try validate(inner)
        default:
            break
        }
    }

    private static func invalid(_ message: String) -> DBusCallError {
        DBusCallError(.invalidArgument, message)
    }

    private static func appendBasic<T>(_ iter: inout DBusMessageIter, _ type: Int32, _ value: T) throws {
        var copy = value
        let ok = withUnsafeMutablePointer(to: &copy) { dbus_message_iter_append_basic(&iter, type, $0) }
        guard ok != 0 else { throw DBusCallError(.outOfMemory, "appending a value") }
    }

    private static func appendText(_ iter: inout DBusMessageIter, _ type: Int32, _ text: String) throws {
        let ok = text.withCString { cString -> dbus_bool_t in
            var pointer: UnsafePointer<CChar>? = cString
            return withUnsafeMutablePointer(to: &pointer) { dbus_message_iter_append_basic(&iter, type, $0) }
        }
        guard ok != 0 else { throw DBusCallError(.outOfMemory, "appending a string") }
    }

    private static func container(
        _ iter: inout DBusMessageIter, _ type: Int32, _ contained: String?, _ body: (inout DBusMessageIter) throws -> Void
    ) throws {
        var sub = DBusMessageIter()
        let opened: dbus_bool_t
        if let contained {
            opened = contained.withCString { dbus_message_iter_open_container(&iter, type, $0, &sub) }
        } else {
            opened = dbus_message_iter_open_container(&iter, type, nil, &sub)
        }
        guard opened != 0 else { throw DBusCallError(.outOfMemory, "opening a container") }
        do {
            try body(&sub)
        } catch {
            dbus_message_iter_abandon_container(&iter, &sub)
            throw error
        }
        guard dbus_message_iter_close_container(&iter, &sub) != 0 else {
            throw DBusCallError(.outOfMemory, "closing a container")
        }
    }

    private static func write(_ value: DBusValue, into iter: inout DBusMessageIter) throws {
        switch value {
        case .byte(let v): try appendBasic(&iter, DBusTypeCode.byte, v)
        case .bool(let v): try appendBasic(&iter, DBusTypeCode.boolean, dbus_bool_t(v ? 1 : 0))
        case .int16(let v): try appendBasic(&iter, DBusTypeCode.int16, v)
        case .uint16(let v): try appendBasic(&iter, DBusTypeCode.uint16, v)
        case .int32(let v): try appendBasic(&iter, DBusTypeCode.int32, v)
        case .uint32(let v): try appendBasic(&iter, DBusTypeCode.uint32, v)
        case .int64(let v): try appendBasic(&iter, DBusTypeCode.int64, v)
        case .uint64(let v): try appendBasic(&iter, DBusTypeCode.uint64, v)
        case .double(let v): try appendBasic(&iter, DBusTypeCode.double, v)
        case .unixFD(let v): try appendBasic(&iter, DBusTypeCode.unixFD, v)
        case .string(let v): try appendText(&iter, DBusTypeCode.string, v)
        case .objectPath(let v): try appendText(&iter, DBusTypeCode.objectPath, v)
        case .signature(let v): try appendText(&iter, DBusTypeCode.signature, v)
        case .array(let element, let elements):
            try container(&iter, DBusTypeCode.array, element) { sub in
                for item in elements { try write(item, into: &sub) }
            }
        case .dictEntry(let key, let item):
            try container(&iter, DBusTypeCode.dictEntry, nil) { sub in
                try write(key, into: &sub)
                try write(item, into: &sub)
            }
        case .structure(let fields):
            try container(&iter, DBusTypeCode.structure, nil) { sub in
                for field in fields { try write(field, into: &sub) }
            }
        case .variant(let inner):
            try container(&iter, DBusTypeCode.variant, inner.signature) { sub in try write(inner, into: &sub) }
        }
    }
}
