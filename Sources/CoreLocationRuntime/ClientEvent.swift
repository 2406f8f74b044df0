import CoreLocationBeacons
import CoreLocationDaemonProtocol
import CoreLocationEngine

/// What a client of the runtime hears: the one vocabulary from the engine to the façade. The engine's
/// actions become these once, where the engine runs (`EngineHost`); through locationd they cross the
/// socket as the wire's own messages and become these again in `DaemonClient`.
package enum ClientEvent: Sendable, Equatable {
    case delivery(Delivery)
    case failure(EngineFailure)
    /// The app's authorization changed (or a request ended).
    case authorization(ClientAuthorization)
    case region(RegionNotice)
    case deferredFinished(DeferralError?)
    case visit(Visit)
    /// Automatic pausing of this client's updates began (true) or ended (false).
    case paused(Bool)
    /// An event of one of the app's beacon regions in this process (every client hears it, as a crossing).
    case beaconRegion(BeaconRegionNotice)

    /// The client an engine action is for, and what it hears; nil for the actions the host performs itself
    /// (power, persistence). The one conversion from the engine's actions to the vocabulary.
    package static func of(_ action: EngineAction) -> (ClientID, ClientEvent)? {
        switch action {
        case let .deliver(id, delivery): (id, .delivery(delivery))
        case let .fail(id, failure): (id, .failure(failure))
        case let .region(id, notice): (id, .region(notice))
        case let .deferredFinished(id, error): (id, .deferredFinished(error))
        case let .visit(id, visit): (id, .visit(visit))
        case let .paused(id): (id, .paused(true))
        case let .resumed(id): (id, .paused(false))
        case .powerOn, .powerOff, .storeRegion, .forgetRegion: nil
        }
    }
}

/// An event of one of the app's beacon regions.
package enum BeaconRegionNotice: Sendable, Equatable {
    case determined(BeaconRegionSpec, BeaconRegionState)
    case entered(BeaconRegionSpec)
    case exited(BeaconRegionSpec)
}

/// Why a beacon region (or a monitor's beacon condition) is not watched.
package struct BeaconRegionRefusal: Sendable, Equatable, Error {
    package enum Reason: Sendable, Equatable {
        /// The app is denied or restricted, or location services are off.
        case denied
        /// No beacon scanner where the regions are watched.
        case unavailable
        /// Anything else (no database, …).
        case failed
    }

    package var reason: Reason
    /// What locationd said, when it refused; nil in process.
    package var message: String?

    package init(_ reason: Reason, message: String? = nil) {
        self.reason = reason
        self.message = message
    }
}

/// The answer to `requestState(for:)` of a beacon region.
package enum BeaconRegionAnswer: Sendable {
    /// The region (nil: the one the caller asked about) and its state.
    case state(BeaconRegionSpec?, BeaconRegionState)
    case refused(BeaconRegionRefusal)
}

/// What an event kept for the app carries to its taker.
package enum PendingPayload: Sendable {
    case region(RegionNotice)
    /// A significant change: the delivery the service made while the app did not run.
    case location(Delivery)
    case visit(Visit)
    /// A beacon region's entry (true) or exit (decision 0050).
    case beacon(entered: Bool, BeaconRegionSpec)
    /// A monitor's beacon condition's new state (decision 0053).
    case beaconCondition(BeaconRegionSpec, BeaconRegionState)
}

/// What a taker of a kept event tells the runtime. `handed` just before the app's code sees the event: from
/// then on no later process of the app is handed it, even if this one dies during the call. `done` once
/// that code returned (or will never see it): acknowledged when every taker is done. An event kept by a
/// taker (a monitor's stream the app has not read yet) is not handed: killed before the app read it, the
/// next process of the app gets it.
package struct PendingReceipt: Sendable {
    package let handed: @Sendable () -> Void
    package let done: @Sendable () -> Void

    package init(handed: @escaping @Sendable () -> Void, done: @escaping @Sendable () -> Void) {
        self.handed = handed
        self.done = done
    }
}

package typealias PendingConsumer = @Sendable (PendingPayload, PendingReceipt) -> Void
