import CoreLocationBeacons
import CoreLocationDaemonProtocol
import CoreLocationStorage
import Foundation
import Logging
import Synchronization

/// The app's beacon regions in the process, without locationd (docs/decisions/0052).
///
/// Beacon regions belong to the app, as circular regions do: one ranging session watches them for every
/// manager of the runtime, and every manager's delegate hears every entry and exit. They persist in the
/// runtime's database (the `beaconRegion` table locationd also uses, keyed by this process's uid) with the state
/// the app was last told, so the next run of the app watches them again in that state: a restart neither repeats
/// an entry nor invents one. A state is stored only while the app is authorized, since only then was it told.
package final class BeaconRegionMonitor: Sendable {
    package struct Storage: Sendable {
        let store: BackgroundStore
        let uid: UInt32
        let appID: String
    }

    private let session: BeaconRangingSession
    private let storage: Storage?
    private let isAuthorized: @Sendable () -> Bool
    private let logger: Logger
    private let regions = Regions()

    /// The regions by identifier; a class of its own so the session's output handler can hold it before
    /// the monitor is whole.
    private final class Regions: Sendable {
        private let table = Mutex<[String: BeaconRegionSpec]>([:])
        func withLock<T>(_ body: (inout [String: BeaconRegionSpec]) -> T) -> T { table.withLock { body(&$0) } }
    }

    /// Watches the regions `storage` keeps (in their stored states); `announce` hears every region event.
    package init(
        beacons: BeaconRuntime, scanner: any BeaconScanner, storage: Storage?,
        isAuthorized: @escaping @Sendable () -> Bool, logger: Logger,
        announce: @escaping @Sendable (BeaconRegionNotice) -> Void
    ) {
        self.storage = storage
        self.isAuthorized = isAuthorized
        self.logger = logger
        let regions = self.regions
        session = BeaconRangingSession(scanner: scanner, scheduler: beacons.scheduler) { output in
            guard case let .action(action) = output else { return }
            let notice: BeaconRegionNotice? =
                switch action {
                case let .determined(identifier, state): regions.withLock { $0[identifier] }.map { .determined($0, state) }
                case let .entered(identifier): regions.withLock { $0[identifier] }.map { .entered($0) }
                case let .exited(identifier): regions.withLock { $0[identifier] }.map { .exited($0) }
                case .ranged: nil
                }
            guard let notice else { return }
            if case let .determined(region, state) = notice, isAuthorized() {
                Self.storeState(state, of: region.identifier, in: storage, logger: logger)
            }
            announce(notice)
        }
        restore()
    }

    /// The stored regions of this app, or none.
    package static func hasStoredRegions(in storage: Storage?) -> Bool {
        guard let storage else { return false }
        return (try? storage.store.beaconRegions(uid: storage.uid, appID: storage.appID).isEmpty == false) ?? false
    }

    package var monitored: [BeaconRegionSpec] { regions.withLock { $0.values.sorted { $0.identifier < $1.identifier } } }

    /// Starts watching `region` (replacing one with its identifier), its state unknown.
    package func start(_ region: BeaconRegionSpec) {
        if let storage {
            do {
                try storage.store.save(region, uid: storage.uid, appID: storage.appID)
            } catch {
                logger.error("Cannot store a beacon region; it lasts for this run only", metadata: ["error": "\(error)"])
            }
        }
        regions.withLock { $0[region.identifier] = region }
        session.startMonitoring(identifier: region.identifier, constraint: region.constraint)
    }

    /// Stops watching the region; false when none has that identifier.
    package func stop(_ identifier: String) -> Bool {
        guard regions.withLock({ $0.removeValue(forKey: identifier) }) != nil else { return false }
        session.stopMonitoring(identifier: identifier)
        if let storage {
            do {
                try storage.store.removeBeaconRegion(uid: storage.uid, appID: storage.appID, identifier: identifier)
            } catch {
                logger.error("Cannot forget a stored beacon region", metadata: ["error": "\(error)"])
            }
        }
        return true
    }

    /// The region's state now (for `requestState(for:)`, answered to the asking manager alone).
    package func state(of identifier: String) -> (BeaconRegionSpec, BeaconRegionState)? {
        guard let region = regions.withLock({ $0[identifier] }),
            let state = session.regionState(identifier: identifier)
        else { return nil }
        return (region, state)
    }

    private func restore() {
        guard let storage else { return }
        let stored: [(BeaconRegionSpec, BeaconRegionState)]
        do {
            stored = try storage.store.beaconRegionSpecs(uid: storage.uid, appID: storage.appID)
        } catch {
            logger.error("Cannot read the stored beacon regions; they are not restored", metadata: ["error": "\(error)"])
            return
        }
        for (region, state) in stored {
            regions.withLock { $0[region.identifier] = region }
            session.startMonitoring(identifier: region.identifier, constraint: region.constraint, state: state)
        }
    }

    private static func storeState(_ state: BeaconRegionState, of identifier: String, in storage: Storage?, logger: Logger) {
        guard let storage else { return }
        do {
            try storage.store.setBeaconRegionState(
                uid: storage.uid, appID: storage.appID, identifier: identifier, state: state.rawValue)
        } catch {
            logger.error("Cannot store a beacon region's state", metadata: ["error": "\(error)"])
        }
    }
}

extension BeaconRegionSpec {
    package var constraint: BeaconConstraint { BeaconConstraint(uuid: uuid, major: major, minor: minor) }
}
