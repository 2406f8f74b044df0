import Foundation
import CoreLocationEngine
import CoreLocationSources
import Logging
import Synchronization

/// The heading service inside one process: one heading source shared by every client that updates
/// heading (each `CLLocationManager` that calls `startUpdatingHeading()`), and one `HeadingStateMachine`
/// per client. The thin shell: it feeds each machine the source's samples (with the client's current
/// filter, orientation and last known location, read through the client's closures at each sample), and
/// performs what the machines return — power the source, and hand the client its readings, failures and
/// calibration requests, which the façade turns into delegate calls on the manager's thread.
///
/// Machines run under one lock; the client's closures are called outside it.
package final class HeadingRuntime: Sendable {
    /// What the runtime needs of one client, and where its events go.
    package struct Client: Sendable {
        /// The filter and orientation now (read at each sample: the app may change them while updating).
        package var settings: @Sendable () -> HeadingSettings
        /// The client's last known location when it may know it (true heading needs it).
        package var location: @Sendable () -> HeadingLocation?
        package var events: @Sendable (Event) -> Void

        package init(
            settings: @escaping @Sendable () -> HeadingSettings, location: @escaping @Sendable () -> HeadingLocation?,
            events: @escaping @Sendable (Event) -> Void
        ) {
            self.settings = settings
            self.location = location
            self.events = events
        }
    }

    package enum Event: Sendable {
        case heading(HeadingReading)
        /// `kCLErrorHeadingFailure`: no source, or the source failed (the reason is logged here).
        case failure
        /// The accuracy is poor: ask the app whether to show the calibration display; `answer` takes its reply.
        case calibrationRequest(answer: @Sendable (Bool) -> Void)
    }

    package let source: (any HeadingSource)?
    package let scheduler: any Scheduler
    let logger: Logger

    private struct Session: Sendable {
        var client: Client
        var machine = HeadingStateMachine()
        var isDisplayingCalibration = false
    }

    private struct Core: Sendable {
        var sessions: [UInt64: Session] = [:]
        var nextSession: UInt64 = 0
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

    /// A new client; it updates nothing until `start`. `remove` it when its owner goes.
    package func add(_ client: Client) -> UInt64 {
        core.withLock { core in
            core.nextSession += 1
            core.sessions[core.nextSession] = Session(client: client)
            return core.nextSession
        }
    }

    /// Forgets the client (its owner went away); the source powers off when nobody else updates.
    package func remove(_ id: UInt64) {
        _ = core.withLock { $0.sessions.removeValue(forKey: id) }
        powerIfNeeded()
    }

    package func isDisplayingCalibration(_ id: UInt64) -> Bool {
        core.withLock { $0.sessions[id]?.isDisplayingCalibration ?? false }
    }

    package func start(_ id: UInt64) {
        guard source != nil else {
            logger.info("No heading source: no IIO magnetometer and no simulation configured")
            core.withLock { $0.sessions[id]?.client }?.events(.failure)
            return
        }
        run(.start, for: id)
    }

    /// Stops the client's updates; its last heading stays the app's to read, as on Apple's platforms.
    package func stop(_ id: UInt64) {
        run(.stop, for: id)
    }

    package func dismissCalibration(_ id: UInt64) {
        core.withLock { $0.sessions[id]?.isDisplayingCalibration = false }
        run(.dismissCalibration, for: id)
    }

    private func run(_ input: HeadingStateMachine.Input, for id: UInt64) {
        let now = scheduler.now
        let actions = core.withLock { core -> [HeadingStateMachine.Action] in
            guard var session = core.sessions[id] else { return [] }
            let actions = session.machine.handle(input, at: now)
            core.sessions[id] = session
            return actions
        }
        perform(actions, for: id)
    }

    // MARK: Source events

    private func sourceEvent(_ event: HeadingSourceEvent) {
        let now = scheduler.now
        let clients = core.withLock { core in core.sessions.map { ($0.key, $0.value.client) } }
        for (id, client) in clients.sorted(by: { $0.0 < $1.0 }) {
            let input: HeadingStateMachine.Input
            switch event {
            case .sample(let sample): input = .sample(sample, client.settings())
            case .unavailable(let reason): input = .sourceUnavailable(reason: reason)
            }
            let location = client.location()
            let actions = core.withLock { core -> [HeadingStateMachine.Action] in
                guard var session = core.sessions[id] else { return [] }
                if let location { _ = session.machine.handle(.location(location), at: now) }
                let actions = session.machine.handle(input, at: now)
                core.sessions[id] = session
                return actions
            }
            perform(actions, for: id)
        }
    }

    /// A client's last known location, from its runtime: only when the app may know where it is.
    package static func location(authorization: ClientAuthorization, latestFix: Fix?) -> HeadingLocation? {
        guard authorization.allowsLocation, let fix = latestFix, fix.horizontalAccuracy >= 0 else { return nil }
        let height = fix.verticalAccuracy >= 0 ? fix.ellipsoidalAltitude : 0
        return HeadingLocation(latitude: fix.latitude, longitude: fix.longitude, ellipsoidalAltitude: height)
    }

    private func perform(_ actions: [HeadingStateMachine.Action], for id: UInt64) {
        guard !actions.isEmpty, let client = core.withLock({ $0.sessions[id]?.client }) else { return }
        for action in actions {
            switch action {
            case .powerOn:
                powerIfNeeded()
            case .powerOff:
                powerIfNeeded(excluding: id)
            case .deliver(let reading):
                client.events(.heading(reading))
            case .fail(let failure):
                logger.warning("Heading failure", metadata: ["reason": "\(failure)"])
                client.events(.failure)
            case .requestCalibrationDisplay:
                // Linux has no system calibration panel: "displaying" means the app was told to have the
                // user turn the device in a figure of eight until accuracy improves.
                client.events(.calibrationRequest { [weak self] show in
                    self?.core.withLock { $0.sessions[id]?.isDisplayingCalibration = show }
                })
            }
        }
    }

    /// Powers the source on while some session runs, off when none does.
    private func powerIfNeeded(excluding excluded: UInt64? = nil) {
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
