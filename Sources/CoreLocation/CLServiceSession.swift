import CoreLocationRuntime
import Foundation
import CoreLocationEngine

/// Declares that the app needs location services at a given authorization level while the
/// session lives, and asks for that authorization when it is not determined yet. Through
/// locationd, an app that ends while holding one with its updates running is relaunched at the
/// next location update, as with `CLBackgroundActivitySession` (decision 0048).
public final class CLServiceSession: Sendable {
    public enum AuthorizationRequirement: Hashable, Sendable {
        case none
        case whenInUse
        case always
    }

    public struct Diagnostic: Sendable {
        public let authorizationDenied: Bool
        public let authorizationDeniedGlobally: Bool
        public let authorizationRequestInProgress: Bool
        public let authorizationRestricted: Bool
        /// The app is not in use: never on Linux, where a running program is in use.
        public let insufficientlyInUse: Bool
        public let serviceSessionRequired: Bool
        public let fullAccuracyDenied: Bool
        public let alwaysAuthorizationDenied: Bool
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

    let authorizationRequirement: AuthorizationRequirement
    let fullAccuracyPurposeKey: String?
    public final let diagnostics: Diagnostics
    /// What locationd relaunches the app for (decision 0048).
    private let hold: SessionHold

    public convenience init(authorization: AuthorizationRequirement) {
        self.init(authorization: authorization, purposeKey: nil, runtime: SharedRuntime.current)
    }

    public convenience init(authorization: AuthorizationRequirement, fullAccuracyPurposeKey: String) {
        self.init(authorization: authorization, purposeKey: fullAccuracyPurposeKey, runtime: SharedRuntime.current)
    }

    init(authorization requirement: AuthorizationRequirement, purposeKey: String?, runtime: any LocationRuntime) {
        authorizationRequirement = requirement
        fullAccuracyPurposeKey = purposeKey
        let service = runtime.authorization
        hold = SessionHold(runtime: runtime)
        diagnostics = Diagnostics(
            source: AuthorizationDiagnosticsStream(service: service) { authorization, inProgress in
                Diagnostic(
                    authorizationDenied: authorization.level == .denied,
                    authorizationDeniedGlobally: !CLLocationManager.locationServicesEnabled(),
                    authorizationRequestInProgress: inProgress,
                    authorizationRestricted: authorization.level == .restricted,
                    insufficientlyInUse: false,
                    serviceSessionRequired: false,
                    fullAccuracyDenied: purposeKey != nil && authorization.allowsLocation && authorization.accuracy == .reduced,
                    alwaysAuthorizationDenied: requirement == .always && authorization.level != .always
                        && authorization.level != .notDetermined
                )
            }
        )
        switch requirement {
        case .none: break
        case .whenInUse: service.requestWhenInUse()
        case .always: service.requestAlways()
        }
        if let purposeKey {
            service.requestTemporaryFullAccuracy(purposeKey: purposeKey) { _ in }
        }
    }

    /// Ends the session; every diagnostics iteration finishes.
    public final func invalidate() {
        diagnostics.source.invalidate()
        hold.release()
    }

    deinit {
        diagnostics.source.invalidate()
        hold.release()
    }
}
