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
