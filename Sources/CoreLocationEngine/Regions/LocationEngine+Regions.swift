import Foundation

extension LocationEngine {
    /// Whether the app may have its regions watched: authorized, with full accuracy (Apple: reduced
    /// accuracy apps get `kCLErrorRegionMonitoringDenied`). When-in-use is enough: a Linux process
    /// that runs is "in use" (see `docs/decisions/0005-region-monitoring.md`).
    var regionsAuthorized: Bool {
        guard let appAuthorization else { return false }
        return appAuthorization.allowsLocation && appAuthorization.accuracy == .full
    }

    /// The app's monitored regions (of every group) with their states, sorted by group and identifier.
    public var monitoredRegions: [StoredRegion] { regions.all }

    /// Memory held by the spatial index of the regions, bytes.
    public var regionIndexBytes: Int { regions.index.estimatedBytes }

    mutating func handleRegionCommand(
        _ command: ClientCommand, from id: ClientID, at now: Double, into actions: inout [EngineAction]
    ) {
        switch command {
        case .startMonitoring(let region):
            if let failure = refusal(of: region) {
                actions.append(.region(id, .failed(region, failure)))
                return
            }
            guard regions.insert(region, state: .unknown) else {
                actions.append(.region(id, .failed(region, .invalidCenter)))
                return
            }
            actions.append(.region(id, .started(region)))
            actions.append(.storeRegion(StoredRegion(region: region, state: .unknown)))
            if regionsAuthorized, let latest, now - latest.at <= configuration.cachedFixMaxAge {
                evaluateRegions(latest.fix, at: now, into: &actions)
            }
        case .stopMonitoring(let identifier, let group):
            let key = MonitoredRegion.key(identifier: identifier, group: group)
            guard regions.entry(key) != nil else { return }
            regions.remove(key)
            actions.append(.forgetRegion(identifier: identifier, group: group))
        case .requestRegionState(let identifier, let group):
            let key = MonitoredRegion.key(identifier: identifier, group: group)
            guard let entry = regions.entry(key) else {
                let region = MonitoredRegion(
                    identifier: identifier, latitude: .nan, longitude: .nan, radius: .nan, group: group
                )
                actions.append(.region(id, .failed(region, .notMonitored)))
                return
            }
            if entry.state != .unknown || !regionsAuthorized {
                actions.append(.region(id, .determined(entry.region, entry.state, fix: nil)))
            } else {
                var request = regions.stateRequests[key] ?? ([], now + configuration.regionStateRequestBudget)
                if !request.clients.contains(id) { request.clients.append(id) }
                regions.stateRequests[key] = request
            }
        default:
            break
        }
    }

    /// Why `region` cannot be monitored, or nil when it can.
    func refusal(of region: MonitoredRegion) -> RegionFailure? {
        if let appAuthorization, appAuthorization.isDecidedAgainst || appAuthorization.accuracy == .reduced {
            return .denied
        }
        if region.identifier.isEmpty { return .emptyIdentifier }
        // Stored and sent with every notice: bounded (issue 37; decision 0087), the monitor's name too.
        if region.identifier.utf8.count > MonitoredRegion.maximumIdentifierBytes
            || region.group.utf8.count > MonitoredRegion.maximumIdentifierBytes + 8
        {
            return .identifierTooLong
        }
        guard region.latitude.isFinite, region.longitude.isFinite, abs(region.latitude) <= 90,
            abs(region.longitude) <= 180
        else { return .invalidCenter }
        guard region.radius.isFinite, region.radius > 0 else { return .invalidRadius }
        if region.radius > configuration.maximumRegionDistance { return .radiusTooLarge }
        // One limit for the app across its regions and every monitor's conditions (issue 37: a limit per group let
        // an app store any number under monitor names of its choosing; decision 0087).
        if regions.entry(region.key) == nil && regions.count >= configuration.regionLimit {
            return .tooManyRegions
        }
        return nil
    }

    mutating func restore(_ stored: [StoredRegion]) {
        // Accepted once, they stay: neither today's authorization nor a lowered limit drops them
        // (the store still holds them); only geometry the index cannot hold is skipped.
        for item in stored {
            _ = regions.insert(item.region, state: item.state)
        }
        regions.compactIndex()
    }

    /// A new valid fix for the monitoring services: screened for jumps (decision 0063), it feeds the
    /// stay (decision 0064) and the regions; a jump feeds neither (the older region rules see it).
    mutating func observeMonitoringFix(_ fix: Fix, at now: Double, into actions: inout [EngineAction]) {
        let accepted = jumpScreen.screen(fix) == .accepted
        if accepted {
            stay.observe(fix)
            regionStay.observe(fix)
        }
        // 0007's and 0019's rules, kept for comparison, see every fix as they did.
        if accepted || configuration.regionRule != .sustained { evaluateRegions(fix, at: now, into: &actions) }
    }

    /// Applies a valid fix to the regions and tells every client what changed.
    mutating func evaluateRegions(_ fix: Fix, at now: Double, into actions: inout [EngineAction]) {
        guard regionsAuthorized, regions.count > 0 else { return }
        let changes = regions.evaluate(
            fix, at: now, crossingAccuracy: crossingAccuracy(of: fix), configuration: configuration)
        guard !changes.isEmpty else { return }
        let everyone = clientOrder
        for change in changes {
            switch change {
            case .determined(let region, let state):
                regions.stateRequests[region.key] = nil
                for client in everyone { actions.append(.region(client, .determined(region, state, fix: fix))) }
                actions.append(.storeRegion(StoredRegion(region: region, state: state)))
            case .crossed(let region, let state):
                let notify = state == .inside ? region.notifyOnEntry : region.notifyOnExit
                for client in everyone {
                    if notify {
                        actions.append(
                            .region(client, state == .inside ? .entered(region, fix: fix) : .exited(region, fix: fix)))
                    }
                    actions.append(.region(client, .determined(region, state, fix: fix)))
                }
                actions.append(.storeRegion(StoredRegion(region: region, state: state)))
            }
        }
    }

    /// The uncertainty the crossing rule counts for a fix (decision 0062, third session): while the user stays
    /// somewhere and the fix belongs to the stay (within its envelope), at least `regionStayNoise` times the
    /// stay's spread — a fix that wanders with the stay tells no more than the stay's own wander does. A fix
    /// beyond the envelope, or any fix when not staying, counts with its stated accuracy (nil).
    func crossingAccuracy(of fix: Fix) -> Double? {
        guard configuration.regionRule == .sustained, configuration.regionStayNoise > 0,
            let spread = regionStay.spread,
            regionStay.holds(latitude: fix.latitude, longitude: fix.longitude, accuracy: fix.horizontalAccuracy)
        else { return nil }
        return max(fix.horizontalAccuracy, configuration.regionStayNoise * spread)
    }

    mutating func expireRegionRequests(at now: Double, into actions: inout [EngineAction]) {
        for key in regions.stateRequests.keys.sorted() {
            guard let request = regions.stateRequests[key], now >= request.deadline else { continue }
            regions.stateRequests[key] = nil
            guard let entry = regions.entry(key) else { continue }
            for client in request.clients where clients[client] != nil {
                actions.append(.region(client, .determined(entry.region, entry.state, fix: nil)))
            }
        }
    }
}
