import Foundation
import NIOCore
#if canImport(Glibc)
import Glibc
#endif

/// Who is on the other end of a connection, from the kernel: uid and pid by `SO_PEERCRED`, the
/// executable by `/proc/PID/exe`. Nothing the client says about itself enters this. When the kernel does not
/// show the executable (another user's process, the daemon without ptrace rights), `kernelExecutable` is nil and
/// the daemon names the app from the executable the hello declares (`DaemonCore.attach`, decision 0011).
struct PeerIdentity: Sendable, Hashable {
    var uid: UInt32
    var pid: Int32
    /// `/proc/PID/exe`; nil when the daemon may not read it.
    var kernelExecutable: String?
    /// The client's `CORELOCATION_INFO_PLIST`, read from `/proc/PID/environ`.
    var infoPlist: String?
    /// What the hello says the executable is: used only when `kernelExecutable` is nil, only for the app's
    /// name within `uid`, never for Settings requests (`DaemonCore.isSettingsClient`).
    var declaredExecutable: String?

    /// The executable the app is named after: the kernel's, else the declared one (an absolute path), else a
    /// stand-in naming nothing the client chose.
    var executable: String {
        if let kernelExecutable { return kernelExecutable }
        if let declared = declaredExecutable, declared.hasPrefix("/"), declared.utf8.count <= 4096,
            !declared.contains("\u{0}")
        {
            return declared
        }
        return "unidentified"
    }

    init(uid: UInt32, pid: Int32, kernelExecutable: String?, infoPlist: String? = nil) {
        self.uid = uid
        self.pid = pid
        self.kernelExecutable = kernelExecutable
        self.infoPlist = infoPlist
    }

    init(uid: UInt32, pid: Int32, executable: String, infoPlist: String? = nil) {
        self.init(uid: uid, pid: pid, kernelExecutable: executable, infoPlist: infoPlist)
    }

    /// What `/proc/PID/exe` names, or nil when it cannot be read (tests pass a reader that fails).
    typealias ExecutableReader = @Sendable (Int32) -> String?
    static let procExecutable: ExecutableReader = { pid in
        try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe")
    }

    /// `struct ucred` (pid_t, uid_t, gid_t), which Glibc's Swift module does not export.
    struct Credentials: Sendable {
        var pid: Int32 = 0
        var uid: UInt32 = 0
        var gid: UInt32 = 0
    }

    /// `SO_PEERCRED` on Linux.
    static let peerCredentialsOption: Int32 = 17

    /// `SO_PEERPIDFD` (Linux 6.5): a pidfd of the process that connected.
    static let peerPidfdOption: Int32 = 77

    /// The pid a pidfd's process has now (`Pid:` of its fdinfo), or nil when it has exited (`-1`) or is unknown.
    static func pid(ofPidfd pidfd: Int32) -> Int32? {
        guard let data = FileManager.default.contents(atPath: "/proc/self/fdinfo/\(pidfd)") else { return nil }
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") where line.hasPrefix("Pid:") {
            return Int32(line.dropFirst(4).trimmingCharacters(in: .whitespaces)).flatMap { $0 > 0 ? $0 : nil }
        }
        return nil
    }

    init?(credentials: Credentials, executableOf reader: ExecutableReader = procExecutable) {
        guard credentials.pid > 0 else { return nil }
        let pid = credentials.pid
        self.init(
            uid: credentials.uid, pid: pid, kernelExecutable: reader(pid),
            infoPlist: Self.environment(of: pid)["CORELOCATION_INFO_PLIST"])
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
