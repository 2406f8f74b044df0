import CoreLocationDaemonProtocol
import Foundation
import Logging
#if canImport(Glibc)
import Glibc
#endif

/// Where the daemon's listening socket comes from: systemd (socket activation) or a path we bind.
enum ListeningSocket {
    enum Failure: Error, CustomStringConvertible {
        case alreadyListening(String)
        case cannotPrepare(String, String)

        var description: String {
            switch self {
            case let .alreadyListening(path): "another locationd is listening on \(path)"
            case let .cannotPrepare(path, reason): "cannot prepare \(path): \(reason)"
            }
        }
    }

    /// The descriptor systemd passed (`LISTEN_FDS` ≥ 1 and `LISTEN_PID` = our pid): fd 3.
    static func activated(environment: [String: String]) -> Int32? {
        guard let count = environment["LISTEN_FDS"].flatMap(Int.init), count >= 1,
            let pid = environment["LISTEN_PID"].flatMap(Int32.init), pid == getpid()
        else { return nil }
        unsetenv("LISTEN_FDS")
        unsetenv("LISTEN_PID")
        unsetenv("LISTEN_FDNAMES")
        return 3
    }

    /// Makes `path` bindable: creates its directory; a socket file nobody answers on (a crashed
    /// daemon's) is removed; one that answers means another daemon runs, and we refuse.
    static func prepare(path: String, logger: Logger) throws(Failure) {
        let directory = (path as NSString).deletingLastPathComponent
        do {
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        } catch {
            throw .cannotPrepare(directory, "\(error)")
        }
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        guard (info.st_mode & S_IFMT) == S_IFSOCK else {
            throw .cannotPrepare(path, "it exists and is not a socket")
        }
        if answers(path) { throw .alreadyListening(path) }
        logger.notice("Removing a stale socket file (no daemon answers on it)", metadata: ["path": "\(path)"])
        guard unlink(path) == 0 else { throw .cannotPrepare(path, String(cString: strerror(errno))) }
    }

    /// Whether a daemon answers on `path`, asked for up to `patience` seconds. A daemon that was just
    /// SIGKILLed keeps its listening socket (and so accepts connections into its backlog) until its
    /// last thread has ended, which a thread in an `fsync` can delay; a live daemon answers throughout.
    /// So one refused connection within the window means the socket is stale.
    static func answers(_ path: String, patience: Double = 2, every interval: Double = 0.25) -> Bool {
        let deadline = Date().addingTimeInterval(patience)
        while true {
            guard let fd = try? UnixSocket.connect(path: path) else { return false }
            close(fd)
            if Date() >= deadline { return true }
            Thread.sleep(forTimeInterval: interval)
        }
    }

    /// Tells systemd (or whoever set `NOTIFY_SOCKET`) that the daemon is ready.
    static func notifyReady(environment: [String: String], logger: Logger) {
        guard var path = environment["NOTIFY_SOCKET"], !path.isEmpty else { return }
        if path.hasPrefix("@") { path = "\0" + path.dropFirst() }
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in bytes.enumerated() { raw[index] = byte }
        }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + (path.hasPrefix("\0") ? 0 : 1))
        let message = Array("READY=1\nSTATUS=Serving location\nMAINPID=\(getpid())\n".utf8)
        let sent = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                message.withUnsafeBytes { sendto(fd, $0.baseAddress, message.count, 0, address, length) }
            }
        }
        if sent < 0 { logger.warning("Cannot notify readiness", metadata: ["socket": "\(path)"]) }
    }
}
