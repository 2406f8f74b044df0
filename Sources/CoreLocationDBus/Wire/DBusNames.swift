/// The specification's rules for the names a message carries ("Valid Names", "Valid Object Paths"): checked
/// before we send one (the bus would drop a connection that sends an invalid name) and on every header field
/// we read.
package enum DBusNames {
    /// The most bytes any bus name, interface, member or error name may have.
    package static let maxNameLength = 255

    private static func isLetterOrUnderscore(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
            || (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
            || byte == UInt8(ascii: "_")
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    /// `/`, or `/` followed by elements of `[A-Za-z0-9_]` separated by single `/`, no trailing `/`.
    package static func isObjectPath(_ path: String) -> Bool {
        let bytes = Array(path.utf8)
        guard bytes.first == UInt8(ascii: "/") else { return false }
        if bytes.count == 1 { return true }
        var previousSlash = true
        for byte in bytes.dropFirst() {
            if byte == UInt8(ascii: "/") {
                if previousSlash { return false }
                previousSlash = true
            } else {
                guard isLetterOrUnderscore(byte) || isDigit(byte) else { return false }
                previousSlash = false
            }
        }
        return !previousSlash
    }

    /// Two or more elements of `[A-Za-z0-9_]` separated by `.`, none starting with a digit, at most 255 bytes.
    package static func isInterface(_ name: String) -> Bool {
        dotted(name, allowHyphen: false, digitFirst: false)
    }

    /// Error names follow the interface rules.
    package static func isErrorName(_ name: String) -> Bool { isInterface(name) }

    /// One element of `[A-Za-z0-9_]`, not starting with a digit, 1…255 bytes.
    package static func isMember(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard !bytes.isEmpty, bytes.count <= maxNameLength, !isDigit(bytes[0]) else { return false }
        return bytes.allSatisfy { isLetterOrUnderscore($0) || isDigit($0) }
    }

    /// A unique name (`:1.42`, elements may start with a digit) or a well-known name (`org.bluez`): two or more
    /// elements of `[A-Za-z0-9_-]`, at most 255 bytes.
    package static func isBusName(_ name: String) -> Bool {
        if name.hasPrefix(":") {
            return dotted(String(name.dropFirst()), allowHyphen: true, digitFirst: true, extra: 1)
        }
        return dotted(name, allowHyphen: true, digitFirst: false)
    }

    private static func dotted(_ name: String, allowHyphen: Bool, digitFirst: Bool, extra: Int = 0) -> Bool {
        let bytes = Array(name.utf8)
        guard !bytes.isEmpty, bytes.count + extra <= maxNameLength else { return false }
        var elements = 1
        var elementStart = true
        for byte in bytes {
            if byte == UInt8(ascii: ".") {
                if elementStart { return false }
                elements += 1
                elementStart = true
                continue
            }
            let allowed = isLetterOrUnderscore(byte) || isDigit(byte) || (allowHyphen && byte == UInt8(ascii: "-"))
            guard allowed, !(elementStart && !digitFirst && isDigit(byte)) else { return false }
            elementStart = false
        }
        return !elementStart && elements >= 2
    }
}
