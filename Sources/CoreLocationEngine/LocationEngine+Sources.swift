import Foundation

extension LocationEngine {
    mutating func handle(_ report: SourceEvent, from id: SourceID, at now: Double, into actions: inout [EngineAction]) {
        // The state is changed in place: a fix is the engine's most frequent input, and a copy of the
        // state (its descriptor's strings, its last fix) costs retains and releases.
        guard let index = sources.index(forKey: id) else { return }
        switch report {
        case let .pressure(sample):
            sources.values[index].isAvailable = true
            sources.values[index].lastProblem = nil
            altitude.observe(sample, at: now)
            fusion?.observe(sample, at: now)
        case let .fix(measured):
            // Barometric altitude and floor (decisions 0032, 0033); unchanged without a barometer.
            let fix = altitude.fuse(measured, at: now)
            // A source that is off may still flush one last fix; it is real, so it is used.
            sources.values[index].lastFix = fix
            sources.values[index].lastFixAt = now
            sources.values[index].fixCount += 1
            sources.values[index].isAvailable = true
            guard fix.horizontalAccuracy >= 0, fix.latitude.isFinite, fix.longitude.isFinite,
                abs(fix.latitude) <= 90, abs(fix.longitude) <= 180
            else { return }
            // With an IMU, a GNSS-class fix feeds the fusion filter, which says what goes out (decision 0095);
            // without one (`fusion` nil) the fix goes out as it came.
            let delivered = fusion == nil ? fix : fused(fix, measured: measured, from: index, at: now)
            // Several sources reporting: the current one keeps delivering unless this fix is better.
            guard !keepsCurrentSource(over: fix, from: id, at: now) else { return }
            if fusion != nil, keepsDeadReckoning(over: fix, from: id, at: now) { return }
            deliveringSource = id
            deliver(delivered, at: now, into: &actions)
        case let .inertial(samples):
            sources.values[index].isAvailable = true
            sources.values[index].lastProblem = nil
            observeInertial(samples, from: index, at: now, into: &actions)
        case let .unavailable(reason):
            sources.values[index].isAvailable = false
            sources.values[index].lastProblem = reason
            if sources.values[index].descriptor.isInertial { fusion = nil }
        case .finished:
            var source = sources.values[index]
            source.isFinished = true
            source.isAvailable = false
            source.lastProblem = "finished"
            if source.powered {
                if let since = source.poweredSince { source.onTime += now - since }
                // Tell the shell too, so it releases whatever the source holds.
                actions.append(.powerOff(id))
            }
            source.powered = false
            source.poweredSince = nil
            sources.values[index] = source
        }
    }

    /// Delivers a fix to every client and the services that watch fixes: the fix becomes the latest.
    mutating func deliver(_ fix: Fix, at now: Double, into actions: inout [EngineAction]) {
        latest = (fix, now)
        stationary.observe(fix, at: now)
        pauseDetector.observe(fix, at: now)
        // Room for a delivery to every client at once, not grown (and moved) four times on the way to eight (0097).
        actions.reserveCapacity(actions.count + clientOrder.count)
        for client in clientOrder {
            offer(fix, to: client, at: now, isCached: false, into: &actions)
            offerSignificant(fix, to: client, at: now, into: &actions)
        }
        // Paused clients heard nothing above; a fix outside their stationary region resumes them.
        watchStationaryRegions(fix, at: now, into: &actions)
        pauseStillClients(at: now, into: &actions)
        observeMonitoringFix(fix, at: now, into: &actions)
        observeVisits(fix, into: &actions)
        updateQuietMonitoring(at: now)
    }

    /// Powers the cheapest source that meets the most demanding active client, and nothing else.
    ///
    /// Runs after every input, so it first checks whether anything the choice depends on changed: the
    /// demanded accuracy and the sources' availability (their descriptors never change). When neither
    /// did since the last selection, the sources powered then are still the ones wanted.
    mutating func selectSources(at now: Double, into actions: inout [EngineAction]) {
        let key = SourceSelectionKey(demand: demandedAccuracy, order: sourceOrder, sources: sources)
        if let key, key == selection { return }
        let wanted = chooseSources()
        for id in sourceOrder {
            guard let index = sources.index(forKey: id) else { continue }
            let shouldPower = wanted.contains(id)
            if shouldPower && !sources.values[index].powered {
                sources.values[index].powered = true
                sources.values[index].poweredSince = now
                actions.append(.powerOn(id))
            } else if !shouldPower && sources.values[index].powered {
                sources.values[index].powered = false
                // A filter whose IMU is off knows nothing new: it starts afresh when the IMU is powered again.
                if sources.values[index].descriptor.isInertial { fusion = nil }
                if let since = sources.values[index].poweredSince { sources.values[index].onTime += now - since }
                sources.values[index].poweredSince = nil
                actions.append(.powerOff(id))
            }
        }
        selection = key
    }

    /// The accuracy, metres, the active clients need: 0 means "the best there is"; nil, nobody. O(1) in the
    /// clients: what each contributes is kept as it changes (`ClientTable`).
    var demandedAccuracy: Double? {
        var demand = clients.leastActiveDemand
        func need(_ metres: Double) { demand = min(demand ?? .infinity, metres) }
        // Quiet monitoring asks for nothing between its looks.
        let monitoringLooks = monitoringProbe?.isProbing ?? true
        if clients.pauseProbingCount > 0 { need(configuration.pauseProbeAccuracy) }
        if monitoringLooks && clients.significantCount > 0 { need(configuration.significantAccuracyDemand) }
        if monitoringLooks && clients.visitsCount > 0 { need(configuration.visitAccuracyDemand) }
        if monitoringLooks && regionsAuthorized && regions.count > 0 { need(configuration.regionAccuracyDemand) }
        return demand
    }

    func chooseSources() -> Set<SourceID> {
        guard var demand = demandedAccuracy else { return [] }
        // Barometers give altitude to whatever position source is on, whenever anyone wants locations.
        let barometers = Set(
            sourceOrder.compactMap { sources[$0] }.filter { $0.descriptor.isBarometer && !$0.isFinished }
                .map(\.descriptor.id))
        let positions = choosePositionSources(demand: &demand)
        // Inertial sources feed the fusion filter, which fuses GNSS-class fixes only: powered with such a source.
        guard positions.contains(where: { sources[$0].map { isGNSSClass($0.descriptor) } ?? false }) else {
            return barometers.union(positions)
        }
        let inertial = sourceOrder.compactMap { sources[$0] }.filter { $0.descriptor.isInertial && !$0.isFinished }
        return barometers.union(positions).union(inertial.map(\.descriptor.id))
    }

    private func choosePositionSources(demand: inout Double) -> Set<SourceID> {
        let usable = sourceOrder.compactMap { sources[$0] }.filter {
            !$0.isFinished && !$0.descriptor.isBarometer && !$0.descriptor.isInertial
        }
        if demand == 0 {
            // "Best": as accurate as the best source we have.
            demand = usable.map(\.descriptor.expectedAccuracy).min() ?? 0
        }
        let byCost = usable.sorted {
            ($0.descriptor.powerCost, $0.descriptor.expectedAccuracy) < ($1.descriptor.powerCost, $1.descriptor.expectedAccuracy)
        }
        let meeting = byCost.filter { $0.descriptor.expectedAccuracy <= demand }
        if let first = meeting.first {
            guard !first.isAvailable, let fallback = meeting.dropFirst().first(where: \.isAvailable) else {
                return [first.descriptor.id]
            }
            // The cheapest one is silent: keep it on to notice its return, and use the next one.
            return [first.descriptor.id, fallback.descriptor.id]
        }
        // Nothing meets the demand: the most accurate source is the best we can do.
        let best = usable.min {
            ($0.descriptor.expectedAccuracy, $0.descriptor.powerCost) < ($1.descriptor.expectedAccuracy, $1.descriptor.powerCost)
        }
        return best.map { [$0.descriptor.id] } ?? []
    }
}
