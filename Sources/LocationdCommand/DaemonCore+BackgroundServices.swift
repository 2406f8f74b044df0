import CoreLocationRuntime
import CoreLocationDaemonProtocol
import CoreLocationEngine
import CoreLocationStorage
import Foundation

/// Significant changes and visits that outlive the app (issue 11, decision 0039): once an app
/// with a launch target starts one of them, the app's background client runs it too, for as long
/// as the app does not stop it, across the app's exits and the daemon's restarts. What the
/// background client hears while no connection of the app runs the service itself becomes a
/// pending event (`significant-change`, `visit`); while one does, the app hears it live and the
/// background copy is dropped. Standard updates are never held nor stored.
extension DaemonCore {
    static let significantService = "significant-changes"
    static let visitsService = "visits"

    /// A connection started or stopped significant changes or visits: the app's choice is stored
    /// and the background client follows it.
    func backgroundService(_ command: ClientCommand, app: App) {
        guard let backgroundStore, app.backgroundClient.withLock({ $0 }) != nil else { return }
        let change: (service: String, on: Bool)
        switch command {
        case .startSignificantChanges: change = (Self.significantService, true)
        case .stopSignificantChanges: change = (Self.significantService, false)
        case .startVisits: change = (Self.visitsService, true)
        case .stopVisits: change = (Self.visitsService, false)
        default: return
        }
        do {
            try backgroundStore.setService(change.service, on: change.on, uid: app.key.uid, appID: app.key.appID)
        } catch {
            logger.error("Cannot store a background service", metadata: ["app": "\(app.key)", "error": "\(error)"])
        }
        holdServices(app, restarting: false)
    }

    /// Makes the background client run exactly the services stored for the app. `restarting`:
    /// the daemon starts them again without the app's last significant fix, so the first one the
    /// service reports is its new baseline and is not stored as a change.
    func holdServices(_ app: App, restarting: Bool) {
        guard let backgroundStore, let client = app.backgroundClient.withLock({ $0 }) else { return }
        let wanted: Set<String>
        do { wanted = try backgroundStore.services(uid: app.key.uid, appID: app.key.appID) } catch {
            logger.error("Cannot read background services", metadata: ["app": "\(app.key)", "error": "\(error)"])
            return
        }
        let (start, stop) = app.heldServices.withLock { held in
            defer { held = wanted }
            return (wanted.subtracting(held), held.subtracting(wanted))
        }
        for service in start.sorted() {
            if service == Self.significantService {
                if restarting { app.significantBaseline.withLock { $0 = true } }
                app.runtime.send(.startSignificantChanges, from: client)
            } else if service == Self.visitsService {
                app.runtime.send(.startVisits, from: client)
            } else if service == Self.sessionService {
                runSessionUpdates(app, true)
            }
        }
        for service in stop.sorted() {
            if service == Self.significantService {
                app.runtime.send(.stopSignificantChanges, from: client)
            } else if service == Self.visitsService {
                app.runtime.send(.stopVisits, from: client)
            } else if service == Self.sessionService {
                runSessionUpdates(app, false)
            }
        }
        if !start.isEmpty || !stop.isEmpty {
            logger.info(
                "Background services", metadata: ["app": "\(app.key)", "services": "\(wanted.sorted())"])
        }
    }

    /// Whether the background client's `service` event becomes a pending event: the app may have
    /// its location, the event is not the restarted service's baseline, and no connection of the
    /// app runs the service (it hears it live).
    func takesInBackground(_ app: App, _ service: String) -> Bool {
        if service == Self.significantService,
            app.significantBaseline.withLock({ baseline in defer { baseline = false }; return baseline })
        {
            return false
        }
        guard effectiveAuthorization(app).allowsLocation else { return false }
        let live = app.peers.withLock { peers in
            peers.values.contains { peer in
                !peer.isClosed && peer.state.withLock { $0.services.values.contains { $0.contains(service) } }
            }
        }
        return !live
    }

    /// A stored event as the `pending` event sent to the app: the payload as the database keeps it (the engine's
    /// types), in the wire's.
    static func pendingMessage(_ event: PendingEvent) -> DaemonEvent {
        let decoder = JSONDecoder()
        switch event.kind {
        case PendingKind.significantChange:
            return .pending(
                sequence: event.sequence, kind: event.kind, region: nil,
                location: (try? decoder.decode(Delivery.self, from: event.payload)).map(WireDelivery.init))
        case PendingKind.visit:
            return .pending(
                sequence: event.sequence, kind: event.kind, region: nil,
                visit: (try? decoder.decode(Visit.self, from: event.payload)).map(WireVisit.init))
        case PendingKind.beaconEnter, PendingKind.beaconExit:
            return .pending(
                sequence: event.sequence, kind: event.kind, region: nil,
                beacon: try? decoder.decode(BeaconRegionSpec.self, from: event.payload))
        default:
            // A monitor's change: a circular condition's region notice, or a beacon condition's state.
            if let notice = try? decoder.decode(RegionNotice.self, from: event.payload) {
                return .pending(sequence: event.sequence, kind: event.kind, region: WireRegionNotice(notice))
            }
            let change = try? decoder.decode(BeaconConditionState.self, from: event.payload)
            return .pending(
                sequence: event.sequence, kind: event.kind, region: nil, beacon: change?.condition,
                beaconState: change?.state)
        }
    }
}
