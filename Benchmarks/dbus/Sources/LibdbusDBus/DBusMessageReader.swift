import CCoreLocationDBus

/// Reads a message body into `DBusValue`s through `DBusMessageIter` (no variadic `dbus_message_get_args`).
enum DBusMessageReader {
    static func arguments(of message: OpaquePointer) -> [DBusValue] {
        var iter = DBusMessageIter()
        guard dbus_message_iter_init(message, &iter) != 0 else { return [] }
        return readAll(&iter)
    }

    private static func readAll(_ iter: inout DBusMessageIter) -> [DBusValue] {
        var values: [DBusValue] = []
        while dbus_message_iter_get_arg_type(&iter) != DBusTypeCode.invalid {
            if let value = read(&iter) { values.append(value) }
            if dbus_message_iter_next(&iter) == 0 { break }
        }
        return values
    }

    private static func basic<T>(_ iter: inout DBusMessageIter, _ initial: T) -> T {
        var value = initial
        withUnsafeMutablePointer(to: &value) { dbus_message_iter_get_basic(&iter, $0) }
        return value
    }

    private static func text(_ iter: inout DBusMessageIter) -> String {
        var pointer: UnsafePointer<CChar>?
        withUnsafeMutablePointer(to: &pointer) { dbus_message_iter_get_basic(&iter, $0) }
        guard let pointer else { return "" }
        return String(cString: pointer)
    }

    /// The signature of the iterator's current value (`dbus_message_iter_get_signature`, freed here).
    private static func signature(_ iter: inout DBusMessageIter) -> String {
        guard let raw = dbus_message_iter_get_signature(&iter) else { return "" }
        defer { dbus_free(raw) }
        return String(cString: raw)
    }

    private static func read(_ iter: inout DBusMessageIter) -> DBusValue? {
        switch dbus_message_iter_get_arg_type(&iter) {
        case DBusTypeCode.byte: return .byte(basic(&iter, UInt8(0)))
        case DBusTypeCode.boolean: return .bool(basic(&iter, UInt32(0)) != 0)
        case DBusTypeCode.int16: return .int16(basic(&iter, Int16(0)))
        case DBusTypeCode.uint16: return .uint16(basic(&iter, UInt16(0)))
        case DBusTypeCode.int32: return .int32(basic(&iter, Int32(0)))
        case DBusTypeCode.uint32: return .uint32(basic(&iter, UInt32(0)))
        case DBusTypeCode.int64: return .int64(basic(&iter, Int64(0)))
        case DBusTypeCode.uint64: return .uint64(basic(&iter, UInt64(0)))
        case DBusTypeCode.double: return .double(basic(&iter, Double(0)))
        case DBusTypeCode.unixFD: return .unixFD(basic(&iter, Int32(-1)))
        case DBusTypeCode.string: return .string(text(&iter))
        case DBusTypeCode.objectPath: return .objectPath(text(&iter))
        case DBusTypeCode.signature: return .signature(text(&iter))
        case DBusTypeCode.array:
            let full = signature(&iter)
            var sub = DBusMessageIter()
            dbus_message_iter_recurse(&iter, &sub)
            return .array(elementSignature: String(full.dropFirst()), readAll(&sub))
        case DBusTypeCode.variant:
            var sub = DBusMessageIter()
            dbus_message_iter_recurse(&iter, &sub)
            return read(&sub).map { .variant($0) }
        case DBusTypeCode.structure:
            var sub = DBusMessageIter()
            dbus_message_iter_recurse(&iter, &sub)
            return .structure(readAll(&sub))
        case DBusTypeCode.dictEntry:
            var sub = DBusMessageIter()
            dbus_message_iter_recurse(&iter, &sub)
            let pair = readAll(&sub)
            guard pair.count == 2 else { return nil }
            return .dictEntry(pair[0], pair[1])
        default:
            return nil
        }
    }
}
