/// One server address from a D-Bus address string ("Server Addresses" in the specification):
/// `unix:path=/run/dbus/system_bus_socket` or `unix:abstract=/tmp/dbus-XXXX`, several separated by `;` and tried
/// in order. Values are unescaped (`%2f`); `guid` and other keys are ignored. Other transports (tcp, unixexec,
/// launchd, autolaunch) are not spoken here: an address that names one is skipped with a reason.
package struct DBusAddress: Sendable, Hashable, CustomStringConvertible {
    package enum Endpoint: Sendable, Hashable {
        case path(String)
        case abstract(String)
        /// Not a transport we connect to: the reason, for the error that lists what was tried.
        case unsupported(String)
    }

    package var endpoint: Endpoint
    /// The address as written (for messages).
    package var text: String

    package var description: String {
        switch endpoint {
        case .path(let path): path
        case .abstract(let name): "@" + name
        case .unsupported: text
        }
    }

    /// libdbus's default for the system bus when `DBUS_SYSTEM_BUS_ADDRESS` is not set.
    package static let defaultSystemBus = "unix:path=/var/run/dbus/system_bus_socket"

    static let badAddressName = "org.freedesktop.DBus.Error.BadAddress"

    /// The addresses of `bus`: `.system` from `DBUS_SYSTEM_BUS_ADDRESS` or the default socket, `.session` from
    /// `DBUS_SESSION_BUS_ADDRESS` or else `$XDG_RUNTIME_DIR/bus` (as libdbus and sd-bus do), `.address` as given.
    package static func addresses(for bus: DBusClient.Bus, environment: [String: String]) throws -> [DBusAddress] {
        switch bus {
        case .system:
            let text = environment["DBUS_SYSTEM_BUS_ADDRESS"].flatMap { $0.isEmpty ? nil : $0 } ?? defaultSystemBus
            return try parse(text)
        case .session:
            if let text = environment["DBUS_SESSION_BUS_ADDRESS"], !text.isEmpty { return try parse(text) }
            if let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty {
                return [DBusAddress(endpoint: .path(runtime + "/bus"), text: "unix:path=\(runtime)/bus")]
            }
            throw DBusCallError(
                .connect, name: badAddressName,
                "no session bus: neither DBUS_SESSION_BUS_ADDRESS nor XDG_RUNTIME_DIR is set")
        case .address(let text):
            return try parse(text)
        }
    }

    /// Every address in `text` (`;`-separated; empty entries skipped).
    package static func parse(_ text: String) throws -> [DBusAddress] {
        let entries = text.split(separator: ";").map(String.init)
        guard !entries.isEmpty else { throw DBusCallError(.connect, name: badAddressName, "an empty D-Bus address") }
        return try entries.map(parseOne)
    }

    private static func parseOne(_ entry: String) throws -> DBusAddress {
        guard let colon = entry.firstIndex(of: ":") else {
            throw DBusCallError(.connect, name: badAddressName, "'\(entry)' is not a D-Bus address (no transport)")
        }
        let transport = String(entry[..<colon])
        var keys: [String: String] = [:]
        for pair in entry[entry.index(after: colon)...].split(separator: ",") {
            guard let equals = pair.firstIndex(of: "="), equals != pair.startIndex else {
                throw DBusCallError(.connect, name: badAddressName, "'\(entry)': '\(pair)' is not key=value")
            }
            let key = String(pair[..<equals])
            guard keys[key] == nil else {
                throw DBusCallError(.connect, name: badAddressName, "'\(entry)' gives \(key) twice")
            }
            keys[key] = try unescape(pair[pair.index(after: equals)...], in: entry)
        }
        switch transport {
        case "unix":
            let given = [keys["path"].map(Endpoint.path), keys["abstract"].map(Endpoint.abstract)].compactMap { $0 }
            if given.count == 1 { return DBusAddress(endpoint: given[0], text: entry) }
            if given.count > 1 {
                throw DBusCallError(.connect, name: badAddressName, "'\(entry)' gives both path and abstract")
            }
            return DBusAddress(
                endpoint: .unsupported("'\(entry)' is an address to listen on, not to connect to"), text: entry)
        default:
            return DBusAddress(
                endpoint: .unsupported(
                    "the '\(transport)' transport is not supported (unix:path= and unix:abstract= are)"),
                text: entry)
        }
    }

    /// `%XX` to its byte; every other byte as it is. The result must be UTF-8 (a path, a name).
    private static func unescape(_ value: Substring, in entry: String) throws -> String {
        var bytes: [UInt8] = []
        var iterator = Array(value.utf8).makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                throw DBusCallError(.connect, name: badAddressName, "'\(entry)': a % not followed by two hex digits")
            }
            bytes.append(high << 4 | low)
        }
        guard let text = String(validating: bytes, as: UTF8.self), !bytes.contains(0) else {
            throw DBusCallError(.connect, name: badAddressName, "'\(entry)': a value that is not text")
        }
        return text
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
