import CoreLocationRuntime
import Foundation
import CoreLocationEngine

/// Region monitoring through the engine (`RegionMonitor` holds the boundary rule): the app's
/// regions are shared by all its managers and persisted, and every manager's delegate hears every
/// crossing, as on iOS.
extension CLLocationManager {
    static func monitoringAvailable(for regionClass: AnyClass) -> Bool {
        // Circles are watched by the engine; beacon regions by the manager's beacon session (+Beacons), when
        // the process has a beacon scanner (a system bus for BlueZ, or CORELOCATION_BEACONS=simulate:FILE).
        if regionClass is CLBeaconRegion.Type { return BeaconRuntime.shared.scanner != nil }
        return regionClass is CLCircularRegion.Type
    }

    func currentMonitoredRegions() -> Set<CLRegion> {
        Set(runtime.monitoredRegions.map { CLCircularRegion(monitored: $0) as CLRegion })
    }

    func startMonitoringRegion(_ region: CLRegion) {
        if let beaconRegion = region as? CLBeaconRegion { return beaconStartMonitoring(beaconRegion) }
        guard let circle = region as? CLCircularRegion else {
            // Bare CLRegion objects cannot be monitored.
            callDelegate { manager, delegate in
                delegate.locationManager(
                    manager, monitoringDidFailFor: region, withError: CLError(.regionMonitoringFailure)
                )
            }
            return
        }
        send(
            .startMonitoring(
                MonitoredRegion(
                    identifier: circle.identifier, latitude: circle.center.latitude,
                    longitude: circle.center.longitude, radius: circle.radius,
                    notifyOnEntry: circle.notifyOnEntry, notifyOnExit: circle.notifyOnExit
                )
            )
        )
    }

    func deliverRegionNotice(_ notice: RegionNotice) {
        guard notice.region.group.isEmpty else { return }  // a CLMonitor's condition
        switch notice {
        case .started(let monitored):
            let region = CLCircularRegion(monitored: monitored)
            callDelegate { manager, delegate in delegate.locationManager(manager, didStartMonitoringFor: region) }
        case .failed(let monitored, let failure):
            let region = CLCircularRegion(monitored: monitored)
            let code: CLError.Code = failure == .denied ? .regionMonitoringDenied : .regionMonitoringFailure
            let error = CLError(code, userInfo: [NSLocalizedDescriptionKey: failure.message])
            callDelegate { manager, delegate in
                delegate.locationManager(manager, monitoringDidFailFor: region, withError: error)
            }
        case .determined(let monitored, let state, _):
            let region = CLCircularRegion(monitored: monitored)
            let clState = CLRegionState(state)
            callDelegate { manager, delegate in
                delegate.locationManager(manager, didDetermineState: clState, for: region)
            }
        case .entered(let monitored, _):
            let region = CLCircularRegion(monitored: monitored)
            callDelegate { manager, delegate in delegate.locationManager(manager, didEnterRegion: region) }
        case .exited(let monitored, _):
            let region = CLCircularRegion(monitored: monitored)
            callDelegate { manager, delegate in delegate.locationManager(manager, didExitRegion: region) }
        }
    }
}

extension CLLocationManager {
    func deliverDeferralEnd(_ error: DeferralError?) {
        let clError: CLError? = error.map { error in
            switch error {
            case .failed: CLError(.deferredFailed)
            case .notUpdatingLocation: CLError(.deferredNotUpdatingLocation)
            case .accuracyTooLow: CLError(.deferredAccuracyTooLow)
            case .distanceFiltered: CLError(.deferredDistanceFiltered)
            case .canceled: CLError(.deferredCanceled)
            }
        }
        callDelegate { manager, delegate in
            delegate.locationManager(manager, didFinishDeferredUpdatesWithError: clError)
        }
    }
}

extension CLCircularRegion {
    convenience init(monitored: MonitoredRegion) {
        self.init(
            center: CLLocationCoordinate2D(latitude: monitored.latitude, longitude: monitored.longitude),
            radius: monitored.radius, identifier: monitored.identifier
        )
        notifyOnEntry = monitored.notifyOnEntry
        notifyOnExit = monitored.notifyOnExit
    }
}

extension CLRegionState {
    init(_ state: RegionState) {
        switch state {
        case .unknown: self = .unknown
        case .inside: self = .inside
        case .outside: self = .outside
        }
    }
}

extension RegionNotice {
    /// The region the notice is about.
    var region: MonitoredRegion {
        switch self {
        case .started(let region), .failed(let region, _), .determined(let region, _, _), .entered(let region, _),
            .exited(let region, _):
            region
        }
    }
}
