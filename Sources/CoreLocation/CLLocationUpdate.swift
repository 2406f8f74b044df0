import CoreLocationRuntime
import Foundation
import CoreLocationEngine

/// One element of `liveUpdates`: a location, or the reason there is none.
public struct CLLocationUpdate: Sendable {
    public let location: CLLocation?
    public let isStationary: Bool
    public let accuracyLimited: Bool
    public let authorizationDenied: Bool
    public let authorizationDeniedGlobally: Bool
    public let authorizationRequestInProgress: Bool
    public let authorizationRestricted: Bool
    public let insufficientlyInUse: Bool
    public let locationUnavailable: Bool
    public let serviceSessionRequired: Bool

    @available(*, deprecated, renamed: "isStationary")
    public var stationary: Bool { isStationary }

    init(
        location: CLLocation? = nil, isStationary: Bool = false, accuracyLimited: Bool = false,
        authorizationDenied: Bool = false, authorizationDeniedGlobally: Bool = false,
        authorizationRequestInProgress: Bool = false, authorizationRestricted: Bool = false,
        insufficientlyInUse: Bool = false, locationUnavailable: Bool = false, serviceSessionRequired: Bool = false
    ) {
        self.location = location
        self.isStationary = isStationary
        self.accuracyLimited = accuracyLimited
        self.authorizationDenied = authorizationDenied
        self.authorizationDeniedGlobally = authorizationDeniedGlobally
        self.authorizationRequestInProgress = authorizationRequestInProgress
        self.authorizationRestricted = authorizationRestricted
        self.insufficientlyInUse = insufficientlyInUse
        self.locationUnavailable = locationUnavailable
        self.serviceSessionRequired = serviceSessionRequired
    }

    /// The kind of movement the updates are for; it sets the accuracy and activity the engine uses.
    public enum LiveConfiguration: Hashable, Sendable {
        case `default`
        case automotiveNavigation
        case otherNavigation
        case fitness
        case airborne

        var request: UpdateRequest {
            switch self {
            case .default: UpdateRequest(desiredAccuracy: kCLLocationAccuracyBest, activityType: CLActivityType.other.rawValue)
            case .automotiveNavigation:
                UpdateRequest(desiredAccuracy: kCLLocationAccuracyBestForNavigation, activityType: CLActivityType.automotiveNavigation.rawValue)
            case .otherNavigation:
                UpdateRequest(desiredAccuracy: kCLLocationAccuracyBestForNavigation, activityType: CLActivityType.otherNavigation.rawValue)
            case .fitness: UpdateRequest(desiredAccuracy: kCLLocationAccuracyBest, activityType: CLActivityType.fitness.rawValue)
            case .airborne: UpdateRequest(desiredAccuracy: kCLLocationAccuracyBest, activityType: CLActivityType.airborne.rawValue)
            }
        }
    }

    /// Location updates for as long as you iterate. No run loop is needed.
    ///
    /// As on iOS 18, iterating holds an implicit when-in-use service session: if the app's
    /// authorization is not determined, iterating asks for it (see `CLServiceSession`).
    public static func liveUpdates(_ configuration: LiveConfiguration = .default) -> Updates {
        Updates(configuration: configuration, runtime: nil)
    }

    static func liveUpdates(_ configuration: LiveConfiguration = .default, runtime: any LocationRuntime) -> Updates {
        Updates(configuration: configuration, runtime: runtime)
    }

    public struct Updates: AsyncSequence, Sendable {
        public typealias Element = CLLocationUpdate
        public typealias AsyncIterator = Iterator

        let configuration: LiveConfiguration
        let runtime: (any LocationRuntime)?

        public func makeAsyncIterator() -> Iterator {
            Iterator(session: LiveUpdateSession(configuration: configuration, runtime: runtime ?? SharedRuntime.current))
        }

        public struct Iterator: AsyncIteratorProtocol {
            public typealias Element = CLLocationUpdate
            let session: LiveUpdateSession
            var stream: AsyncStream<CLLocationUpdate>.Iterator

            init(session: LiveUpdateSession) {
                self.session = session
                stream = session.stream.makeAsyncIterator()
            }

            public mutating func next() async throws -> CLLocationUpdate? {
                await stream.next()
            }
        }
    }
}

/// One engine client behind one `liveUpdates` iteration; it ends when the iterator goes away.
final class LiveUpdateSession: Sendable {
    let stream: AsyncStream<CLLocationUpdate>
    private let runtime: any LocationRuntime
    private let client: ClientID

    init(configuration: CLLocationUpdate.LiveConfiguration, runtime: any LocationRuntime) {
        self.runtime = runtime
        let (stream, continuation) = AsyncStream<CLLocationUpdate>.makeStream(bufferingPolicy: .bufferingNewest(256))
        self.stream = stream
        let authorization = runtime.authorization
        client = runtime.addClient(label: "liveUpdates") { event in
            switch event {
            case let .delivery(delivery):
                for fix in delivery.fixes {
                    continuation.yield(
                        CLLocationUpdate(
                            location: CLLocation(fix: fix), isStationary: delivery.isStationary,
                            accuracyLimited: delivery.accuracyLimited
                        )
                    )
                }
            case .failure(.locationUnknown):
                continuation.yield(CLLocationUpdate(locationUnavailable: true))
            case .failure(.denied):
                continuation.yield(Self.diagnostic(for: authorization.authorization, inProgress: false))
            case let .authorization(change):
                if !change.allowsLocation {
                    continuation.yield(Self.diagnostic(for: change, inProgress: authorization.isRequestInProgress))
                }
            case .region, .deferredFinished, .visit, .paused, .beaconRegion:
                break  // these concern managers' delegates only (live updates never ask to pause)
            }
        }
        let client = self.client
        continuation.onTermination = { _ in
            runtime.send(.unregister, from: client)
        }
        if !CLLocationManager.locationServicesEnabled() {
            continuation.yield(CLLocationUpdate(authorizationDeniedGlobally: true))
            return
        }
        runtime.send(.startUpdates(configuration.request), from: client)
        let current = authorization.authorization
        if current.level == .notDetermined {
            authorization.requestWhenInUse()
            if authorization.authorization.level == .notDetermined {
                continuation.yield(Self.diagnostic(for: authorization.authorization, inProgress: authorization.isRequestInProgress))
            }
        }
    }

    deinit {
        runtime.send(.unregister, from: client)
    }

    static func diagnostic(for authorization: ClientAuthorization, inProgress: Bool) -> CLLocationUpdate {
        CLLocationUpdate(
            authorizationDenied: authorization.level == .denied,
            authorizationRequestInProgress: inProgress,
            authorizationRestricted: authorization.level == .restricted,
            serviceSessionRequired: authorization.level == .notDetermined && !inProgress
        )
    }
}
