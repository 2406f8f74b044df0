import Foundation
import Synchronization
#if canImport(Glibc)
    import Glibc
#endif

/// The process at the other end of a loopback TCP connection, from the kernel's tables (decision 0077): the
/// peer's socket is the one in `/proc/net/tcp{,6}` whose local address is our connection's remote address and
/// whose remote address is our local one; its inode names the process that holds `socket:[inode]` among its
/// descriptors. Read off the event loop: it walks `/proc`.
enum LoopbackPeer {
    /// The peer's identity, or nil when it is not on this host's loopback or no process we may see holds it.
    /// `index`: the tables read for earlier connections, used again when read after this one was accepted
    /// (`acceptedAt`, `DispatchTime` nanoseconds); nil reads them for this connection alone. The kernel prints a
    /// table a buffer at a time and a line can be skipped when sockets come and go between two reads (seq_file):
    /// the index reads it in large reads, and again when the line is not there.
    static func identity(
        remoteHost: String, remotePort: Int, localHost: String, localPort: Int, proc: String = "/proc",
        index: Index? = nil, acceptedAt: UInt64 = 0
    ) -> PeerIdentity? {
        guard let remote = procAddress(remoteHost, port: remotePort),
            let local = procAddress(localHost, port: localPort),
            isLoopback(remoteHost)
        else { return nil }
        let table = "\(proc)/net/\(remote.count > 13 ? "tcp6" : "tcp")"
        let index = index ?? Index()
        guard let (uid, inode) = index.socket(table: table, local: remote, remote: local, since: acceptedAt),
            let pid = index.holder(of: inode, uid: uid, proc: proc, since: acceptedAt)
        else { return nil }
        return PeerIdentity(credentials: PeerIdentity.Credentials(pid: pid, uid: uid, gid: 0))
    }

    /// The socket tables and the socket holders read once for many connections: 1 000 clients connecting together
    /// each read the whole table and walked every process's descriptors — N² reads, and locationd served none of
    /// them in time (Benchmarks/gpsd-protocol). A reading serves every connection accepted before it began: a
    /// socket's inode is never given to another socket while the kernel runs (sockfs numbers them in sequence), so
    /// what a reading made after the connection existed says of its inode is still true. Readings are made one at
    /// a time; a connection its latest reading does not cover makes a new one.
    final class Index: Sendable {
        private struct Tables {
            var sockets: [String: [String: (uid: UInt32, inode: UInt64)]] = [:]
            var socketsReadAt: [String: UInt64] = [:]
            var holders: [UInt64: Int32] = [:]
            var holdersReadAt: UInt64 = 0
        }

        private let tables = Mutex(Tables())
        private let reading = Mutex(())

        func socket(table: String, local: String, remote: String, since: UInt64) -> (uid: UInt32, inode: UInt64)? {
            let key = local + " " + remote
            func cached() -> (uid: UInt32, inode: UInt64)?? {
                tables.withLock { tables in
                    guard let readAt = tables.socketsReadAt[table], readAt >= since else { return nil }
                    return .some(tables.sockets[table]?[key])
                }
            }
            if let hit = cached(), hit != nil { return hit }
            return reading.withLock { _ in
                if let hit = cached(), hit != nil { return hit }
                for _ in 0..<3 {
                    let readAt = DispatchTime.now().uptimeNanoseconds
                    let all = LoopbackPeer.sockets(in: LoopbackPeer.contents(of: table) ?? "")
                    tables.withLock { tables in
                        tables.sockets[table] = all
                        tables.socketsReadAt[table] = readAt
                    }
                    if let found = all[key] { return found }
                }
                return nil
            }
        }

        func holder(of inode: UInt64, uid: UInt32, proc: String, since: UInt64) -> Int32? {
            func cached() -> Int32?? {
                tables.withLock { tables in
                    tables.holdersReadAt >= since ? .some(tables.holders[inode]) : nil
                }
            }
            let pid: Int32? =
                if let hit = cached(), hit != nil { hit } else {
                    reading.withLock { _ in
                        if let hit = cached(), hit != nil { return hit }
                        let readAt = DispatchTime.now().uptimeNanoseconds
                        let holders = LoopbackPeer.socketHolders(proc: proc)
                        tables.withLock { tables in
                            tables.holders = holders
                            tables.holdersReadAt = readAt
                        }
                        return holders[inode]
                    }
                }
            // The socket's owner made it; a descriptor passed to a process of another user does not name it (for a
            // holder read now or by an earlier reading alike).
            return pid.flatMap { LoopbackPeer.owner(of: $0, proc: proc) == uid ? $0 : nil }
        }
    }

    /// Every socket inode open in a process we may see, with the first such process (by /proc order).
    static func socketHolders(proc: String) -> [UInt64: Int32] {
        var holders: [UInt64: Int32] = [:]
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: proc)) ?? []
        for entry in entries {
            guard let pid = Int32(entry) else { continue }
            let fds = (try? FileManager.default.contentsOfDirectory(atPath: "\(proc)/\(entry)/fd")) ?? []
            for fd in fds {
                var buffer = [CChar](repeating: 0, count: 64)
                let count = readlink("\(proc)/\(entry)/fd/\(fd)", &buffer, buffer.count - 1)
                guard count > 9 else { continue }
                let text = String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
                guard text.hasPrefix("socket:["), text.hasSuffix("]"), let inode = UInt64(text.dropFirst(8).dropLast())
                else { continue }
                if holders[inode] == nil { holders[inode] = pid }
            }
        }
        return holders
    }

    static func owner(of pid: Int32, proc: String) -> UInt32? {
        var status = stat()
        guard stat("\(proc)/\(pid)", &status) == 0 else { return nil }
        return status.st_uid
    }

    /// A /proc file read whole, 1 MiB a read (`FileManager` reads procfs files in small pieces: their size is 0).
    static func contents(of path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var data = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let count = read(fd, &buffer, buffer.count)
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            data += buffer[..<count]
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// 127.0.0.0/8, ::1 and IPv4-mapped 127.x: only these are this host's processes.
    static func isLoopback(_ host: String) -> Bool {
        host.hasPrefix("127.") || host == "::1" || host.lowercased().hasPrefix("::ffff:127.")
    }

    /// An address as `/proc/net/tcp{,6}` prints it: each 32-bit word of the address in host order (little-endian
    /// here), in hex capitals, then `:` and the port in four hex digits.
    static func procAddress(_ host: String, port: Int) -> String? {
        var bytes: [UInt8]
        var v4 = in_addr()
        var v6 = in6_addr()
        if inet_pton(AF_INET, host, &v4) == 1 {
            bytes = withUnsafeBytes(of: &v4) { Array($0) }
        } else if inet_pton(AF_INET6, host, &v6) == 1 {
            bytes = withUnsafeBytes(of: &v6) { Array($0) }
        } else {
            return nil
        }
        var text = ""
        for word in stride(from: 0, to: bytes.count, by: 4) {
            for byte in bytes[word..<word + 4].reversed() { text += String(format: "%02X", byte) }
        }
        return text + String(format: ":%04X", port)
    }

    /// Every socket of a `/proc/net/tcp{,6}` table, by `"local remote"` (as the table prints them): its owner's uid
    /// and its inode.
    static func sockets(in table: String) -> [String: (uid: UInt32, inode: UInt64)] {
        var sockets: [String: (uid: UInt32, inode: UInt64)] = [:]
        for line in table.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: " ")
            // sl local rem st tx:rx tr:when retrnsmt uid timeout inode …
            guard fields.count > 9, let uid = UInt32(fields[7]), let inode = UInt64(fields[9]), inode != 0
            else { continue }
            sockets["\(fields[1]) \(fields[2])"] = (uid, inode)
        }
        return sockets
    }
}
