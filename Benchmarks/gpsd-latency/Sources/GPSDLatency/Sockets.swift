import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Monotonic seconds.
func monotonic() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

func loopbackAddress(_ port: UInt16) -> sockaddr_in {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = port.bigEndian
    return address
}

func listenLoopback() -> (fd: Int32, port: UInt16)? {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var one: Int32 = 1
    _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
    var address = loopbackAddress(0)
    let ok =
        withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        } == 0 && listen(fd, 4) == 0
    guard ok else { return nil }
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
    }
    return (fd, UInt16(bigEndian: address.sin_port))
}

func connectLoopback(_ port: UInt16) -> Int32? {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = loopbackAddress(port)
    let ok =
        withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        } == 0
    if !ok {
        close(fd)
        return nil
    }
    var one: Int32 = 1
    _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    return fd
}

/// The NMEA feed gpsd reads: accepts connections; `send` writes to all of them.
final class Feed: Sendable {
    let port: UInt16
    private let clients = Mutex<[Int32]>([])

    init?() {
        guard let (fd, port) = listenLoopback() else { return nil }
        self.port = port
        Thread { [self] in
            while true {
                let client = accept(fd, nil, nil)
                if client < 0 { break }
                var one: Int32 = 1
                _ = setsockopt(client, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
                self.clients.withLock { $0.append(client) }
            }
        }.start()
    }

    var connected: Int { clients.withLock { $0.count } }

    func send(_ text: String) {
        let bytes = Array(text.utf8)
        clients.withLock { list in
            for fd in list {
                _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            }
        }
    }
}

/// gpsd's own latency: a raw client that reads TPV lines and notes when each epoch's first TPV
/// arrives (by its "time" field), without decoding more than that.
final class RawWatcher: Sendable {
    private let arrivals = Mutex<[String: Double]>([:])

    init?(port: UInt16) {
        guard let fd = connectLoopback(port) else { return nil }
        let request = Array("?WATCH={\"enable\":true,\"json\":true}\n".utf8)
        _ = request.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, 0) }
        Thread { [self] in
            var buffer = [UInt8](repeating: 0, count: 65536)
            var pending: [UInt8] = []
            while true {
                let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if count <= 0 { break }
                let now = monotonic()
                pending += buffer[0..<count]
                while let newline = pending.firstIndex(of: 10) {
                    let line = String(decoding: pending[..<newline], as: UTF8.self)
                    pending.removeSubrange(...newline)
                    guard line.hasPrefix("{\"class\":\"TPV\""), let range = line.range(of: "\"time\":\"") else {
                        continue
                    }
                    let time = String(line[range.upperBound...].prefix(24))
                    self.arrivals.withLock { if $0[time] == nil { $0[time] = now } }
                }
            }
        }.start()
    }

    func arrival(_ time: String) -> Double? { arrivals.withLock { $0[time] } }
}
