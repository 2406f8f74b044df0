import Foundation
import CoreLocationEngine
import Synchronization

/// Turns the app's authorization into a stream of diagnostic values: the current one at once, then
/// one after every change, until the owner is invalidated. Shared by `CLServiceSession` and
/// `CLBackgroundActivitySession`.
package final class AuthorizationDiagnosticsStream<Diagnostic: Sendable>: Sendable {
    private let service: AuthorizationService
    private let make: @Sendable (ClientAuthorization, Bool) -> Diagnostic
    private let continuations = Mutex<(open: [UUID: AsyncStream<Diagnostic>.Continuation], isInvalidated: Bool)>(([:], false))

    package init(service: AuthorizationService, make: @escaping @Sendable (ClientAuthorization, Bool) -> Diagnostic) {
        self.service = service
        self.make = make
    }

    package func makeStream() -> AsyncStream<Diagnostic> {
        let (stream, continuation) = AsyncStream<Diagnostic>.makeStream(bufferingPolicy: .bufferingNewest(32))
        let id = UUID()
        let invalidated = continuations.withLock { state -> Bool in
            if !state.isInvalidated { state.open[id] = continuation }
            return state.isInvalidated
        }
        if invalidated {
            continuation.finish()
            return stream
        }
        let make = self.make
        let service = self.service
        let token = service.addObserver { authorization in
            continuation.yield(make(authorization, service.isRequestInProgress))
        }
        continuation.onTermination = { [weak self] _ in
            service.removeObserver(token)
            _ = self?.continuations.withLock { $0.open.removeValue(forKey: id) }
        }
        continuation.yield(make(service.authorization, service.isRequestInProgress))
        return stream
    }

    package func invalidate() {
        let open = continuations.withLock { state in
            state.isInvalidated = true
            defer { state.open.removeAll() }
            return Array(state.open.values)
        }
        for continuation in open { continuation.finish() }
    }
}
