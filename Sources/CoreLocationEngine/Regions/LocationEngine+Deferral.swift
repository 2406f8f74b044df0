import Foundation
import CoreLocationGeodesy

/// A client's pending deferral: the fixes held back, where it started, and when it must end.
struct Deferral: Sendable {
    var distance: Double
    var deadline: Double
    var start: Fix?
    var batch: [Fix] = []
}

/// Deferred updates (`allowDeferredLocationUpdates(untilTraveled:timeout:)`), with Apple's
/// preconditions: updates running (else `notUpdatingLocation`), desiredAccuracy Best or
/// BestForNavigation (else `accuracyTooLow`), distanceFilter none (else `distanceFiltered`).
/// While deferred, a client's fixes are held and delivered in one batch once it has travelled
/// `distance` metres (geodesic, from the first held fix) or `timeout` seconds have passed; then the
/// deferral finishes with no error. A new deferral cancels the previous one (`canceled`), as does
/// `disallowDeferredUpdates`; held fixes are delivered before the error.
/// Linux has no background state, so a deferral applies while requested (iOS defers only in the
/// background).
extension LocationEngine {
    mutating func handleDeferralCommand(
        _ command: ClientCommand, from id: ClientID, at now: Double, into actions: inout [EngineAction]
    ) {
        guard var client = clients[id] else { return }
        if client.deferral != nil {
            deliverHeldFixes(of: client, id, into: &actions)
            actions.append(.deferredFinished(id, .canceled))
            client.deferral = nil
            clients[id] = client
        }
        guard case let .allowDeferredUpdates(distance, timeout) = command else { return }
        guard let updates = client.updates, client.authorization.allowsLocation else {
            actions.append(.deferredFinished(id, .notUpdatingLocation))
            return
        }
        if !(updates.desiredAccuracy.isNaN || updates.desiredAccuracy < 0) {
            actions.append(.deferredFinished(id, .accuracyTooLow))
            return
        }
        if updates.distanceFilter > 0 {
            actions.append(.deferredFinished(id, .distanceFiltered))
            return
        }
        let limit = Double.greatestFiniteMagnitude
        client.deferral = Deferral(
            distance: distance.isNaN || distance <= 0 || distance >= limit ? .infinity : distance,
            deadline: timeout.isNaN || timeout <= 0 || timeout >= limit ? .infinity : now + timeout
        )
        clients[id] = client
    }

    mutating func deferFix(_ fix: Fix, for id: ClientID, at now: Double, into actions: inout [EngineAction]) {
        guard var client = clients[id], var deferral = client.deferral else { return }
        deferral.batch.append(fix)
        let start = deferral.start ?? fix
        deferral.start = start
        let travelled = Geodesic.wgs84.inverse(
            latitude1: start.latitude, longitude1: start.longitude, latitude2: fix.latitude, longitude2: fix.longitude
        ).distance
        if travelled >= deferral.distance || now >= deferral.deadline {
            actions.append(.deliver(id, delivery(deferral.batch, for: client, requested: false)))
            actions.append(.deferredFinished(id, nil))
            client.deferral = nil
        } else {
            client.deferral = deferral
        }
        clients[id] = client
    }

    /// Delivers what a client's deferral holds back, in one batch, if anything.
    func deliverHeldFixes(of client: ClientState, _ id: ClientID, into actions: inout [EngineAction]) {
        guard let batch = client.deferral?.batch, !batch.isEmpty else { return }
        actions.append(.deliver(id, delivery(batch, for: client, requested: false)))
    }

    mutating func expireDeferrals(at now: Double, into actions: inout [EngineAction]) {
        for id in clientOrder {
            guard var client = clients[id], let deferral = client.deferral, now >= deferral.deadline else { continue }
            deliverHeldFixes(of: client, id, into: &actions)
            actions.append(.deferredFinished(id, nil))
            client.deferral = nil
            clients[id] = client
        }
    }
}
