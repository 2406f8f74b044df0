import CoreLocationBeacons
import CoreLocationDaemonProtocol
import CoreLocationStorage
import Foundation

/// Beacon regions as the `beaconRegion` table keeps them (the region's JSON and its last told state), for
/// locationd and for an app without it (decisions 0050, 0052).
extension BackgroundStore {
    /// Keeps `region` under its key (`BeaconRegionSpec.key`), its state unknown again.
    package func save(_ region: BeaconRegionSpec, uid: UInt32, appID: String) throws {
        try saveBeaconRegion(uid: uid, appID: appID, identifier: region.key, region: JSONEncoder().encode(region))
    }

    /// The kept regions with their states; a row that cannot be read is skipped.
    package func beaconRegionSpecs(uid: UInt32, appID: String) throws -> [(BeaconRegionSpec, BeaconRegionState)] {
        try beaconRegions(uid: uid, appID: appID).compactMap { row in
            (try? JSONDecoder().decode(BeaconRegionSpec.self, from: row.region)).map {
                ($0, BeaconRegionState(rawValue: row.state) ?? .unknown)
            }
        }
    }
}

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
