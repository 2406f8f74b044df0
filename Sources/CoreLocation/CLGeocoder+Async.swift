import Foundation
import CoreLocationGeocoding
import Synchronization

extension CLGeocoder {
    /// The async forms need no run loop: they resume from the worker that finished the request.
    /// Cancelling the calling task cancels the request (`CLError.geocodeCanceled`).
    func run(_ request: GeocodingService.Request, locale: Locale?) async throws -> [CLPlacemark] {
        let id = Mutex<UInt64?>(nil)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let started = start(request, locale: locale) { result in continuation.resume(with: result) }
                id.withLock { $0 = started }
                // A task cancelled before the request started had its handler run with no id to cancel.
                if Task.isCancelled, let started { cancel(id: started) }
            }
        } onCancel: {
            if let started = id.withLock({ $0 }) { cancel(id: started) }
        }
    }
}
