import CoreLocationDaemonProtocol
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Waiting without blocking the test process's cooperative threads (bounded `Task.sleep` loops;
/// child processes run on threads of their own), for the tests that kill and restart the daemon.
extension DaemonHarness {
    /// Starts locationd and waits (bounded, asynchronously) until its socket accepts a connection.
    @discardableResult
    func startAndWait(_ arguments: [String], timeout: Double = 20) async throws -> Process {
        let process = try start(arguments, waitForSocket: false)
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let fd = try? UnixSocket.connect(path: socket) {
                close(fd)
                return process
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw HarnessFailure(description: "locationd did not answer within \(timeout) s: \(logText)")
    }

    /// SIGKILLs the running locationd and waits (bounded) until the kernel reaped or zombied it.
    func killDaemon() async throws {
        guard let pid = process.withLock({ $0?.processIdentifier }), pid > 0 else { return }
        Glibc.kill(pid, SIGKILL)
        try await Self.waitGone(pid, timeout: 10)
    }

    /// Waits (bounded) until `pid` is gone or a zombie, read from /proc.
    static func waitGone(_ pid: Int32, timeout: Double) async throws {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { return }
            if stat[close...].dropFirst(2).first == "Z" { return }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw HarnessFailure(description: "process \(pid) did not end within \(timeout) s")
    }

    /// `run` on a thread of its own (it waits for the child's output and exit).
    func runDetached(_ tool: String, _ arguments: [String]) async throws -> (status: Int32, stdout: String, stderr: String) {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Result { try self.run(tool, arguments) })
            }
        }
    }

    /// Waits (bounded) until `predicate` holds, checking every 50 ms without blocking a thread.
    static func eventually(timeout: Double, _ predicate: () async -> Bool) async throws -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if await predicate() { return true }
            try await Task.sleep(for: .milliseconds(50))
        }
        return await predicate()
    }
}

struct HarnessFailure: Error, CustomStringConvertible {
    var description: String
}
