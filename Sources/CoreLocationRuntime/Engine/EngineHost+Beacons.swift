import CoreLocationBeacons
import CoreLocationDaemonProtocol
import CoreLocationEngine
import CoreLocationStorage
import Foundation
import Synchronization

/// Where the host keeps the app's beacon-region monitor (`BeaconRegionMonitor`), and the beacon runtime
/// tests give instead of the process's.
struct BeaconSlot {
    var beacons: BeaconRuntime?
    var monitor: BeaconRegionMonitor?
    /// Whether the database was asked for the app's regions (once a run).
    var looked = false
}

/// The app's beacon regions in this process (decision 0052): one `BeaconRegionMonitor` on the beacon
/// runtime's scanner, heard by every client as `ClientEvent.beaconRegion`.
extension EngineHost {
    package var beacons: BeaconRuntime { beaconSlot.withLock { $0.beacons } ?? .shared }

    /// Tests: the app's beacon regions (and managers' ranging, by default) use `beacons` instead of the
    /// process's scanner (before the first one).
    package func useBeacons(_ beacons: BeaconRuntime) { beaconSlot.withLock { $0.beacons = beacons } }

    package func restoreBeaconRegions() { _ = beaconRegions(creating: false) }

    package func startMonitoring(_ region: BeaconRegionSpec) -> BeaconRegionRefusal? {
        if authorization.authorization.isDecidedAgainst || !servicesEnabled { return BeaconRegionRefusal(.denied) }
        guard let monitor = beaconRegions(creating: true) else { return BeaconRegionRefusal(.unavailable) }
        monitor.start(region)
        return nil
    }

    /// In process an identifier names the region, whatever the object's class.
    package func stopMonitoringBeaconRegion(_ identifier: String, isBeaconRegion: Bool) -> Bool {
        beaconRegions(creating: false)?.stop(identifier) ?? false
    }

    package func beaconRegionState(_ identifier: String, isBeaconRegion: Bool) -> BeaconRegionAnswer? {
        guard let (spec, state) = beaconRegions(creating: false)?.state(of: identifier) else { return nil }
        return .state(spec, state)
    }

    package var monitoredBeaconRegions: [BeaconRegionSpec] { beaconRegions(creating: false)?.monitored ?? [] }

    /// The app's beacon regions in this process: made at the first region (`creating`) or, once a run, when
    /// the database keeps regions of the app, which it then watches again. Nil without a beacon scanner.
    func beaconRegions(creating: Bool) -> BeaconRegionMonitor? {
        beaconSlot.withLock { slot in
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
    var allowsBeaconDelivery: Bool { authorization.authorization.allowsLocation && servicesEnabled }
}
