import Foundation
import CoreLocationGeodesy

/// The significant-change service: an update once the device has moved at least
/// `significantDistance` (500 m, geodesic, between fix centres) since the last one, and never
/// sooner than `significantInterval` (300 s) after it. It asks the sources for only
/// `significantAccuracyDemand` (500 m), so the cheapest source that can tell is used, and it
/// ignores `distanceFilter` and `desiredAccuracy`. The first update is the cached fix when the
/// engine has one (of any age, as Apple's "may be the cached location"), else the next fix.
extension LocationEngine {
    mutating func handleSignificantCommand(
        _ command: ClientCommand, from id: ClientID, at now: Double, into actions: inout [EngineAction]
    ) {
        guard var client = clients[id] else { return }
        switch command {
        case .startSignificantChanges:
            if client.authorization.isDecidedAgainst {
                actions.append(.fail(id, .denied))
                return
            }
            let wasOn = client.significant
            client.significant = true
            clients[id] = client
            if !wasOn, client.authorization.allowsLocation, let latest {
                offerSignificant(latest.fix, to: id, at: now, into: &actions)
            }
        case .stopSignificantChanges:
            client.significant = false
            client.lastSignificant = nil
            clients[id] = client
        default:
            break
        }
    }

    mutating func offerSignificant(_ fix: Fix, to id: ClientID, at now: Double, into actions: inout [EngineAction]) {
        // Checked in place first: every fix comes here for every client, few of them watch significant
        // changes, and `clients[id]` copies the whole state.
        guard withClient(id, { $0.significant }) == true, let client = clients[id], client.authorization.allowsLocation,
            fix.horizontalAccuracy >= 0
        else { return }
        if let last = client.lastSignificant {
            guard now - last.at >= configuration.significantInterval else { return }
            let moved = Geodesic.wgs84.inverse(
                latitude1: last.fix.latitude, longitude1: last.fix.longitude,
                latitude2: fix.latitude, longitude2: fix.longitude
            ).distance
            guard moved >= configuration.significantDistance else { return }
        }
        var released = fix
        if client.isReduced {
            guard let coarse = configuration.reducedGrid.coarsen(fix) else { return }
            released = coarse
        }
        clients[id]?.lastSignificant = (fix, now)
        actions.append(
            .deliver(
                id,
                Delivery(
                    fixes: [released], isStationary: stationary.isStationary, accuracyLimited: client.isReduced,
                    isRequestedLocation: false
                )
            )
        )
    }
}
