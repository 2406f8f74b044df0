import Foundation

/// The visits service: one `VisitDetector` sees every fix while any client monitors visits, and
/// each authorized client hears its arrival and completed visits. It asks the sources for
/// `visitAccuracyDemand` (100 m), as region monitoring does — but only now and then while the
/// monitoring is quiet (see `LocationEngine+Quiet`), so a departure is known to within a probe
/// interval and a stay costs the receiver a few percent of its time. A reduced-accuracy client
/// hears the visit's coarse cell centre, with the cell's covering radius as accuracy at least.
extension LocationEngine {
    mutating func handleVisitCommand(_ command: ClientCommand, from id: ClientID, into actions: inout [EngineAction]) {
        guard var client = clients[id] else { return }
        switch command {
        case .startVisits:
            if client.authorization.isDecidedAgainst {
                actions.append(.fail(id, .denied))
                return
            }
            client.visits = true
            if visitDetector == nil { visitDetector = VisitDetector(parameters: configuration.visits) }
        case .stopVisits:
            client.visits = false
        default:
            return
        }
        clients[id] = client
        releaseVisitDetectorIfUnused()
    }

    /// With nobody monitoring visits the detector goes; the next one starts afresh. A count kept by `ClientTable`,
    /// not a pass over every client: this runs at each unregister (issue 37).
    mutating func releaseVisitDetectorIfUnused() {
        if clients.visitsRequestedCount == 0 { visitDetector = nil }
    }

    mutating func observeVisits(_ fix: Fix, into actions: inout [EngineAction]) {
        guard var detector = visitDetector else { return }
        let visits = detector.observe(fix)
        visitDetector = detector
        guard !visits.isEmpty else { return }
        // Only the clients that hear visits, in client order (issue 37: this was a pass over every client).
        for id in clients.visitListenersInOrder() {
            guard let client = clients[id], client.visits, client.authorization.allowsLocation else { continue }
            for visit in visits {
                guard let released = client.isReduced ? coarsen(visit) : visit else { continue }
                actions.append(.visit(id, released))
            }
        }
    }

    /// The visit as `ReducedAccuracyGrid.coarsen` shows a fix: its cell's centre, with at least
    /// the cell's covering radius as accuracy.
    private func coarsen(_ visit: Visit) -> Visit? {
        let place = Fix(
            latitude: visit.latitude, longitude: visit.longitude, horizontalAccuracy: visit.horizontalAccuracy,
            timestamp: visit.decidedAt)
        guard let coarse = configuration.reducedGrid.coarsen(place) else { return nil }
        var released = visit
        released.latitude = coarse.latitude
        released.longitude = coarse.longitude
        released.horizontalAccuracy = coarse.horizontalAccuracy
        return released
    }
}
