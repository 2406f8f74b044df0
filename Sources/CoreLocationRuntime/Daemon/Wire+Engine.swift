import CoreLocationDaemonProtocol
import CoreLocationEngine

// The one conversion between the engine's vocabulary and locationd's wire types (decision 0068), used on both
// sides of the socket: by locationd, which hosts the engine, and by `DaemonLink`, the app's side. Every mapping
// is a switch or a field-by-field copy, so a case or field added on either side fails to compile here until
// the protocol says what it is.

extension WireFix {
    package init(_ fix: Fix) {
        self.init(
            latitude: fix.latitude, longitude: fix.longitude, altitude: fix.altitude,
            ellipsoidalAltitude: fix.ellipsoidalAltitude, horizontalAccuracy: fix.horizontalAccuracy,
            verticalAccuracy: fix.verticalAccuracy, course: fix.course, courseAccuracy: fix.courseAccuracy,
            speed: fix.speed, speedAccuracy: fix.speedAccuracy, timestamp: fix.timestamp, floor: fix.floor,
            isSimulated: fix.isSimulated, isFromAccessory: fix.isFromAccessory, isFused: fix.isFused)
    }
}

extension Fix {
    package init(_ wire: WireFix) {
        self.init(
            latitude: wire.latitude, longitude: wire.longitude, altitude: wire.altitude,
            ellipsoidalAltitude: wire.ellipsoidalAltitude, horizontalAccuracy: wire.horizontalAccuracy,
            verticalAccuracy: wire.verticalAccuracy, course: wire.course, courseAccuracy: wire.courseAccuracy,
            speed: wire.speed, speedAccuracy: wire.speedAccuracy, timestamp: wire.timestamp, floor: wire.floor,
            isSimulated: wire.isSimulated, isFromAccessory: wire.isFromAccessory, isFused: wire.isFused)
    }
}

extension WireDelivery {
    package init(_ delivery: Delivery) {
        self.init(
            fixes: delivery.fixes.map(WireFix.init), isStationary: delivery.isStationary,
            accuracyLimited: delivery.accuracyLimited, isRequestedLocation: delivery.isRequestedLocation)
    }
}

extension Delivery {
    package init(_ wire: WireDelivery) {
        self.init(
            fixes: wire.fixes.map(Fix.init), isStationary: wire.isStationary, accuracyLimited: wire.accuracyLimited,
            isRequestedLocation: wire.isRequestedLocation)
    }
}

extension WireRegion {
    package init(_ region: MonitoredRegion) {
        self.init(
            identifier: region.identifier, latitude: region.latitude, longitude: region.longitude, radius: region.radius,
            notifyOnEntry: region.notifyOnEntry, notifyOnExit: region.notifyOnExit, group: region.group)
    }
}

extension MonitoredRegion {
    package init(_ wire: WireRegion) {
        self.init(
            identifier: wire.identifier, latitude: wire.latitude, longitude: wire.longitude, radius: wire.radius,
            notifyOnEntry: wire.notifyOnEntry, notifyOnExit: wire.notifyOnExit, group: wire.group)
    }
}

extension WireRegionState {
    package init(_ state: RegionState) {
        self = switch state {
        case .unknown: .unknown
        case .inside: .inside
        case .outside: .outside
        }
    }
}

extension RegionState {
    package init(_ wire: WireRegionState) {
        self = switch wire {
        case .unknown: .unknown
        case .inside: .inside
        case .outside: .outside
        }
    }
}

extension WireStoredRegion {
    package init(_ stored: StoredRegion) {
        self.init(region: WireRegion(stored.region), state: WireRegionState(stored.state))
    }
}

extension StoredRegion {
    package init(_ wire: WireStoredRegion) {
        self.init(region: MonitoredRegion(wire.region), state: RegionState(wire.state))
    }
}

extension WireRegionFailure {
    package init(_ failure: RegionFailure) {
        self = switch failure {
        case .emptyIdentifier: .emptyIdentifier
        case .invalidCenter: .invalidCenter
        case .invalidRadius: .invalidRadius
        case .radiusTooLarge: .radiusTooLarge
        case .tooManyRegions: .tooManyRegions
        case .identifierTooLong: .identifierTooLong
        case .denied: .denied
        case .notMonitored: .notMonitored
        }
    }
}

extension RegionFailure {
    package init(_ wire: WireRegionFailure) {
        self = switch wire {
        case .emptyIdentifier: .emptyIdentifier
        case .invalidCenter: .invalidCenter
        case .invalidRadius: .invalidRadius
        case .radiusTooLarge: .radiusTooLarge
        case .tooManyRegions: .tooManyRegions
        case .identifierTooLong: .identifierTooLong
        case .denied: .denied
        case .notMonitored: .notMonitored
        }
    }
}

extension WireRegionNotice {
    package init(_ notice: RegionNotice) {
        self = switch notice {
        case let .started(region): .started(WireRegion(region))
        case let .failed(region, failure): .failed(WireRegion(region), WireRegionFailure(failure))
        case let .determined(region, state, fix):
            .determined(WireRegion(region), WireRegionState(state), fix: fix.map(WireFix.init))
        case let .entered(region, fix): .entered(WireRegion(region), fix: WireFix(fix))
        case let .exited(region, fix): .exited(WireRegion(region), fix: WireFix(fix))
        }
    }
}

extension RegionNotice {
    package init(_ wire: WireRegionNotice) {
        self = switch wire {
        case let .started(region): .started(MonitoredRegion(region))
        case let .failed(region, failure): .failed(MonitoredRegion(region), RegionFailure(failure))
        case let .determined(region, state, fix):
            .determined(MonitoredRegion(region), RegionState(state), fix: fix.map(Fix.init))
        case let .entered(region, fix): .entered(MonitoredRegion(region), fix: Fix(fix))
        case let .exited(region, fix): .exited(MonitoredRegion(region), fix: Fix(fix))
        }
    }
}

extension WireVisit {
    package init(_ visit: Visit) {
        self.init(
            arrival: visit.arrival, departure: visit.departure, latitude: visit.latitude, longitude: visit.longitude,
            horizontalAccuracy: visit.horizontalAccuracy, decidedAt: visit.decidedAt)
    }
}

extension Visit {
    package init(_ wire: WireVisit) {
        self.init(
            arrival: wire.arrival, departure: wire.departure, latitude: wire.latitude, longitude: wire.longitude,
            horizontalAccuracy: wire.horizontalAccuracy, decidedAt: wire.decidedAt)
    }
}
