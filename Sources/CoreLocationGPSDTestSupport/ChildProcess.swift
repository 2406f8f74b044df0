import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Stopping and awaiting a test's child process without Foundation's reaping.
///
/// Foundation learns that a child exited on a dispatch queue, whose threads the test process's
/// cooperative pool shares. A test that waits with `waitUntilExit()` or polls `isRunning` on a
/// pool thread holds one of the threads that must run before either can change: two such waits
/// (two suites' `deinit`s) held both threads of a 2-core machine for their whole 10 s bound, and every
/// other test in the process waited with them. `/proc/PID/stat` says the same thing with no
/// thread's help.
public enum ChildProcess {
    /// Whether `pid` has exited: no longer listed, or a zombie waiting to be reaped.
    public static func hasExited(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return true }
        let state = stat[close...].dropFirst(2).first
        return state == "Z" || state == "X"
    }

    /// Waits at most `timeout` seconds, polling every 5 ms, until `pid` has exited; false if it has not.
    @discardableResult
    public static func waitExited(_ pid: Int32, timeout: Double) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while !hasExited(pid) {
            if Date() >= deadline { return false }
            usleep(5_000)
        }
        return true
    }

    /// Reads `handle` up to its first newline (a child saying which port it listens on) on a thread of its
    /// own, so a slow start holds no pool thread; nil when the child closes it first.
    public static func firstLine(of handle: FileHandle) async -> String? {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                var line = Data()
                while !line.contains(UInt8(ascii: "\n")) {
                    let chunk = handle.availableData
                    if chunk.isEmpty { return continuation.resume(returning: nil) }
                    line.append(chunk)
                }
                continuation.resume(returning: String(decoding: line, as: UTF8.self))
            }
        }
    }

    /// `kill(_:signal:timeout:)` for a child Foundation started, unless Foundation has reaped it already:
    /// its pid may then be another process's (pids wrap at 32 768 here), and a `stop()` often runs twice
    /// (a `defer` and a `deinit`).
    @discardableResult
    public static func kill(_ process: Process, signal: Int32 = SIGKILL, timeout: Double = 5) -> Bool {
        guard process.isRunning else { return true }
        return kill(process.processIdentifier, signal: signal, timeout: timeout)
    }

    /// Sends `signal` (SIGKILL: a child started with SIGTERM blocked, the test runner's mask, would
    /// ignore a SIGTERM) and waits at most `timeout` seconds until `pid` has exited. A killed child
    /// is gone in milliseconds, so the caller's thread is held only that long.
    @discardableResult
    public static func kill(_ pid: Int32, signal: Int32 = SIGKILL, timeout: Double = 5) -> Bool {
        guard pid > 0 else { return true }
        _ = Glibc.kill(pid, signal)
        return waitExited(pid, timeout: timeout)
    }
}
