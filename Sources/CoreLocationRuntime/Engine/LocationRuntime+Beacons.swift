import CoreLocationBeacons
import CoreLocationEngine
import CoreLocationStorage
import Foundation
import Synchronization

/// Where the runtime keeps the app's beacon-region monitor (BeaconRegionMonitor).
package struct BeaconRegionSlot {
    /// The scanner's runtime, when not the process's (tests).
    package var beacons: BeaconRuntime?
    package var monitor: BeaconRegionMonitor?
    /// Whether the database was asked for the app's regions (once a run).
    package var looked = false
}

extension LocationRuntime {
    /// Tests: the app's beacon regions use `beacons` instead of the process's scanner (before the first one).
    package func useBeacons(_ beacons: BeaconRuntime) { beaconRegionSlot.withLock { $0.beacons = beacons } }

    /// The app's beacon regions in this process: made at the first region (`creating`) or, once a run, when
    /// the database keeps regions of the app, which it then watches again. Nil without a beacon scanner, and
    /// through locationd, which watches them itself (decision 0050).
    package func beaconRegions(creating: Bool) -> BeaconRegionMonitor? {
        guard link == nil else { return nil }
        return beaconRegionSlot.withLock { slot in
            if let monitor = slot.monitor { return monitor }
            // After the one look, an app without beacon regions gets its answer without any work.
            if !creating, slot.looked { return nil }
            let storage = regionStore.map {
                BeaconRegionMonitor.Storage(
                    store: BackgroundStore(database: $0.database), uid: getuid(), appID: authorization.identity.id)
            }
            if !creating {
                slot.looked = true
                guard BeaconRegionMonitor.hasStoredRegions(in: storage) else { return nil }
            }
            let beacons = slot.beacons ?? .shared
            guard let scanner = beacons.scanner else { return nil }
            let monitor = BeaconRegionMonitor(
                beacons: beacons, scanner: scanner, storage: storage,
                isAuthorized: { [weak self] in self?.allowsBeaconDelivery ?? false }, logger: logger
            ) { [weak self] notice in self?.broadcast(.beaconRegion(notice)) }
            slot.monitor = monitor
            return monitor
        }
    }

    /// Whether the app hears where it is: authorized (when in use or always) with location services on.
    package var allowsBeaconDelivery: Bool {
        authorization.authorization.allowsLocation
            && LocationServicesSwitch(environment: ProcessInfo.processInfo.environment).isEnabled
            && (link?.servicesEnabled ?? true)
    }
}
