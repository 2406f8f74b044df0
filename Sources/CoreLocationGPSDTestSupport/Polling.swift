import Foundation

/// Bounded waits for tests that sleep with `Task.sleep`, so they give their thread back while they wait.
///
/// A test process's cooperative pool has as many threads as the machine has cores (two on the CI machine).
/// A test that waits with `Thread.sleep` or a semaphore holds one of them for the whole wait, and in a
/// parallel run other suites' tasks, and the `Task`s a test starts itself, then wait for a thread: one run
/// measured the same 117 s stall in five unrelated tests. These waits hold no thread between polls.
public enum Polling {
    /// Polls `condition` every `interval` seconds until it holds (true) or `timeout` seconds pass (false,
    /// after one last look).
    public static func until(
        timeout: Double, every interval: Double = 0.02, _ condition: () async throws -> Bool
    ) async rethrows -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if try await condition() { return true }
            try? await Task.sleep(for: .seconds(interval))
        }
        return try await condition()
    }

    /// Sleeps `seconds` without holding a thread (a test's deliberate pause, e.g. to show that nothing
    /// arrives in that time).
    public static func pause(_ seconds: Double) async {
        try? await Task.sleep(for: .seconds(seconds))
    }

    /// Runs blocking work (a child process to its end, a pipe read to EOF) on a thread of its own and
    /// waits for it without holding a pool thread.
    public static func onOwnThread<Result: Sendable>(
        _ body: @escaping @Sendable () throws -> Result
    ) async throws -> Result {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread {
                continuation.resume(with: Swift.Result { try body() })
            }
            thread.start()
        }
    }
}
