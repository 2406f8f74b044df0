import Foundation
import NIOCore
#if canImport(Glibc)
import Glibc
#endif

/// Who is on the other end of a connection, from the kernel: uid and pid by `SO_PEERCRED`, the
/// executable by `/proc/PID/exe`. Nothing the client says about itself enters this.
struct PeerIdentity: Sendable, Hashable {
    var uid: UInt32
    var pid: Int32
    var executable: String
    /// The client's `CORELOCATION_INFO_PLIST`, read from `/proc/PID/environ`.
    var infoPlist: String?

    /// `struct ucred` (pid_t, uid_t, gid_t), which Glibc's Swift module does not export.
    struct Credentials: Sendable {
        var pid: Int32 = 0
        var uid: UInt32 = 0
        var gid: UInt32 = 0
    }

    /// `SO_PEERCRED` on Linux.
    static let peerCredentialsOption: Int32 = 17

    static func of(_ channel: any Channel) -> EventLoopFuture<PeerIdentity?> {
        let future: EventLoopFuture<Credentials?> = DirectSocket.socketOption(peerCredentialsOption, of: channel)
        return future.map { credentials -> PeerIdentity? in
            guard let credentials, credentials.pid > 0 else { return nil }
            let pid = credentials.pid
            guard let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe") else {
                return nil
            }
            return PeerIdentity(
                uid: credentials.uid, pid: pid, executable: executable, infoPlist: environment(of: pid)["CORELOCATION_INFO_PLIST"])
        }.recover { _ in nil }
    }

    /// A process's argv[1...] from `/proc/PID/cmdline`; nil when the process is gone, or has exited and
    /// waits to be reaped: a zombie's cmdline reads empty, and taken as "no arguments" it once made a launch
    /// target that started a killed reporter as a bare `locationctl` (a request the process sent just before
    /// its SIGKILL is handled after it).
    static func arguments(of pid: Int32) -> [String]? {
        guard let cmdline = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline"), !cmdline.isEmpty else {
            return nil
        }
        var argv = cmdline.split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        if argv.last == "" { argv.removeLast() }
        return Array(argv.dropFirst())
    }

    /// A process's environment (readable for processes of our own user, or by root).
    static func environment(of pid: Int32) -> [String: String] {
        guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/environ") else { return [:] }
        var result: [String: String] = [:]
        for entry in data.split(separator: 0) {
            guard let text = String(bytes: entry, encoding: .utf8), let equals = text.firstIndex(of: "=") else { continue }
            result[String(text[..<equals])] = String(text[text.index(after: equals)...])
        }
        return result
    }
}
