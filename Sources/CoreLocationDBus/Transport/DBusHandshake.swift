#if canImport(Glibc)
    import Glibc
#endif

/// Opening a bus connection ("Authentication Protocol" and "Message Bus Specification"): a NUL byte, SASL
/// `AUTH EXTERNAL` with our uid in hex (the server checks it against the socket's peer credentials), `OK <guid>`,
/// `BEGIN`, then `org.freedesktop.DBus.Hello` for our unique name. Blocking, bounded by a deadline, before the
/// connection's thread starts — as libdbus's `dbus_bus_get_private` blocks. Unix file-descriptor passing is not
/// negotiated: no user of this layer receives descriptors (BlueZ's advertisement monitor API passes none).
enum DBusHandshake {
    struct Established {
        var fd: Int32
        /// Holds what arrived after the Hello reply (the NameAcquired signal), for the connection to read first.
        var reader: DBusFrameReader
        var uniqueName: String
        var address: DBusAddress
    }

    static let authFailedName = "org.freedesktop.DBus.Error.AuthFailed"
    /// The longest SASL line accepted from a server, and the most lines before OK.
    static let maxLine = 16384
    static let maxLines = 8

    /// Connects to the first of `addresses` that answers and authenticates there.
    static func open(_ addresses: [DBusAddress], timeout: Duration) throws -> Established {
        var failures: [DBusCallError] = []
        let deadline = ContinuousClock.now + timeout
        for address in addresses {
            let fd: Int32
            do {
                fd = try DBusSocket.connect(address)
            } catch let error as DBusCallError {
                failures.append(error)
                continue
            }
            do {
                return try authenticate(fd, address, deadline)
            } catch {
                Glibc.close(fd)
                throw error
            }
        }
        guard failures.count > 1 else {
            throw failures.first
                ?? DBusCallError(.connect, name: DBusAddress.badAddressName, "no address to connect to")
        }
        // The name of the first failure: a missing system bus is usually its one socket missing.
        throw DBusCallError(.connect, name: failures[0].name, failures.map(\.message).joined(separator: "; "))
    }

    private static func authenticate(_ fd: Int32, _ address: DBusAddress, _ deadline: ContinuousClock.Instant) throws
        -> Established
    {
        let uid = String(getuid())
        let hex = uid.utf8.map { byte in
            let digits = Array("0123456789abcdef".utf8)
            return String(decoding: [digits[Int(byte >> 4)], digits[Int(byte & 0xF)]], as: UTF8.self)
        }.joined()
        try sendAll(fd, [0] + Array("AUTH EXTERNAL \(hex)\r\n".utf8), address, deadline)
        var lines = 0
        while true {
            lines += 1
            guard lines <= maxLines else { throw failure(address, "the bus kept the authentication going") }
            let line = try readLine(fd, address, deadline)
            if line.hasPrefix("OK ") || line == "OK" { break }
            if line.hasPrefix("DATA") {
                // EXTERNAL with the identity already given: an empty response confirms it.
                try sendAll(fd, Array("DATA\r\n".utf8), address, deadline)
                continue
            }
            if line.hasPrefix("REJECTED") {
                let offered = line.dropFirst("REJECTED".count).trimmingPrefixSpaces
                throw failure(
                    address, "the bus refused our credentials (SASL EXTERNAL as uid \(uid); it offers: \(offered))")
            }
            throw failure(address, "the bus answered '\(line.prefix(80))' to authentication")
        }
        var hello = DBusMessage.methodCall(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
            member: "Hello")
        hello.serial = 1
        try sendAll(fd, Array("BEGIN\r\n".utf8) + (try hello.encode()), address, deadline)
        var reader = DBusFrameReader()
        var scratch = [UInt8](repeating: 0, count: 4096)
        while true {
            while let message = try reader.next() {
                guard message.replySerial == 1 else { continue }
                if message.kind == .error {
                    throw DBusCallError(
                        .connect, name: message.errorName, "Hello: \(message.body.first?.string ?? "refused")")
                }
                guard let name = message.body.first?.string, DBusNames.isBusName(name) else {
                    throw failure(address, "the bus answered Hello without a unique name")
                }
                return Established(fd: fd, reader: reader, uniqueName: name, address: address)
            }
            try wait(fd, address, deadline)
            let count = scratch.withUnsafeMutableBytes { DBusSocket.read(fd, scratch: $0, into: &reader) }
            guard count != nil else { throw DBusCallError(.connect, "\(address) closed the connection") }
        }
    }

    private static func failure(_ address: DBusAddress, _ message: String) -> DBusCallError {
        DBusCallError(.connect, name: authFailedName, "\(address): \(message)")
    }

    private static func sendAll(
        _ fd: Int32, _ bytes: [UInt8], _ address: DBusAddress, _ deadline: ContinuousClock.Instant
    ) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { DBusSocket.write(fd, $0) }
            guard let written else { throw DBusCallError(.connect, "\(address) closed the connection") }
            offset += written
            if written == 0, !DBusSocket.wait(fd, for: Int16(POLLOUT), until: deadline) {
                throw DBusCallError(.timeout, "\(address) did not take our bytes in time")
            }
        }
    }

    private static func wait(_ fd: Int32, _ address: DBusAddress, _ deadline: ContinuousClock.Instant) throws {
        guard DBusSocket.wait(fd, for: Int16(POLLIN), until: deadline) else {
            throw DBusCallError(.timeout, "\(address) did not answer in time")
        }
    }

    /// One `\r\n`-terminated line (without it), at most `maxLine` bytes. Read a byte at a time: nothing after
    /// the line may be taken from the socket before BEGIN (a few dozen bytes, once per connection).
    private static func readLine(_ fd: Int32, _ address: DBusAddress, _ deadline: ContinuousClock.Instant) throws
        -> String
    {
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while true {
            if line.count >= 2, line[line.count - 2] == 13, line[line.count - 1] == 10 {
                return String(decoding: line.dropLast(2), as: UTF8.self)
            }
            guard line.count <= maxLine else { throw failure(address, "an authentication line too long") }
            try wait(fd, address, deadline)
            let count = recv(fd, &byte, 1, 0)
            if count == 1 {
                line.append(byte)
            } else if count == 0 || (errno != EAGAIN && errno != EINTR && errno != EWOULDBLOCK) {
                throw DBusCallError(.connect, "\(address) closed the connection during authentication")
            }
        }
    }
}

extension Substring {
    fileprivate var trimmingPrefixSpaces: Substring { drop { $0 == " " } }
}
