import Foundation
import CoreLocationEngine
import CoreLocationSources
import CoreLocationStorage
import Logging
import Synchronization

/// The thin shell around `LocationEngine` inside one process: it feeds the engine inputs with the
/// scheduler's time, performs the actions it returns (deliver to a client, power a source), keeps
/// the engine's timer armed, and tells every client when the app's authorization changes.
///
/// All engine work happens under one lock; actions are performed outside it, in the order the
/// engine produced them, by whichever thread is draining (one at a time).
package final class LocationRuntime: Sendable {
    package enum ClientEvent: Sendable {
        case delivery(Delivery)
        case failure(EngineFailure)
        case authorization(ClientAuthorization)
        case region(RegionNotice)
        case deferredFinished(DeferralError?)
        case visit(Visit)
        /// Automatic pausing of this client's updates began (true) or ended (false).
        case paused(Bool)
        /// An event of one of the app's beacon regions (every client hears it, as a crossing).
        case beaconRegion(BeaconRegionMonitor.Notice)
    }

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
    /// Set when the engine is locationd's: clients' commands go there, and the local engine only
    /// mirrors them (for `monitoredRegions`); see `LocationRuntime+Daemon.swift`.
    package let link: DaemonLink?
    /// The app's beacon regions in the process (LocationRuntime+Beacons.swift).
    package let beaconRegionSlot = Mutex(BeaconRegionSlot())
    private let core: Mutex<Core>

    package init(
        sources: [any LocationSource],
        scheduler: any Scheduler,
        authorization: AuthorizationService,
        configuration: LocationEngine.Configuration = .init(),
        regionStore: RegionStore? = nil,
        logger: Logger = Logger(label: "corelocation"),
        link: DaemonLink? = nil
    ) {
        self.link = link
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
        link?.register(id, label: label, sink: sink)
        input(.client(id, .register(label: label, authorization: authorization.authorization)))
        return id
    }

    package func send(_ command: ClientCommand, from client: ClientID) {
        link?.send(command, from: client)
        input(.client(client, command))
        if case .unregister = command {
            _ = core.withLock { $0.sinks.removeValue(forKey: client) }
        }
    }

    /// The engine's status, with the device of each source's last fix where a source says it.
    package func status() -> EngineStatus {
        let now = scheduler.now
        var status = core.withLock { $0.engine.status(at: now) }
        // Read outside the engine's lock: a source takes its own lock for its origin.
        for index in status.sources.indices {
            status.sources[index].origin = sources[status.sources[index].descriptor.id]?.fixOrigin
        }
        return status
    }

    package var latestFix: Fix? { link?.latestFix ?? core.withLock { $0.engine.latestFix } }

    /// The app's monitored regions with their states, sorted by identifier.
    package var monitoredRegions: [StoredRegion] { core.withLock { $0.engine.monitoredRegions } }

    /// Hears every event of every source (for `locationctl`: a replay that finished).
    package func observeSources(_ observer: @escaping @Sendable (SourceID, SourceEvent) -> Void) {
        core.withLock { $0.sourceObservers.append(observer) }
    }

    // MARK: Engine plumbing

    /// Tells every client.
    package func broadcast(_ event: ClientEvent) {
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
        let isMirror = link != nil
        core.withLock { core in
            let actions = core.engine.handle(input, at: now)
            // A daemon client's engine only mirrors its commands; the daemon acts.
            if !isMirror { core.outbox += actions }
        }
        if isMirror { return }
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
            for action in actions {
                switch action {
                case let .deliver(id, _), let .fail(id, _), let .region(id, _), let .deferredFinished(id, _),
                    let .visit(id, _), let .paused(id), let .resumed(id):
                    perform(action, sink: sinks[id])
                default: perform(action, sink: nil)
                }
            }
        }
        armTimer()
    }

    private func perform(_ action: EngineAction, sink: (@Sendable (ClientEvent) -> Void)?) {
        switch action {
        case let .deliver(_, delivery):
            sink?(.delivery(delivery))
        case let .fail(_, failure):
            sink?(.failure(failure))
        case let .powerOn(id):
            guard let source = sources[id] else { return }
            logger.debug("Powering on", metadata: ["source": "\(id)"])
            source.start { [weak self] event in
                self?.sourceEvent(event, from: id)
            }
        case let .powerOff(id):
            logger.debug("Powering off", metadata: ["source": "\(id)"])
            sources[id]?.stop()
        case let .region(_, notice):
            sink?(.region(notice))
        case let .deferredFinished(_, error):
            sink?(.deferredFinished(error))
        case let .visit(_, visit):
            sink?(.visit(visit))
        case .paused:
            sink?(.paused(true))
        case .resumed:
            sink?(.paused(false))
        case .storeRegion, .forgetRegion:
            persist(action)
        }
    }

    private func sourceEvent(_ event: SourceEvent, from id: SourceID) {
        let observers = core.withLock { $0.sourceObservers }
        switch event {
        case let .fix(fix): input(.source(id, .fix(fix)))
        case let .pressure(sample): input(.source(id, .pressure(sample)))
        case let .unavailable(reason): input(.source(id, .unavailable(reason: reason)))
        case .finished: input(.source(id, .finished))
        }
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
