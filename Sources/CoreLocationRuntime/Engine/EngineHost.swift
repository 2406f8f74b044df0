import Foundation
import CoreLocationDaemonProtocol
import CoreLocationEngine
import CoreLocationSources
import CoreLocationStorage
import Logging
import Synchronization

/// The engine in this process: the thin shell around `LocationEngine` (one of the two `LocationRuntime`s).
/// It feeds the engine inputs with the scheduler's time, performs the actions it returns (tell a client,
/// power a source, persist a region), keeps the engine's timer armed, and tells every client when the
/// app's authorization changes. locationd runs one per app, over its shared sources.
///
/// All engine work happens under one lock; actions are performed outside it, in the order the
/// engine produced them, by whichever thread is draining (one at a time).
package final class EngineHost: LocationRuntime {
    private struct Core: Sendable {
        var engine: LocationEngine
        var sinks: [ClientID: @Sendable (ClientEvent) -> Void] = [:]
        var nextClient: UInt64 = 0
        var outbox: [EngineAction] = []
        var isDraining = false
        var timer: (deadline: Double, work: any ScheduledWork)?
        var sourceObservers: [@Sendable (SourceID, SourceEvent) -> Void] = []
    }

    package let scheduler: any Scheduler
    package let authorization: AuthorizationService
    package let sources: [SourceID: any LocationSource]
    package let logger: Logger
    /// Where the app's regions and monitor records persist; nil keeps them for this run only.
    package let regionStore: RegionStore?
    package let configuration: LocationEngine.Configuration
    /// Backpressure between the sources that support it (replays, stream readers) and delegate
    /// delivery: a source waits while `flow.limit` deliveries are queued and not yet run.
    package let flow = DeliveryFlow()
    /// The app's beacon regions, and the runtimes tests give instead of the process's (EngineHost+Beacons).
    let beaconSlot = Mutex(BeaconSlot())
    private let headingOverride = Mutex<HeadingRuntime?>(nil)
    private let core: Mutex<Core>

    package init(
        sources: [any LocationSource],
        scheduler: any Scheduler,
        authorization: AuthorizationService,
        configuration: LocationEngine.Configuration = .init(),
        regionStore: RegionStore? = nil,
        logger: Logger = Logger(label: "corelocation")
    ) {
        self.scheduler = scheduler
        self.authorization = authorization
        self.logger = logger
        self.regionStore = regionStore
        self.configuration = configuration
        var byID: [SourceID: any LocationSource] = [:]
        for source in sources {
            byID[source.descriptor.id] = source
            (source as? any FlowControlledSource)?.attach(flow)
        }
        self.sources = byID
        core = Mutex(Core(engine: LocationEngine(sources: sources.map(\.descriptor), configuration: configuration)))
        _ = authorization.addObserver { [weak self] change in
            self?.authorizationChanged(change)
        }
        restoreRegions()
    }

    // MARK: LocationRuntime

    package var servicesEnabled: Bool { LocationServicesSwitch(environment: ProcessInfo.processInfo.environment).isEnabled }
    package var maximumRegionDistance: Double { configuration.maximumRegionDistance }
    package var latestFix: Fix? { core.withLock { $0.engine.latestFix } }

    package var heading: HeadingRuntime { headingOverride.withLock { $0 } ?? .shared }

    /// Tests and `locationctl`: this runtime's managers use `heading` instead of the process's compass.
    package func useHeading(_ heading: HeadingRuntime) { headingOverride.withLock { $0 = heading } }

    // MARK: Clients

    /// Registers a client; `sink` hears its deliveries, failures and authorization changes on
    /// whatever thread drains the engine, so it must hop to its own thread itself.
    package func addClient(label: String, sink: @escaping @Sendable (ClientEvent) -> Void) -> ClientID {
        let id = core.withLock { core in
            core.nextClient += 1
            let id = ClientID(core.nextClient)
            core.sinks[id] = sink
            return id
        }
        input(.client(id, .register(label: label, authorization: authorization.authorization)))
        return id
    }

    package func send(_ command: ClientCommand, from client: ClientID) {
        input(.client(client, command))
        if case .unregister = command {
            _ = core.withLock { $0.sinks.removeValue(forKey: client) }
        }
    }

    /// Unregisters several clients in one engine step (a daemon connection closed).
    package func removeClients(_ ids: [ClientID]) {
        guard !ids.isEmpty else { return }
        input(.unregisterAll(ids))
        core.withLock { core in
            for id in ids { core.sinks[id] = nil }
        }
    }

    /// The engine's status, with the device of each source's last fix where a source says it.
    package func engineStatus() -> EngineStatus? { status() }

    package func probeStatus(label: String, seconds: Double) async throws -> EngineStatus? {
        let client = addClient(label: label) { _ in }
        defer { send(.unregister, from: client) }
        // Location Services off powers nothing, not even for a diagnosis.
        let services = LocationServicesSwitch(isEnabled: authorization.servicesEnabled)
        send(.setAuthorization(services.apply(to: ClientAuthorization(level: .whenInUse))), from: client)
        send(.startUpdates(UpdateRequest()), from: client)
        try await Task.sleep(for: .seconds(seconds))
        var status = status()
        if !authorization.authorization.allowsLocation {
            // A modem's origin names its serving cell: a coarse position too.
            for index in status.sources.indices {
                status.sources[index].lastFix = nil
                status.sources[index].origin = nil
            }
        }
        return status
    }

    package func status() -> EngineStatus {
        let now = scheduler.now
        var status = core.withLock { $0.engine.status(at: now) }
        // Read outside the engine's lock: a source takes its own lock for its origin.
        for index in status.sources.indices {
            status.sources[index].origin = sources[status.sources[index].descriptor.id]?.fixOrigin
        }
        return status
    }

    /// The app's regions of every group (monitors' conditions too) with their states, sorted by group and identifier.
    package var storedRegions: [StoredRegion] { core.withLock { $0.engine.monitoredRegions } }

    package var monitoredRegions: [MonitoredRegion] { storedRegions.filter { $0.region.group.isEmpty }.map(\.region) }

    /// Hears every event of every source (for `locationctl`: a replay that finished).
    package func observeSources(_ observer: @escaping @Sendable (SourceID, SourceEvent) -> Void) {
        core.withLock { $0.sourceObservers.append(observer) }
    }

    // MARK: Engine plumbing

    /// Tells every client.
    func broadcast(_ event: ClientEvent) {
        let clients = core.withLock { Array($0.sinks) }
        for (_, sink) in clients.sorted(by: { $0.key.rawValue < $1.key.rawValue }) { sink(event) }
    }

    private func authorizationChanged(_ change: ClientAuthorization) {
        let clients = core.withLock { Array($0.sinks) }
        for (id, sink) in clients.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            input(.client(id, .setAuthorization(change)))
            sink(.authorization(change))
        }
    }

    package func input(_ input: EngineInput) {
        let now = scheduler.now
        core.withLock { core in core.outbox += core.engine.handle(input, at: now) }
        drain()
    }

    private func drain() {
        let mayDrain = core.withLock { core -> Bool in
            if core.isDraining { return false }
            core.isDraining = true
            return true
        }
        guard mayDrain else { return }
        // Each action goes to its client's sink as the sinks were when the batch was taken.
        while let (actions, sinks) = core.withLock({ core -> ([EngineAction], [ClientID: @Sendable (ClientEvent) -> Void])? in
            guard !core.outbox.isEmpty else {
                core.isDraining = false
                return nil
            }
            defer { core.outbox = [] }
            return (core.outbox, core.sinks)
        }) {
            let performAll = {
                for action in actions {
                    if let (client, event) = ClientEvent.of(action) {
                        sinks[client]?(event)
                    } else {
                        self.perform(action)
                    }
                }
            }
            // Sources powered on together start at one instant of a replay's timeline, even when this runs outside
            // it (a client's command): a GNSS replay and its IMU's must not start apart (decision 0095, Wiring).
            // The cast only when a source is powered on: a dynamic cast of the existential costs more than all else
            // this loop does before the first client's sink, and runs for every delivery (decision 0097).
            let powersOn = actions.contains { if case .powerOn = $0 { true } else { false } }
            if powersOn, let timeline = scheduler as? ReplayScheduler {
                timeline.holding(performAll)
            } else {
                performAll()
            }
        }
        armTimer()
    }

    /// The actions the host performs itself: power and persistence.
    private func perform(_ action: EngineAction) {
        switch action {
        case let .powerOn(id):
            guard let source = sources[id] else { return }
            logger.debug("Powering on", metadata: ["source": "\(id)"])
            source.start { [weak self] event in
                self?.sourceEvent(event, from: id)
            }
        case let .powerOff(id):
            logger.debug("Powering off", metadata: ["source": "\(id)"])
            sources[id]?.stop()
        case .storeRegion, .forgetRegion:
            persist(action)
        default:
            break
        }
    }

    private func sourceEvent(_ event: SourceEvent, from id: SourceID) {
        let observers = core.withLock { $0.sourceObservers }
        input(.source(id, event))
        for observer in observers { observer(id, event) }
    }

    private func armTimer() {
        let stale: (any ScheduledWork)? = core.withLock { core in
            let deadline = core.engine.nextDeadline
            if core.timer?.deadline == deadline { return nil }
            // A later deadline keeps the armed, earlier timer: it fires, ticks (nothing is due yet)
            // and re-arms. Re-arming on every fix instead would leave one cancelled dispatch timer per
            // fix waiting for its time (a replay at thousands of fixes a second piled them up).
            if let armed = core.timer?.deadline, let deadline, armed <= deadline { return nil }
            let old = core.timer?.work
            core.timer = nil
            if let deadline {
                let work = scheduler.schedule(at: deadline) { [weak self] in
                    self?.timerFired(deadline)
                }
                core.timer = (deadline, work)
            }
            return old
        }
        stale?.cancel()
    }

    private func timerFired(_ deadline: Double) {
        core.withLock { core in
            if core.timer?.deadline == deadline { core.timer = nil }
        }
        input(.tick)
    }
}

/// What only locationd does: keep events for an app that is not running, relaunch it for a session.
extension EngineHost {
    /// A running process hears every event: nothing is kept for it.
    package func addPendingConsumer(channel: PendingChannel, _ consumer: @escaping PendingConsumer) -> UInt64? { nil }
    package func removePendingConsumer(_ id: UInt64) {}
    /// Nothing relaunches an app whose engine is its own.
    package func holdSession() {}
    package func releaseSession() {}
}
