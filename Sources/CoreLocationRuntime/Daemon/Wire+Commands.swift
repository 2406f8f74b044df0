import CoreLocationDaemonProtocol
import CoreLocationEngine

// Commands and client events between the engine's vocabulary and the wire's (decision 0068); see Wire+Engine.swift.

extension WireUpdateRequest {
    package init(_ request: UpdateRequest) {
        self.init(
            desiredAccuracy: request.desiredAccuracy, distanceFilter: request.distanceFilter,
            activityType: request.activityType, pausesAutomatically: request.pausesAutomatically,
            allowsBackground: request.allowsBackground, showsIndicator: request.showsIndicator)
    }
}

extension UpdateRequest {
    package init(_ wire: WireUpdateRequest) {
        self.init(
            desiredAccuracy: wire.desiredAccuracy, distanceFilter: wire.distanceFilter, activityType: wire.activityType,
            pausesAutomatically: wire.pausesAutomatically, allowsBackground: wire.allowsBackground,
            showsIndicator: wire.showsIndicator)
    }
}

extension WireCommand {
    /// Nil for `register` and `setAuthorization`: the daemon decides authorization, so the wire has no words
    /// for them.
    package init?(_ command: ClientCommand) {
        switch command {
        case .register, .setAuthorization: return nil
        case let .startUpdates(request): self = .startUpdates(WireUpdateRequest(request))
        case .stopUpdates: self = .stopUpdates
        case let .requestLocation(request): self = .requestLocation(WireUpdateRequest(request))
        case let .startMonitoring(region): self = .startMonitoring(WireRegion(region))
        case let .stopMonitoring(identifier, group): self = .stopMonitoring(identifier: identifier, group: group)
        case let .requestRegionState(identifier, group): self = .requestRegionState(identifier: identifier, group: group)
        case .startSignificantChanges: self = .startSignificantChanges
        case .stopSignificantChanges: self = .stopSignificantChanges
        case let .allowDeferredUpdates(distance, timeout): self = .allowDeferredUpdates(distance: distance, timeout: timeout)
        case .disallowDeferredUpdates: self = .disallowDeferredUpdates
        case .startVisits: self = .startVisits
        case .stopVisits: self = .stopVisits
        case .unregister: self = .unregister
        }
    }
}

extension ClientCommand {
    package init(_ wire: WireCommand) {
        self = switch wire {
        case let .startUpdates(request): .startUpdates(UpdateRequest(request))
        case .stopUpdates: .stopUpdates
        case let .requestLocation(request): .requestLocation(UpdateRequest(request))
        case let .startMonitoring(region): .startMonitoring(MonitoredRegion(region))
        case let .stopMonitoring(identifier, group): .stopMonitoring(identifier: identifier, group: group)
        case let .requestRegionState(identifier, group): .requestRegionState(identifier: identifier, group: group)
        case .startSignificantChanges: .startSignificantChanges
        case .stopSignificantChanges: .stopSignificantChanges
        case let .allowDeferredUpdates(distance, timeout): .allowDeferredUpdates(distance: distance, timeout: timeout)
        case .disallowDeferredUpdates: .disallowDeferredUpdates
        case .startVisits: .startVisits
        case .stopVisits: .stopVisits
        case .unregister: .unregister
        }
    }
}

extension WireFailure {
    package init(_ failure: EngineFailure) {
        self = switch failure {
        case .locationUnknown: .locationUnknown
        case .denied: .denied
        }
    }
}

extension EngineFailure {
    package init(_ wire: WireFailure) {
        self = switch wire {
        case .locationUnknown: .locationUnknown
        case .denied: .denied
        }
    }
}

extension WireDeferralError {
    package init(_ error: DeferralError) {
        self = switch error {
        case .failed: .failed
        case .notUpdatingLocation: .notUpdatingLocation
        case .accuracyTooLow: .accuracyTooLow
        case .distanceFiltered: .distanceFiltered
        case .canceled: .canceled
        }
    }
}

extension DeferralError {
    package init(_ wire: WireDeferralError) {
        self = switch wire {
        case .failed: .failed
        case .notUpdatingLocation: .notUpdatingLocation
        case .accuracyTooLow: .accuracyTooLow
        case .distanceFiltered: .distanceFiltered
        case .canceled: .canceled
        }
    }
}

extension WireClientEvent {
    /// Nil for what does not cross per client: authorization (one event per connection) and the app's beacon
    /// regions (the daemon's own, decision 0050).
    package init?(_ event: ClientEvent) {
        switch event {
        case let .delivery(delivery): self = .delivery(WireDelivery(delivery))
        case let .failure(failure): self = .failure(WireFailure(failure))
        case let .region(notice): self = .region(WireRegionNotice(notice))
        case let .deferredFinished(error): self = .deferredFinished(error.map(WireDeferralError.init))
        case let .visit(visit): self = .visit(WireVisit(visit))
        case let .paused(paused): self = .paused(paused)
        case .authorization, .beaconRegion: return nil
        }
    }
}

extension ClientEvent {
    package init(_ wire: WireClientEvent) {
        self = switch wire {
        case let .delivery(delivery): .delivery(Delivery(delivery))
        case let .failure(failure): .failure(EngineFailure(failure))
        case let .region(notice): .region(RegionNotice(notice))
        case let .deferredFinished(error): .deferredFinished(error.map(DeferralError.init))
        case let .visit(visit): .visit(Visit(visit))
        case let .paused(paused): .paused(paused)
        }
    }
}
