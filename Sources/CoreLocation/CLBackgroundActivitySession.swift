import CoreLocationRuntime
import Foundation
import CoreLocationEngine

/// Declares that the app keeps using location in the background. A running Linux program is always
/// in use, so its updates go on with or without a session; what the session adds is the relaunch:
/// through locationd, an app that ends while holding one with its updates running is started again
/// at the next location update, and must make a session and restart its `liveUpdates` at launch
/// (decision 0048). It also reports authorization diagnostics.
public final class CLBackgroundActivitySession: Sendable {
    public struct Diagnostic: Sendable {
        public let authorizationDenied: Bool
        public let authorizationDeniedGlobally: Bool
        public let authorizationRequestInProgress: Bool
        public let authorizationRestricted: Bool
        public let insufficientlyInUse: Bool
        public let serviceSessionRequired: Bool
    }

    public final class Diagnostics: AsyncSequence, Sendable {
        public typealias Element = Diagnostic
        public typealias AsyncIterator = Iterator
        let source: AuthorizationDiagnosticsStream<Diagnostic>

        init(source: AuthorizationDiagnosticsStream<Diagnostic>) {
            self.source = source
        }

        public final func makeAsyncIterator() -> Iterator {
            Iterator(stream: source.makeStream().makeAsyncIterator())
        }

        public struct Iterator: AsyncIteratorProtocol {
            public typealias Element = Diagnostic
            var stream: AsyncStream<Diagnostic>.Iterator
            public mutating func next() async throws -> Diagnostic? { await stream.next() }
        }
    }

    public final let diagnostics: Diagnostics
    /// What locationd relaunches the app for (decision 0048).
    private let hold: SessionHold

    public convenience init() {
        self.init(runtime: SharedRuntime.current)
    }

    init(runtime: any LocationRuntime) {
        hold = SessionHold(runtime: runtime)
        diagnostics = Diagnostics(
            source: AuthorizationDiagnosticsStream(service: runtime.authorization) { authorization, inProgress in
                Diagnostic(
                    authorizationDenied: authorization.level == .denied,
                    authorizationDeniedGlobally: !CLLocationManager.locationServicesEnabled(),
                    authorizationRequestInProgress: inProgress,
                    authorizationRestricted: authorization.level == .restricted,
                    insufficientlyInUse: false,
                    serviceSessionRequired: authorization.level == .notDetermined
                )
            }
        )
    }

    public final func invalidate() {
        diagnostics.source.invalidate()
        hold.release()
    }

    deinit {
        diagnostics.source.invalidate()
        hold.release()
    }
}
