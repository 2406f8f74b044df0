import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A tiny HTTP/1.1 server on 127.0.0.1 for tests: answers each request with the response its path
/// prefix maps to, or never answers (to exercise timeouts). Records the request heads it saw.
final class LocalHTTPServer: @unchecked Sendable {  // Sendable: mutable state is guarded by `lock`
    enum Reply: Sendable {
        case respond(status: Int, body: String)
        case hang
    }

    let port: UInt16
    private let socketFD: Int32
    private let routes: [String: Reply]
    private let lock = NSLock()
    private var heads: [String] = []
    private var open: [Int32] = []

    init(routes: [String: Reply]) throws {
        self.routes = routes
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(fd, 16) == 0 else { throw POSIXError(.EADDRINUSE) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        port = UInt16(bigEndian: address.sin_port)
        socketFD = fd
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }  // a fixed, valid literal

    var requests: [String] { lock.withLock { heads } }

    /// Wakes the accept loop, which closes the listening socket itself: closed here, its number could be
    /// reused by another test's server before the loop's next `accept`, which would then answer that
    /// server's client with this server's routes (the CI met an HTTP 500 case answered 200 so).
    func stop() {
        shutdown(socketFD, Int32(SHUT_RDWR))
        for fd in lock.withLock({ open }) { close(fd) }
    }

    private func acceptLoop() {
        while true {
            let client = accept(socketFD, nil, nil)
            guard client >= 0 else {
                close(socketFD)
                return
            }
            var buffer = [UInt8](repeating: 0, count: 65_536)
            var received: [UInt8] = []
            while !received.containsHeadEnd {
                let count = read(client, &buffer, buffer.count)
                guard count > 0 else { break }
                received.append(contentsOf: buffer[0..<count])
            }
            let head = String(decoding: received, as: UTF8.self)
            lock.withLock { heads.append(head) }
            let path = head.split(separator: " ").dropFirst().first.map(String.init) ?? "/"
            let reply = routes.first { path.hasPrefix($0.key) }?.value ?? .respond(status: 404, body: "not found")
            switch reply {
            case .hang:
                lock.withLock { open.append(client) }
            case let .respond(status, body):
                let bytes = Array(body.utf8)
                let text = "HTTP/1.1 \(status) X\r\nContent-Type: application/json\r\n"
                    + "Content-Length: \(bytes.count)\r\nConnection: close\r\n\r\n"
                let all = Array(text.utf8) + bytes
                _ = all.withUnsafeBytes { write(client, $0.baseAddress, $0.count) }
                close(client)
            }
        }
    }
}

extension [UInt8] {
    var containsHeadEnd: Bool {
        count >= 4 && (0...(count - 4)).contains {
            self[$0] == 13 && self[$0 + 1] == 10 && self[$0 + 2] == 13 && self[$0 + 3] == 10
        }
    }
}
