import CoreLocationDaemonProtocol
import CoreLocationGPSDTestSupport
import Foundation
import Synchronization
#if canImport(Glibc)
    import Glibc
#endif

/// A raw client of gpsd's protocol over loopback TCP or a Unix socket: writes requests, collects the lines it reads
/// on a thread of its own. What a misbehaving client does is written byte for byte.
final class GPSDLineClient: Sendable {
    let fd: Int32
    let lines = Mutex<[String]>([])
    private let closedFlag = Atomic(false)
    /// The daemon closed the connection (the reader saw its end).
    var closed: Bool { closedFlag.load(ordering: .relaxed) }

    struct Failure: Error, CustomStringConvertible { var description: String }

    /// Connects to 127.0.0.1:`port` (`ipv6`: [::1]:`port`); `reading: false` never reads (a client that leaves its
    /// socket full).
    init(port: Int, ipv6: Bool = false, reading: Bool = true) throws {
        fd = socket(ipv6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: \(errno)") }
        let result: Int32
        if ipv6 {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = in_port_t(UInt16(port).bigEndian)
            address.sin6_addr = in6addr_loopback
            result = Self.connect(fd, &address)
        } else {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            result = Self.connect(fd, &address)
        }
        guard result == 0 else {
            Glibc.close(fd)
            throw Failure(description: "connect to \(ipv6 ? "[::1]" : "127.0.0.1"):\(port): \(errno)")
        }
        if reading { startReading() }
    }

    /// `connect(2)` to an IPv4 or IPv6 address.
    private static func connect<Address>(_ fd: Int32, _ address: inout Address) -> Int32 {
        withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<Address>.size))
            }
        }
    }

    /// Connects to a Unix socket.
    init(unixPath: String) throws {
        fd = try UnixSocket.connect(path: unixPath)
        startReading()
    }

    /// Reads the lines a program writes to a pipe (gpspipe's output: `\r\n`-ended lines, which
    /// `RunningApp`'s String splitting does not split, `\r\n` being one Character).
    init(pipe: Pipe) {
        fd = dup(pipe.fileHandleForReading.fileDescriptor)
        try? pipe.fileHandleForReading.close()
        startReading()
    }

    deinit { Glibc.close(fd) }

    private func startReading() {
        let fd = fd
        Thread { [weak self] in
            var pending = Data()
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = read(fd, &buffer, buffer.count)
                if count <= 0 {
                    self?.closedFlag.store(true, ordering: .relaxed)
                    return
                }
                pending.append(contentsOf: buffer[..<count])
                var complete: [String] = []
                while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    var line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                    if line.hasSuffix("\r") { line.removeLast() }
                    complete.append(line)
                    pending.removeSubrange(pending.startIndex...newline)
                }
                guard let self else { return }
                self.lines.withLock { $0 += complete }
            }
        }.start()
    }

    /// Writes every byte (blocking while the socket is full); false when the daemon closed it.
    @discardableResult
    func send(_ text: String) -> Bool { send(Array(text.utf8)) }

    @discardableResult
    func send(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes {
                Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if written <= 0 { return false }
            offset += written
        }
        return true
    }

    /// The objects of a class read so far, decoded.
    func objects(_ className: String) -> [[String: Any]] {
        lines.withLock { $0 }.compactMap { line in
            guard let object = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any],
                object["class"] as? String == className
            else { return nil }
            return object
        }
    }

    func count(_ className: String) -> Int { objects(className).count }

    /// Waits (bounded) until `predicate` holds.
    @discardableResult
    func wait(timeout: Double = 15, _ predicate: @escaping @Sendable (GPSDLineClient) -> Bool) async -> Bool {
        await Polling.until(timeout: timeout) { predicate(self) }
    }
}
