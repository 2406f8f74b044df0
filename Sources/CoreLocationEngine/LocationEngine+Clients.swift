import Foundation
import CoreLocationGeodesy

extension LocationEngine {
    mutating func handle(_ command: ClientCommand, from id: ClientID, at now: Double, into actions: inout [EngineAction]) {
        switch command {
        case let .register(label, authorization):
            if clients.updateValue(ClientState(label: label, authorization: authorization), forKey: id) == nil {
                clientOrder.insert(id, at: orderIndex(of: id))
            }
            appAuthorization = authorization
        case .startMonitoring, .stopMonitoring, .requestRegionState:
            handleRegionCommand(command, from: id, at: now, into: &actions)
        case .startSignificantChanges, .stopSignificantChanges:
            handleSignificantCommand(command, from: id, at: now, into: &actions)
        case .allowDeferredUpdates, .disallowDeferredUpdates:
            handleDeferralCommand(command, from: id, at: now, into: &actions)
        case .startVisits, .stopVisits:
            handleVisitCommand(command, from: id, into: &actions)
        case let .setAuthorization(authorization):
            appAuthorization = authorization
            guard var client = clients[id] else { return }
            let wasAllowed = client.authorization.allowsLocation
            client.authorization = authorization
            if authorization.isDecidedAgainst {
                if client.updates != nil || client.pending != nil {
                    actions.append(.fail(id, .denied))
                }
                if client.significant { actions.append(.fail(id, .denied)) }
                client.pending = nil
                client.unknownDeadline = nil
                client.lastCoarse = nil
                client.significant = false
                client.lastSignificant = nil
                client.pause = nil
                if client.deferral != nil {
                    client.deferral = nil
                    actions.append(.deferredFinished(id, .failed))
                }
            }
            clients[id] = client
            if authorization.allowsLocation && !wasAllowed {
                activate(id, at: now, into: &actions)
            }
        case let .startUpdates(request):
            guard var client = clients[id] else { return }
            // Starting again (or changing the settings) ends an automatic pause at once.
            let wasUpdating = client.updates != nil && client.pause == nil
            client.updates = request
            client.pause = nil
            client.updatesSince = now
            clients[id] = client
            if client.authorization.isDecidedAgainst {
                actions.append(.fail(id, .denied))
            } else if client.authorization.allowsLocation && !wasUpdating {
                activate(id, at: now, into: &actions)
            }
        case .stopUpdates:
            guard var client = clients[id] else { return }
            if client.deferral != nil {
                // Apple: stopping updates ends the deferral; what was batched is delivered first.
                deliverHeldFixes(of: client, id, into: &actions)
                actions.append(.deferredFinished(id, .notUpdatingLocation))
                client.deferral = nil
            }
            client.updates = nil
            client.pause = nil
            client.lastDelivered = nil
            if client.pending == nil { client.unknownDeadline = nil }
            clients[id] = client
        case let .requestLocation(request):
            guard var client = clients[id] else { return }
            if client.authorization.isDecidedAgainst {
                actions.append(.fail(id, .denied))
                return
            }
            client.pending = PendingRequest(request: request, startedAt: nil, best: nil)
            clients[id] = client
            if client.authorization.allowsLocation {
                activate(id, at: now, into: &actions)
            }
        case .unregister:
            removeClients([id])
        }
    }

    /// Where `id` is, or goes, in `clientOrder`: a binary search (issue 37: a linear one made N registers
    /// quadratic). Identifiers are handed out increasing, so a new client goes at the end, with no move.
    func orderIndex(of id: ClientID) -> Int {
        var low = 0
        var high = clientOrder.count
        while low < high {
            let middle = (low + high) / 2
            if clientOrder[middle].rawValue < id.rawValue { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// Clients go, in one engine step however many they are (a connection's clients when it closes: one
    /// unregister each cost a pass over every client per client).
    mutating func removeClients(_ ids: [ClientID]) {
        var gone = Set<ClientID>()
        for id in ids where clients.removeValue(forKey: id) != nil { gone.insert(id) }
        guard !gone.isEmpty else { return }
        if gone.count == 1, let id = gone.first {
            let index = orderIndex(of: id)
            if index < clientOrder.count, clientOrder[index] == id { clientOrder.remove(at: index) }
        } else {
            clientOrder.removeAll { gone.contains($0) }
        }
        releaseVisitDetectorIfUnused()
    }

    /// A client just became able to receive: start its timers and serve what the cache allows.
    private mutating func activate(_ id: ClientID, at now: Double, into actions: inout [EngineAction]) {
        guard var client = clients[id], client.isActive else { return }
        client.unknownDeadline = client.unknownDeadline ?? now + configuration.locationUnknownTimeout
        if client.pending != nil, client.pending?.startedAt == nil {
            client.pending?.startedAt = now
        }
        clients[id] = client

        if client.isReduced, let coarse = client.lastCoarse,
            now - coarse.releasedAt < configuration.reducedRefreshInterval
        {
            // Within the refresh interval a reduced client hears the same coarse fix again.
            if clients[id]?.pending != nil {
                clients[id]?.pending = nil
                actions.append(.deliver(id, delivery([coarse.fix], for: client, requested: true)))
            }
            if client.updates != nil {
                actions.append(.deliver(id, delivery([coarse.fix], for: client, requested: false)))
            }
            return
        }
        guard let latest, now - latest.at <= configuration.cachedFixMaxAge else { return }
        offer(latest.fix, to: id, at: now, isCached: true, into: &actions)
    }

    /// Offers one fix to one client: answers its pending request and/or its updates.
    ///
    /// Every fix goes through here for every client, so the client's state is read and changed in place
    /// (`withClient`), not copied out and back (it holds several fixes).
    mutating func offer(_ fix: Fix, to id: ClientID, at now: Double, isCached: Bool, into actions: inout [EngineAction]) {
        let timeout = configuration.locationUnknownTimeout
        let hasRequest = withClient(id) { client -> Bool? in
            guard client.isActive else { return nil }
            if !isCached { client.unknownDeadline = now + timeout }
            return client.pending?.startedAt != nil
        }
        guard let hasRequest = hasRequest ?? nil else { return }
        if hasRequest {
            offerToRequest(fix, of: id, at: now, into: &actions)
        }
        offerToUpdates(fix, of: id, at: now, into: &actions)
    }

    /// Runs `body` on a client's state in place; nil for an unknown client. Reading a field through
    /// `clients[id]` copies the whole state (its getter returns it).
    mutating func withClient<Result>(_ id: ClientID, _ body: (inout ClientState) -> Result) -> Result? {
        clients.modify(id, body)
    }

    /// The pending `requestLocation`: the best fix so far is kept; one meeting the accuracy answers it.
    private mutating func offerToRequest(_ fix: Fix, of id: ClientID, at now: Double, into actions: inout [EngineAction]) {
        guard var client = clients[id], var pending = client.pending else { return }
        if fix.horizontalAccuracy >= 0, pending.best.map({ fix.horizontalAccuracy <= $0.horizontalAccuracy }) ?? true {
            pending.best = fix
        }
        guard meets(fix, desiredAccuracy: pending.request.desiredAccuracy, reduced: client.isReduced) else {
            clients[id]?.pending = pending
            return
        }
        client.pending = nil
        clients[id] = client
        if let delivered = release(fix, to: id, at: now) {
            actions.append(.deliver(id, delivery([delivered], for: client, requested: true)))
        }
    }

    /// The client's updates: every fix, past the distance filter, coarse for a reduced client.
    private mutating func offerToUpdates(_ fix: Fix, of id: ClientID, at now: Double, into actions: inout [EngineAction]) {
        enum Outcome { case nothing, coarse, held, delivered }
        let refresh = configuration.reducedRefreshInterval
        let outcome = withClient(id) { client -> Outcome in
            guard let updates = client.updates, client.pause == nil, fix.horizontalAccuracy >= 0 else { return .nothing }
            if client.isReduced {
                if let coarse = client.lastCoarse, now - coarse.releasedAt < refresh { return .nothing }
                return .coarse
            }
            if let last = client.lastDelivered, updates.distanceFilter > 0 {
                let moved = Geodesic.wgs84.inverse(
                    latitude1: last.latitude, longitude1: last.longitude, latitude2: fix.latitude, longitude2: fix.longitude
                ).distance
                guard moved >= updates.distanceFilter else { return .nothing }
            }
            client.lastDelivered = fix
            return client.deferral != nil ? .held : .delivered
        }
        switch outcome ?? .nothing {
        case .nothing: break
        case .coarse:
            if let delivered = release(fix, to: id, at: now) {
                actions.append(.deliver(id, delivery([delivered], accuracyLimited: true, requested: false)))
            }
        case .held: deferFix(fix, for: id, at: now, into: &actions)
        case .delivered: actions.append(.deliver(id, delivery([fix], accuracyLimited: false, requested: false)))
        }
    }

    /// What a client may see of a fix: itself, or for a reduced client its coarse cell centre.
    private mutating func release(_ fix: Fix, to id: ClientID, at now: Double) -> Fix? {
        guard let client = clients[id] else { return nil }
        guard client.isReduced else { return fix }
        if let coarse = client.lastCoarse, now - coarse.releasedAt < configuration.reducedRefreshInterval {
            return coarse.fix
        }
        guard let coarse = configuration.reducedGrid.coarsen(fix) else { return nil }
        clients[id]?.lastCoarse = (coarse, now)
        return coarse
    }

    func delivery(_ fixes: [Fix], for client: ClientState, requested: Bool) -> Delivery {
        delivery(fixes, accuracyLimited: client.isReduced, requested: requested)
    }

    func delivery(_ fixes: [Fix], accuracyLimited: Bool, requested: Bool) -> Delivery {
        Delivery(
            fixes: fixes, isStationary: stationary.isStationary, accuracyLimited: accuracyLimited,
            isRequestedLocation: requested)
    }

    /// Whether a fix is good enough to answer `requestLocation`.
    func meets(_ fix: Fix, desiredAccuracy: Double, reduced: Bool) -> Bool {
        guard fix.horizontalAccuracy >= 0 else { return false }
        if reduced { return true }
        let threshold: Double
        if desiredAccuracy.isNaN || desiredAccuracy <= 0 {
            // "Best": as good as the best source we have can promise.
            threshold = sources.values.filter { !$0.isFinished }.map(\.descriptor.expectedAccuracy).min() ?? 0
        } else {
            threshold = desiredAccuracy
        }
        return fix.horizontalAccuracy <= threshold
    }

    mutating func expireTimers(at now: Double, into actions: inout [EngineAction]) {
        for id in clientOrder {
            guard var client = clients[id] else { continue }
            if let pending = client.pending, let start = pending.startedAt,
                now >= start + configuration.requestLocationBudget
            {
                client.pending = nil
                clients[id] = client
                if let best = pending.best, let delivered = release(best, to: id, at: now) {
                    actions.append(.deliver(id, delivery([delivered], for: client, requested: true)))
                } else {
                    actions.append(.fail(id, .locationUnknown))
                    // One answer per request: the unknown timer need not fire again for it.
                    if client.updates == nil { clients[id]?.unknownDeadline = nil }
                    continue
                }
                client = clients[id] ?? client
            }
            if let deadline = client.unknownDeadline, now >= deadline {
                client.unknownDeadline = nil
                clients[id] = client
                if client.isActive { actions.append(.fail(id, .locationUnknown)) }
            }
        }
    }
}
