import CoreLocationRuntime
import Foundation
import CoreLocationEngine

/// Why the process was started: the Linux stand-in for `launchOptions[.location]`
/// (docs/decisions/0026-background-relaunch.md, 0039-background-services-and-idle-sweep.md).
public enum CLLaunchReason: String, Sendable {
    /// locationd started the app for a location event that waits for it: create a
    /// `CLLocationManager` and set its delegate to receive a region entry or exit or a visit; call
    /// `startMonitoringSignificantLocationChanges()` (with the delegate set) for a significant change.
    case location
}

extension CLLocationManager {
    /// Why locationd started this process, from `CORELOCATION_LAUNCH_REASON`; nil when it was
    /// started by anyone else. Where an iOS app tests `launchOptions?[.location] != nil`.
    public static var launchReason: CLLaunchReason? {
        ProcessInfo.processInfo.environment["CORELOCATION_LAUNCH_REASON"].flatMap(CLLaunchReason.init(rawValue:))
    }

    /// A delegate was set: the daemon's pending events for the app (region entries and exits,
    /// visits, held while it was not running) come to it, each once, acknowledged after the
    /// delegate returned.
    func startReceivingPending() {
        guard pendingConsumer.withLock({ $0 }) == nil else { return }
        let id = runtime.addPendingConsumer(channel: .delegate) { [weak self] payload, receipt in
            guard let self else { return receipt.done() }
            self.target.enqueue { [weak self] in
                defer { receipt.done() }
                guard let self, let delegate = self.delegate else { return }
                receipt.handed()
                switch payload {
                case let .region(.entered(region, _)):
                    delegate.locationManager(self, didEnterRegion: CLCircularRegion(monitored: region))
                case let .region(.exited(region, _)):
                    delegate.locationManager(self, didExitRegion: CLCircularRegion(monitored: region))
                case let .visit(visit):
                    delegate.locationManager(self, didVisit: CLVisit(visit))
                case let .beacon(entered, spec) where entered:
                    delegate.locationManager(self, didEnterRegion: CLBeaconRegion(spec))
                case let .beacon(_, spec):
                    delegate.locationManager(self, didExitRegion: CLBeaconRegion(spec))
                default:
                    break
                }
            }
        }
        guard let id else { return }
        pendingConsumer.withLock { $0 = id }
    }

    /// The manager started the significant-change service and has a delegate: the changes held
    /// while the app was not running come to `locationManager(_:didUpdateLocations:)`, oldest
    /// first, each once (decision 0039).
    func startReceivingPendingLocations() {
        guard delegate != nil else { return }
        let register = pendingLocations.withLock { $0.wanted && $0.consumer == nil }
        guard register else { return }
        let added = runtime.addPendingConsumer(channel: .location) { [weak self] payload, receipt in
            guard let self, case let .location(delivery) = payload else { return receipt.done() }
            let locations = delivery.fixes.map(CLLocation.init(fix:))
            self.target.enqueue { [weak self] in
                defer { receipt.done() }
                guard let self else { return }
                receipt.handed()
                if let last = locations.last { self.state.withLock { $0.location = last } }
                self.delegate?.locationManager(self, didUpdateLocations: locations)
            }
        }
        guard let id = added else { return }
        let stale = pendingLocations.withLock { pending -> UInt64? in
            guard pending.consumer == nil else { return id }
            pending.consumer = id
            return nil
        }
        if let stale { runtime.removePendingConsumer(stale) }
    }

    func stopReceivingPendingLocations() {
        let id = pendingLocations.withLock { pending -> UInt64? in
            defer { pending = (false, nil) }
            return pending.consumer
        }
        if let id { runtime.removePendingConsumer(id) }
    }

    func stopReceivingPending() {
        guard let id = pendingConsumer.withLock({ $0 }) else { return }
        runtime.removePendingConsumer(id)
    }
}
