import CoreLocationBeacons
import CoreLocationDaemonProtocol
import CoreLocationRuntime
import Foundation

extension BeaconRegionSpec {
    /// The identity constraint the spec names (UUID; UUID and major; UUID, major and minor).
    var identityConstraint: CLBeaconIdentityConstraint {
        if let major, let minor { return CLBeaconIdentityConstraint(uuid: uuid, major: major, minor: minor) }
        if let major { return CLBeaconIdentityConstraint(uuid: uuid, major: major) }
        return CLBeaconIdentityConstraint(uuid: uuid)
    }
}

extension CLRegionState {
    init(_ state: BeaconRegionState) { self = CLRegionState(rawValue: state.rawValue) ?? .unknown }
}

extension CLError {
    /// What the delegate hears when a beacon region is not watched: denied for a denied app, a monitoring
    /// failure otherwise, with locationd's reason when it refused.
    init(_ refusal: BeaconRegionRefusal) {
        self.init(
            refusal.reason == .denied ? .regionMonitoringDenied : .regionMonitoringFailure,
            userInfo: refusal.message.map { [NSLocalizedDescriptionKey: $0] } ?? [:])
    }
}
