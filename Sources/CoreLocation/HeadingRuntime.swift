import Foundation
import CoreLocationEngine
import CoreLocationSources
import Logging
import Synchronization

/// The heading service inside one process: one heading source shared by every manager that updates
/// heading, and one `HeadingStateMachine` per such manager. The thin shell: it feeds each machine the
/// source's samples (with the manager's current `headingFilter`, `headingOrientation` and last known
/// location), and performs what the machines return — power the source, deliver `CLHeading`s, report
/// `kCLErrorHeadingFailure`, ask the delegate about the calibration display.
///
/// Machines run under one lock; delegate calls go through each manager's `CallbackTarget`.
package final class HeadingRuntime: Sendable {
    package let source: (any HeadingSource)?
    let scheduler: any Scheduler
    let logger: Logger

    private struct Session: Sendable {
        weak var manager: CLLocationManager?
        var machine = HeadingStateMachine()
        var lastHeading: CLHeading?
        var isDisplayingCalibration = false
    }

    private struct Core: Sendable {
        var sessions: [ObjectIdentifier: Session] = [:]
        var isPowered = false
    }

    private let core = Mutex(Core())

    package init(
        source: (any HeadingSource)?, scheduler: any Scheduler,
        logger: Logger = Logger(label: "corelocation.heading")
    ) {
        self.source = source
        self.scheduler = scheduler
        self.logger = logger
    }

    /// Whether a heading source exists (`CLLocationManager.headingAvailable()`).
    package var isAvailable: Bool { source != nil }

    func lastHeading(for manager: CLLocationManager) -> CLHeading? {
        core.withLock { $0.sessions[ObjectIdentifier(manager)]?.lastHeading }
    }

    func isDisplayingCalibration(for manager: CLLocationManager) -> Bool {
        core.withLock { $0.sessions[ObjectIdentifier(manager)]?.isDisplayingCalibration ?? false }
    }

    func start(for manager: CLLocationManager) {
        guard source != nil else {
            logger.info("No heading source: no IIO magnetometer and no simulation configured")
            manager.callDelegate { manager, delegate in
                delegate.locationManager(manager, didFailWithError: CLError(.headingFailure))
            }
            return
        }
        run(.start, for: manager)
    }

    /// Stops the manager's updates; its last heading stays readable, as on Apple's platforms.
    func stop(for manager: CLLocationManager) {
        run(.stop, for: manager)
    }

    func dismissCalibration(for manager: CLLocationManager) {
        core.withLock { $0.sessions[ObjectIdentifier(manager)]?.isDisplayingCalibration = false }
        run(.dismissCalibration, for: manager)
    }

    private func run(_ input: HeadingStateMachine.Input, for manager: CLLocationManager) {
        let now = scheduler.now
        let id = ObjectIdentifier(manager)
        let actions = core.withLock { core -> [HeadingStateMachine.Action] in
            var session = core.sessions[id] ?? Session(manager: manager)
            let actions = session.machine.handle(input, at: now)
            core.sessions[id] = session
            return actions
        }
        perform(actions, for: manager, id: id)
    }

    // MARK: Source events

    private func sourceEvent(_ event: HeadingSourceEvent) {
        let now = scheduler.now
        let managers = core.withLock { core in core.sessions.values.compactMap(\.manager) }
        for manager in managers {
            let id = ObjectIdentifier(manager)
            let input: HeadingStateMachine.Input
            switch event {
            case .sample(let sample):
                let settings = HeadingSettings(
                    filter: manager.headingFilter,
                    orientation: HeadingOrientation(rawValue: manager.headingOrientation.rawValue) ?? .portrait
                )
                input = .sample(sample, settings)
            case .unavailable(let reason):
                input = .sourceUnavailable(reason: reason)
            }
            let location = Self.location(for: manager)
            let actions = core.withLock { core -> [HeadingStateMachine.Action] in
                guard var session = core.sessions[id] else { return [] }
                if let location { _ = session.machine.handle(.location(location), at: now) }
                let actions = session.machine.handle(input, at: now)
                core.sessions[id] = session
                return actions
            }
            perform(actions, for: manager, id: id)
        }
        // Managers that went away without stopping: forget them, and power off if nobody is left.
        core.withLock { core in
            core.sessions = core.sessions.filter { $0.value.manager != nil }
        }
        powerIfNeeded()
    }

    /// The manager's last known location, when it may know it (true heading needs it).
    private static func location(for manager: CLLocationManager) -> HeadingLocation? {
        guard manager.runtime.authorization.authorization.allowsLocation, let fix = manager.runtime.latestFix,
            fix.horizontalAccuracy >= 0
        else { return nil }
        let height = fix.verticalAccuracy >= 0 ? fix.ellipsoidalAltitude : 0
        return HeadingLocation(latitude: fix.latitude, longitude: fix.longitude, ellipsoidalAltitude: height)
    }

    private func perform(_ actions: [HeadingStateMachine.Action], for manager: CLLocationManager, id: ObjectIdentifier)
    {
        for action in actions {
            switch action {
            case .powerOn:
                powerIfNeeded()
            case .powerOff:
                powerIfNeeded(excluding: id)
            case .deliver(let reading):
                let heading = CLHeading(
                    magneticHeading: reading.magneticHeading, trueHeading: reading.trueHeading,
                    headingAccuracy: reading.accuracy, x: reading.field.x, y: reading.field.y, z: reading.field.z,
                    timestamp: reading.timestamp
                )
                core.withLock { $0.sessions[id]?.lastHeading = heading }
                manager.callDelegate { manager, delegate in
                    delegate.locationManager(manager, didUpdateHeading: heading)
                }
            case .fail(let failure):
                logger.warning("Heading failure", metadata: ["reason": "\(failure)"])
                manager.callDelegate { manager, delegate in
                    delegate.locationManager(manager, didFailWithError: CLError(.headingFailure))
                }
            case .requestCalibrationDisplay:
                manager.callDelegate { [weak self] manager, delegate in
                    let show = delegate.locationManagerShouldDisplayHeadingCalibration(manager)
                    // Linux has no system calibration panel: "displaying" means the app was told to
                    // have the user turn the device in a figure of eight until accuracy improves.
                    self?.core.withLock { $0.sessions[ObjectIdentifier(manager)]?.isDisplayingCalibration = show }
                }
            }
        }
    }

    /// Powers the source on while some session runs, off when none does.
    private func powerIfNeeded(excluding excluded: ObjectIdentifier? = nil) {
        guard let source else { return }
        let change = core.withLock { core -> Bool? in
            let wanted = core.sessions.contains { $0.key != excluded && $0.value.machine.isRunning }
            guard wanted != core.isPowered else { return nil }
            core.isPowered = wanted
            return wanted
        }
        switch change {
        case true?:
            logger.debug("Powering on the heading source", metadata: ["source": "\(source.name)"])
            source.start { [weak self] event in self?.sourceEvent(event) }
        case false?:
            logger.debug("Powering off the heading source", metadata: ["source": "\(source.name)"])
            source.stop()
        case nil:
            break
        }
    }
}
