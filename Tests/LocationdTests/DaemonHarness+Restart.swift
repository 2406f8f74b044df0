import CoreLocationDaemonProtocol
import CoreLocationGPSDTestSupport
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// For the tests that kill and restart the daemon: the waits throw when they run out.
extension DaemonHarness {
    /// Starts locationd and waits (bounded) until its socket accepts a connection.
    @discardableResult
    func startAndWait(_ arguments: [String], timeout: Double = 20, extra: [String: String] = [:]) async throws -> ChildProcess {
        let process = try await start(arguments, waitForSocket: false, extra: extra)
        let socket = socket
        let answered = await Polling.until(timeout: timeout, every: 0.05) {
            guard let fd = try? UnixSocket.connect(path: socket) else { return false }
            close(fd)
            return true
        }
        guard answered else { throw HarnessFailure(description: "locationd did not answer within \(timeout) s: \(logText)") }
        return process
    }

    /// SIGKILLs the running locationd and waits (bounded) until the kernel reaped or zombied it.
    func killDaemon() async throws {
        guard let pid = process.withLock({ $0?.processIdentifier }), pid > 0 else { return }
        Glibc.kill(pid, SIGKILL)
        guard await RunningApp.waitGone(pid, timeout: 10) else {
            throw HarnessFailure(description: "locationd \(pid) did not end within 10 s")
        }
    }

    /// Waits (bounded) until `predicate` holds, checking every 50 ms without blocking a thread.
    static func eventually(timeout: Double, _ predicate: () async -> Bool) async -> Bool {
        await Polling.until(timeout: timeout, every: 0.05, predicate)
    }
}

struct HarnessFailure: Error, CustomStringConvertible {
    var description: String
}
