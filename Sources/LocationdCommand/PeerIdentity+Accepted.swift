import Foundation
import NIOCore
#if canImport(Glibc)
import Glibc
#endif

/// The peer of a connection on the daemon's own socket, read from the accepted descriptor by the thread that
/// accepted it, before anyone reads a byte of the connection (decision 0100). The daemon decides there whether the
/// connection is a Settings connection (whose every byte's sender is then checked, `CredentialRelay`), and the
/// identity the connection keeps is this same read: a second read of `/proc/PID/exe` later could name another
/// program (an exec in between) than the one the decision was made on.
extension PeerIdentity {
    /// What the kernel said at accept.
    struct Accepted: Sendable {
        var credentials: Credentials
        /// `/proc/PID/exe`, read after accept; nil when unreadable, or when the pid's process was no longer the one
        /// that connected once it was read (the pid reused).
        var executable: String?
        /// `SO_PEERPIDFD`, open and the caller's to close; -1 when the kernel gives none (Linux before 6.5).
        var pidfd: Int32
    }

    /// The peer of an accepted socket, or nil when the kernel names no process (`SO_PEERCRED` without a pid).
    static func accepted(_ descriptor: Int32, executableOf reader: ExecutableReader = procExecutable) -> Accepted? {
        var credentials = Credentials()
        var length = socklen_t(MemoryLayout<Credentials>.size)
        guard getsockopt(descriptor, SOL_SOCKET, peerCredentialsOption, &credentials, &length) == 0,
            credentials.pid > 0
        else { return nil }
        var pidfd: Int32 = -1
        var pidfdLength = socklen_t(MemoryLayout<Int32>.size)
        if getsockopt(descriptor, SOL_SOCKET, peerPidfdOption, &pidfd, &pidfdLength) != 0 { pidfd = -1 }
        var executable = reader(credentials.pid)
        // The executable counts only if the process that connected still has the pid after the read (else it was reused).
        if pidfd >= 0, pid(ofPidfd: pidfd) != credentials.pid { executable = nil }
        return Accepted(credentials: credentials, executable: executable, pidfd: pidfd)
    }

    /// The identity of an accepted peer: the kernel's facts read at accept, with the client's
    /// `CORELOCATION_INFO_PLIST` read now from `/proc/PID/environ`, off the event loop (decision 0069).
    static func of(_ accepted: Accepted, on eventLoop: any EventLoop) -> EventLoopFuture<PeerIdentity?> {
        let promise = eventLoop.makePromise(of: PeerIdentity?.self)
        DaemonCore.identityQueue.async {
            let pid = accepted.credentials.pid
            promise.succeed(
                PeerIdentity(
                    uid: accepted.credentials.uid, pid: pid, kernelExecutable: accepted.executable,
                    infoPlist: environment(of: pid)["CORELOCATION_INFO_PLIST"]))
        }
        return promise.futureResult
    }
}
