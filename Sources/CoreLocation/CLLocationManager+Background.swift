import Foundation
import CoreLocationEngine

/// Why the process was started: the Linux stand-in for `launchOptions[.location]`
/// (docs/decisions/0026-background-relaunch.md).
public enum CLLaunchReason: String, Sendable {
    /// locationd started the app for a location event (a region entry or exit) that waits for it:
    /// create a `CLLocationManager` and set its delegate to receive it.
    case location
}

extension CLLocationManager {
    /// Why locationd started this process, from `CORELOCATION_LAUNCH_REASON`; nil when it was
    /// started by anyone else. Where an iOS app tests `launchOptions?[.location] != nil`.
    public static var launchReason: CLLaunchReason? {
        ProcessInfo.processInfo.environment["CORELOCATION_LAUNCH_REASON"].flatMap(CLLaunchReason.init(rawValue:))
    }

    /// A delegate was set: the daemon's pending events for the app (region entries and exits held
    /// while it was not running) come to it, each once, acknowledged after the delegate returned.
    func startReceivingPending() {
        guard let link = runtime.link, pendingConsumer.withLock({ $0 }) == nil else { return }
        let id = link.addPendingConsumer { [weak self] notice, done in
            guard let self else { return done() }
            self.target.enqueue { [weak self] in
                defer { done() }
                guard let self, let delegate = self.delegate else { return }
                switch notice {
                case let .entered(region, _):
                    delegate.locationManager(self, didEnterRegion: CLCircularRegion(monitored: region))
                case let .exited(region, _):
                    delegate.locationManager(self, didExitRegion: CLCircularRegion(monitored: region))
                default:
                    break
                }
            }
        }
        pendingConsumer.withLock { $0 = id }
    }

    func stopReceivingPending() {
        guard let id = pendingConsumer.withLock({ $0 }) else { return }
        runtime.link?.removePendingConsumer(id)
    }
}
