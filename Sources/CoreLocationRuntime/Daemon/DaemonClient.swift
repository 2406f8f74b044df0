import CoreLocationBeacons
import CoreLocationDaemonProtocol
import CoreLocationEngine
import CoreLocationSources
import Foundation
import Logging
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// locationd's engine through its socket (one of the two `LocationRuntime`s): every command goes to the
/// daemon over the process's `DaemonLink`, every event comes from it. Nothing runs here but the
/// bookkeeping the link needs to resume after a daemon restart; what the app asks about its regions is
/// asked of the daemon (or, while it is away, answered from what it said last).
package final class DaemonClient: LocationRuntime {
    /// How the library finds its engine: `CORELOCATION_DAEMON`.
    package enum Mode: String, Sendable {
        /// locationd when its socket answers, else the in-process engine (the default).
        case auto
        /// Only locationd: wait for it (reconnecting) rather than run an engine in process.
        case require
        /// The in-process engine, always.
        case off
    }

    package let link: DaemonLink
    package let authorization: AuthorizationService
    package let scheduler: any Scheduler = DispatchScheduler()
    package let flow = DeliveryFlow()
    package let logger: Logger
    package let maximumRegionDistance: Double
    private let nextClient = Atomic<UInt64>(0)

    /// A runtime over `link`: no sources, no storage; authorization decided by the daemon.
    package init(link: DaemonLink, environment: [String: String], identity: AppIdentity? = nil, logger: Logger) {
        self.link = link
        self.logger = logger
        authorization = AuthorizationService(
            identity: identity ?? .current(environment: environment), store: nil, prompter: nil, environmentPolicy: nil,
            sourcesAreSimulated: false, logger: logger, broker: link
        )
        link.attach(authorization)
        // The daemon's decisions reach the service as its events; every client hears them, as in process.
        _ = authorization.addObserver { [weak link] change in link?.broadcast(.authorization(change)) }
        maximumRegionDistance = LocationEngine.Configuration().maximumRegionDistance
    }

    /// The daemon's socket for this process: `CORELOCATION_DAEMON_SOCKET`, else the per-user
    /// instance's when it exists, else the system instance's.
    package static func socketPath(environment: [String: String]) -> String {
        if let explicit = environment["CORELOCATION_DAEMON_SOCKET"], !explicit.isEmpty { return explicit }
        let user = DaemonProtocol.defaultSocketPath(environment: environment, isRoot: false)
        if FileManager.default.fileExists(atPath: user) { return user }
        return DaemonProtocol.systemSocketPath
    }

    /// A runtime whose engine is locationd's, or nil to run the engine in process. A simulation
    /// asked for in the environment (`CORELOCATION_SIMULATE`) keeps the engine in process under
    /// `auto`: the app asked for its own source.
    package static func connect(
        environment: [String: String], identity: AppIdentity? = nil, logger: Logger
    ) -> DaemonClient? {
        let mode = environment["CORELOCATION_DAEMON"].flatMap(Mode.init(rawValue:)) ?? .auto
        if mode == .off { return nil }
        if mode == .auto, let simulate = environment["CORELOCATION_SIMULATE"], !simulate.isEmpty { return nil }
        let path = socketPath(environment: environment)
        let label = (AppIdentity.executablePath() as NSString).lastPathComponent
        let link: DaemonLink
        do {
            link = try DaemonLink.connect(path: path, label: label, logger: logger)
        } catch {
            guard mode == .require else {
                logger.debug("locationd does not answer; running the engine in process", metadata: ["socket": "\(path)"])
                return nil
            }
            logger.notice("locationd does not answer yet; waiting for it", metadata: ["socket": "\(path)", "error": "\(error)"])
            link = DaemonLink.waiting(path: path, label: label, logger: logger)
        }
        return DaemonClient(link: link, environment: environment, identity: identity, logger: logger)
    }

    // MARK: LocationRuntime

    package var servicesEnabled: Bool {
        LocationServicesSwitch(environment: ProcessInfo.processInfo.environment).isEnabled && link.servicesEnabled
    }

    package var latestFix: Fix? { link.latestFix }
    package var heading: HeadingRuntime { .shared }
    package var beacons: BeaconRuntime { .shared }

    package func addClient(label: String, sink: @escaping @Sendable (ClientEvent) -> Void) -> ClientID {
        let id = ClientID(nextClient.add(1, ordering: .relaxed).newValue)
        link.register(id, label: label, sink: sink)
        return id
    }

    package func send(_ command: ClientCommand, from client: ClientID) { link.send(command, from: client) }

    package var monitoredRegions: [MonitoredRegion] { link.monitoredRegions() }

    package func engineStatus() -> EngineStatus? { nil }
    package func probeStatus(label: String, seconds: Double) async throws -> EngineStatus? { nil }

    /// locationd's sources are its own: a client hears none of their events.
    package func observeSources(_ observer: @escaping @Sendable (SourceID, SourceEvent) -> Void) {}

    // MARK: Beacon regions (decision 0050): the daemon watches them, running or not

    /// The daemon restores the app's regions itself.
    package func restoreBeaconRegions() {}

    /// Not queued while the daemon is away (a circular region's command is): the request fails then.
    package func startMonitoring(_ region: BeaconRegionSpec) -> BeaconRegionRefusal? {
        link.monitorBeaconRegion(region).map(BeaconRegionRefusal.init)
    }

    /// By the region's class, without asking the daemon first (an unknown identifier is ignored there).
    package func stopMonitoringBeaconRegion(_ identifier: String, isBeaconRegion: Bool) -> Bool {
        guard isBeaconRegion else { return false }
        link.stopMonitoringBeaconRegion(identifier)
        return true
    }

    /// The daemon's session answers; a region it does not monitor is refused.
    package func beaconRegionState(_ identifier: String, isBeaconRegion: Bool) -> BeaconRegionAnswer? {
        guard isBeaconRegion else { return nil }
        switch link.beaconRegionState(identifier) {
        case let .success(raw): return .state(nil, BeaconRegionState(rawValue: raw) ?? .unknown)
        case let .failure(failure): return .refused(BeaconRegionRefusal(failure))
        }
    }

    package var monitoredBeaconRegions: [BeaconRegionSpec] { link.beaconRegions() }

    // MARK: Monitors, kept events, sessions

    package func openMonitor(
        name: String, beacons: BeaconRuntime?, sink: @escaping @Sendable (MonitorEvent) -> Void
    ) -> any MonitorSession {
        DaemonMonitor(name: name, client: self, sink: sink)
    }

    package func addPendingConsumer(channel: PendingChannel, _ consumer: @escaping PendingConsumer) -> UInt64? {
        link.addPendingConsumer(channel: channel, consumer)
    }

    package func removePendingConsumer(_ id: UInt64) { link.removePendingConsumer(id) }

    package func holdSession() { link.holdSession() }
    package func releaseSession() { link.releaseSession() }
}

extension BeaconRegionRefusal {
    /// locationd's refusal: `not-permitted` (denied), `unavailable` (no scanner), or another failure.
    init(_ error: DaemonError) {
        let reason: Reason =
            switch error.code {
            case .notPermitted: .denied
            case .unavailable: .unavailable
            default: .failed
            }
        self.init(reason, message: error.message)
    }
}
