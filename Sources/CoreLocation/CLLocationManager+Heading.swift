import CoreLocationEngine
import CoreLocationRuntime
import Foundation

/// Heading through the process's heading runtime (`HeadingRuntime`): each manager is one of its clients,
/// made at the manager's first heading call; the runtime's events become delegate calls on the manager's thread.
extension CLLocationManager {
    var headingRuntime: HeadingRuntime { runtime.heading }

    /// Whether the app was asked to show the calibration display and has not dismissed it.
    var isDisplayingHeadingCalibration: Bool {
        guard let id = headingSession.withLock({ $0 }) else { return false }
        return headingRuntime.isDisplayingCalibration(id)
    }

    /// This manager's client of the heading runtime, made at first use.
    func headingClient() -> UInt64 {
        let heading = headingRuntime
        let runtime = self.runtime
        return headingSession.withLock { session in
            if let session { return session }
            let made = heading.add(
                HeadingRuntime.Client(
                    settings: { [weak self] in
                        HeadingSettings(
                            filter: self?.headingFilter ?? 1,
                            orientation: HeadingOrientation(rawValue: self?.headingOrientation.rawValue ?? 1) ?? .portrait)
                    },
                    location: {
                        HeadingRuntime.location(authorization: runtime.authorization.authorization, latestFix: runtime.latestFix)
                    },
                    events: { [weak self] event in self?.headingEvent(event) }))
            session = made
            return made
        }
    }

    private func headingEvent(_ event: HeadingRuntime.Event) {
        switch event {
        case .heading(let reading):
            let heading = CLHeading(
                magneticHeading: reading.magneticHeading, trueHeading: reading.trueHeading,
                headingAccuracy: reading.accuracy, x: reading.field.x, y: reading.field.y, z: reading.field.z,
                timestamp: reading.timestamp
            )
            state.withLock { $0.heading = heading }
            callDelegate { manager, delegate in delegate.locationManager(manager, didUpdateHeading: heading) }
        case .failure:
            callDelegate { manager, delegate in
                delegate.locationManager(manager, didFailWithError: CLError(.headingFailure))
            }
        case .calibrationRequest(let answer):
            callDelegate { manager, delegate in answer(delegate.locationManagerShouldDisplayHeadingCalibration(manager)) }
        }
    }
}
