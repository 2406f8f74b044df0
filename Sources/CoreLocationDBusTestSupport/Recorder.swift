import Synchronization

/// Bounded waits for tests that talk to real processes: the bound only stops a broken test from hanging.
public struct WaitTimedOut: Error, CustomStringConvertible {
    public var what: String
    public var description: String { "timed out waiting for \(what)" }
}

/// Collects values from callbacks (signal handlers, source events) and lets a test wait until enough arrived.
public final class Recorder<Value: Sendable>: Sendable {
    private struct Waiter {
        var id: Int
        var count: Int
        var continuation: CheckedContinuation<[Value], any Error>
    }

    private struct State {
        var values: [Value] = []
        var waiters: [Waiter] = []
        var nextID = 0
    }

    private let state = Mutex(State())

    public init() {}

    public var values: [Value] { state.withLock { $0.values } }

    public func append(_ value: Value) {
        let ready = state.withLock { state -> [(CheckedContinuation<[Value], any Error>, [Value])] in
            state.values.append(value)
            let values = state.values
            let ready = state.waiters.filter { $0.count <= values.count }
            state.waiters.removeAll { $0.count <= values.count }
            return ready.map { ($0.continuation, values) }
        }
        for (continuation, values) in ready { continuation.resume(returning: values) }
    }

    /// Waits until at least `count` values arrived and returns all of them; throws `WaitTimedOut` after `limit`.
    @discardableResult
    public func wait(
        for count: Int, within limit: Duration = .seconds(10), what: String = "values"
    ) async throws -> [Value] {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        let timer = Task { [weak self] in
            try await Task.sleep(for: limit)
            self?.expire(id, what: what)
        }
        defer { timer.cancel() }
        return try await withCheckedThrowingContinuation { continuation in
            let now = state.withLock { state -> [Value]? in
                if state.values.count >= count { return state.values }
                state.waiters.append(Waiter(id: id, count: count, continuation: continuation))
                return nil
            }
            if let now { continuation.resume(returning: now) }
        }
    }

    private func expire(_ id: Int, what: String) {
        let waiter = state.withLock { state -> Waiter? in
            guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
            return state.waiters.remove(at: index)
        }
        waiter?.continuation.resume(throwing: WaitTimedOut(what: what))
    }
}
