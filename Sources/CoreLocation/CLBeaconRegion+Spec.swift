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
    /// What the delegate hears when locationd refused to monitor a region: denied for `not-permitted`,
    /// a monitoring failure otherwise, with the daemon's reason.
    init(monitoringRefused failure: DaemonError) {
        self.init(
            failure.code == .notPermitted ? .regionMonitoringDenied : .regionMonitoringFailure,
            userInfo: [NSLocalizedDescriptionKey: failure.message])
    }
}
