import Foundation
import CoreLocationBeacons
import CoreLocationDaemonProtocol
import CoreLocationEngine
import Logging
import Synchronization

/// The app's side of locationd: one connection per process carrying every client of the process
/// (each `CLLocationManager`, `liveUpdates` stream, `CLMonitor`). It remembers what each client
/// asked for, so when the daemon restarts it reconnects by itself and asks again
/// (docs/decisions/0010-locationd.md).
package final class DaemonLink: Sendable {
    package struct Client {
        var label: String
        var sink: @Sendable (ClientEvent) -> Void
        var updates: UpdateRequest?
        var pendingRequest: UpdateRequest?
        var significantChanges = false
        var visits = false
    }

    package struct State {
        var connection: DaemonConnection?
        var clients: [ClientID: Client] = [:]
        var servicesEnabled = true
        var latestFix: Fix?
        /// The app's monitored regions as the daemon last said, kept up by this process's own commands: the
        /// answer to `monitoredRegions` while the daemon does not answer.
        var regions: [String: MonitoredRegion] = [:]
        var authorization: AuthorizationService?
        /// What this process asked for (`true`: Always), so a restarted daemon, which forgot a
        /// session-only grant, is asked again instead of the app reading "not determined".
        var requestedAuthorization: Bool?
        var reconnects = 0
        /// Takers of pending events by registration number, each on its channel: managers with a
        /// delegate (regions, visits), managers that started significant changes (decision 0039).
        var pendingConsumers: [UInt64: (channel: PendingChannel, consumer: PendingConsumer)] = [:]
        var nextConsumer: UInt64 = 0
        /// Pending events that came while their channel had no taker.
        var pendingQueue: [(sequence: UInt64, channel: PendingChannel, payload: PendingPayload?)] = []
        /// Per channel, the highest pending event handed to the takers, and the highest they all
        /// returned from: a number at or below `pendingHanded` is never handed again in this
        /// process, and the daemon is told before the hand-over so that no later process gets it
        /// (decision 0026).
        var pendingHanded: [PendingChannel: UInt64] = [:]
        var pendingDone: [PendingChannel: UInt64] = [:]
        /// Background activity and service sessions held by the process (decision 0048).
        var sessions = 0
    }

    package let path: String
    package let label: String
    package let logger: Logger
    private let state = Mutex(State())

    private init(path: String, label: String, logger: Logger) {
        self.path = path
        self.label = label
        self.logger = logger
    }

    /// Connects to the daemon at `path`; throws when it does not answer.
    package static func connect(path: String, label: String, logger: Logger) throws -> DaemonLink {
        let link = DaemonLink(path: path, label: label, logger: logger)
        let connection = try DaemonConnection.connect(path: path, label: label, timeout: 2)
        link.adopt(connection)
        return link
    }

    /// A link that is not connected yet and keeps trying (`CORELOCATION_DAEMON=require` before the
    /// daemon runs); clients register as soon as it answers.
    package static func waiting(path: String, label: String, logger: Logger) -> DaemonLink {
        let link = DaemonLink(path: path, label: label, logger: logger)
        let thread = Thread { [weak link] in link?.reconnectLoop() }
        thread.name = "corelocation.daemon-reconnect"
        thread.start()
        return link
    }

    /// The app identity the daemon resolved for this process, from the hello.
    package var hello: ServerHello? { state.withLock { $0.connection?.hello } }
    package var servicesEnabled: Bool { state.withLock { $0.servicesEnabled } }
    package var latestFix: Fix? { state.withLock { $0.latestFix } }
    /// How many times the link reconnected (for tests and `locationctl status`).
    package var reconnects: Int { state.withLock { $0.reconnects } }

    /// The daemon's reply to `request`, waited for on the calling thread; nil when it does not
    /// answer (no connection, or the connection went).
    private func ask(_ request: DaemonRequest) -> DaemonReply? {
        guard let connection = state.withLock({ $0.connection }) else { return nil }
        return try? connection.request(request)
    }

    /// The app's monitored regions as the daemon keeps them (across the app's launches; not its monitors'
    /// conditions), sorted by identifier; while it does not answer, what it said last with this process's
    /// changes since.
    package func monitoredRegions() -> [MonitoredRegion] {
        if case let .regions(regions)? = ask(.monitoredRegions) {
            state.withLock { state in
                state.regions = Dictionary(regions.map { ($0.region.identifier, MonitoredRegion($0.region)) }) { $1 }
            }
        }
        return state.withLock { $0.regions.values.sorted { $0.identifier < $1.identifier } }
    }

    /// The conditions of the app's monitor `name` as the daemon keeps them; empty when it does not answer.
    package func monitorConditions(name: String) -> [StoredRegion] {
        guard case let .regions(regions)? = ask(.monitorConditions(name: name)) else { return [] }
        return regions.map(StoredRegion.init)
    }

    /// The app's beacon regions as the daemon keeps them; empty when it does not answer.
    package func beaconRegions() -> [BeaconRegionSpec] {
        guard case let .beaconRegions(regions)? = ask(.beaconRegions) else { return [] }
        return regions
    }

    /// Asks the daemon to watch a beacon region for the app; the failure it answered, nil when it
    /// took it. Not queued while the daemon is away (a circular region's command is): the request
    /// fails then, and the app hears `monitoringDidFailFor`.
    package func monitorBeaconRegion(_ region: BeaconRegionSpec) -> DaemonError? {
        switch ask(.monitorBeaconRegion(region)) {
        case .ok?: return nil
        case let .failure(error)?: return error
        default: return DaemonError(.unavailable, "locationd does not answer")
        }
    }

    /// A beacon region's state as the daemon's session holds it; the failure when it has none.
    package func beaconRegionState(_ identifier: String) -> Result<Int, DaemonError> {
        switch ask(.beaconRegionState(identifier: identifier)) {
        case let .beaconRegionState(state)?: return .success(state)
        case let .failure(error)?: return .failure(error)
        default: return .failure(DaemonError(.unavailable, "locationd does not answer"))
        }
    }

    package func stopMonitoringBeaconRegion(_ identifier: String, monitor: String? = nil) {
        state.withLock { $0.connection }?.send(.stopMonitoringBeaconRegion(identifier: identifier, monitor: monitor))
    }

    /// The beacon conditions of the app's monitor `name` as the daemon keeps them; empty when it does not answer.
    package func monitorBeaconConditions(name: String) -> [BeaconConditionState] {
        guard case let .beaconConditions(conditions)? = ask(.monitorBeaconConditions(name: name)) else { return [] }
        return conditions
    }

    package func attach(_ authorization: AuthorizationService) {
        let hello = state.withLock { state in
            state.authorization = authorization
            return state.connection?.hello
        }
        if let hello { authorization.applyRemote(ClientAuthorization(hello.authorization), requestInProgress: false) }
    }

    // MARK: Clients

    package func register(_ id: ClientID, label: String, sink: @escaping @Sendable (ClientEvent) -> Void) {
        let connection = state.withLock { state in
            state.clients[id] = Client(label: label, sink: sink)
            return state.connection
        }
        connection?.send(.register(client: id.rawValue, label: label))
    }

    package func send(_ command: ClientCommand, from id: ClientID) {
        guard let wire = WireCommand(command) else { return }
        let connection = state.withLock { state -> DaemonConnection? in
            guard var client = state.clients[id] else { return nil }
            switch command {
            case .register, .setAuthorization: return nil
            case let .startUpdates(request): client.updates = request
            case .stopUpdates: client.updates = nil
            case let .requestLocation(request): client.pendingRequest = request
            case .startSignificantChanges: client.significantChanges = true
            case .stopSignificantChanges: client.significantChanges = false
            case .startVisits: client.visits = true
            case .stopVisits: client.visits = false
            case let .startMonitoring(region) where region.group.isEmpty: state.regions[region.identifier] = region
            case let .stopMonitoring(identifier, group) where group.isEmpty: state.regions[identifier] = nil
            case .unregister:
                state.clients[id] = nil
                return state.connection
            default: break
            }
            state.clients[id] = client
            return state.connection
        }
        connection?.send(.command(client: id.rawValue, command: wire))
    }

    // MARK: Messages

    private func adopt(_ connection: DaemonConnection) {
        state.withLock { $0.connection = connection }
        connection.startReading { [weak self, weak connection] message in
            guard let self else { return }
            guard let message else {
                if let connection { self.lost(connection) }
                return
            }
            self.receive(message, on: connection)
        }
        // An app in a terminal may still ask there when its user runs no agent (decision 0018).
        if TerminalPrompter.isAvailable() { connection.send(.offerPrompts) }
    }

    /// The daemon asks this app's person, in this app's terminal (its user has no agent).
    private func answerPrompt(_ id: UInt64, _ question: AgentQuestion, on connection: DaemonConnection?) {
        Thread.detachNewThread {
            let answer = TerminalPrompter().ask(AuthorizationQuestion(question))?.agentAnswer
            connection?.send(.answerPrompt(id: id, answer: answer))
        }
    }

    private func receive(_ message: DaemonMessage, on connection: DaemonConnection?) {
        switch message {
        case let .event(sequence, .client(client, event)):
            deliver(ClientEvent(event), to: ClientID(client))
            if let sequence { connection?.send(.acknowledge(sequence: sequence)) }
        case let .event(sequence, .authorization(authorization, inProgress)):
            state.withLock { $0.authorization }?.applyRemote(ClientAuthorization(authorization), requestInProgress: inProgress)
            if let sequence { connection?.send(.acknowledge(sequence: sequence)) }
        case let .event(sequence, .services(enabled)):
            state.withLock { $0.servicesEnabled = enabled }
            if let sequence { connection?.send(.acknowledge(sequence: sequence)) }
        case let .event(_, .pending(sequence, kind, region, location, visit, beacon, beaconState)):
            let payload: PendingPayload? =
                if let region { .region(RegionNotice(region)) } else if let location { .location(Delivery(location)) }
                else if let visit {
                    .visit(Visit(visit))
                } else if let beacon, let beaconState {
                    .beaconCondition(beacon, BeaconRegionState(rawValue: beaconState) ?? .unknown)
                } else if let beacon { .beacon(entered: kind == PendingKind.beaconEnter, beacon) } else { nil }
            receivePending(sequence, PendingChannel(kind: kind), payload)
        case let .event(_, .prompt(id, question)):
            answerPrompt(id, question, on: connection)
        case let .error(error):
            logger.warning("locationd reported an error", metadata: ["error": "\(error)"])
        case .hello, .reply:
            break
        }
    }

    private func deliver(_ event: ClientEvent, to id: ClientID) {
        let sink = state.withLock { state -> (@Sendable (ClientEvent) -> Void)? in
            if case let .delivery(delivery) = event {
                if let last = delivery.fixes.last, !delivery.accuracyLimited { state.latestFix = last }
                if delivery.isRequestedLocation { state.clients[id]?.pendingRequest = nil }
            }
            if case .failure = event { state.clients[id]?.pendingRequest = nil }
            return state.clients[id]?.sink
        }
        sink?(event)
    }

    /// Tells every client, in the order they registered.
    package func broadcast(_ event: ClientEvent) {
        let sinks = state.withLock { state in
            state.clients.sorted { $0.key.rawValue < $1.key.rawValue }.map(\.value.sink)
        }
        for sink in sinks { sink(event) }
    }

    // MARK: Reconnecting

    private func lost(_ connection: DaemonConnection) {
        let isCurrent = state.withLock { state -> Bool in
            guard state.connection === connection else { return false }
            state.connection = nil
            return true
        }
        guard isCurrent else { return }
        logger.notice("Lost locationd; reconnecting", metadata: ["socket": "\(path)"])
        let thread = Thread { [weak self] in self?.reconnectLoop() }
        thread.name = "corelocation.daemon-reconnect"
        thread.start()
    }

    private func reconnectLoop() {
        var delay = 0.05
        while true {
            if let connection = try? DaemonConnection.connect(path: path, label: label, timeout: 2) {
                resume(on: connection)
                return
            }
            Thread.sleep(forTimeInterval: delay)
            delay = min(delay * 2, 0.25)
        }
    }

    /// Registers every client again and repeats what each had asked for.
    private func resume(on connection: DaemonConnection) {
        let (clients, authorization) = state.withLock { state in
            state.connection = connection
            state.reconnects += 1
            return (state.clients, state.authorization)
        }
        adopt(connection)
        for (id, client) in clients.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            let number = id.rawValue
            connection.send(.register(client: number, label: client.label))
            if let updates = client.updates {
                connection.send(.command(client: number, command: .startUpdates(WireUpdateRequest(updates))))
            }
            if client.significantChanges { connection.send(.command(client: number, command: .startSignificantChanges)) }
            if client.visits { connection.send(.command(client: number, command: .startVisits)) }
            if let request = client.pendingRequest {
                connection.send(.command(client: number, command: .requestLocation(WireUpdateRequest(request))))
            }
        }
        if state.withLock({ !$0.pendingConsumers.isEmpty }) { connection.send(.receivePending) }
        if state.withLock({ $0.sessions > 0 }) { connection.send(.holdSession(true)) }
        let requested = state.withLock { $0.requestedAuthorization }
        if connection.hello.authorization.level == .notDetermined, let always = requested {
            // The grant was session-only (Allow Once, a default policy) and died with the daemon:
            // ask again; the answer comes as an authorization event. The app never reads a
            // "not determined" it did not have.
            connection.send(.requestAuthorization(always: always))
        } else {
            authorization?.applyRemote(ClientAuthorization(connection.hello.authorization), requestInProgress: false)
        }
        state.withLock { $0.servicesEnabled = connection.hello.servicesEnabled }
        logger.notice("Reconnected to locationd", metadata: ["socket": "\(path)"])
    }
}

// MARK: Sessions (decision 0048)

extension DaemonLink {
    /// A session was made: the daemon hears of the first.
    package func holdSession() {
        let connection = state.withLock { state -> DaemonConnection? in
            state.sessions += 1
            return state.sessions == 1 ? state.connection : nil
        }
        connection?.send(.holdSession(true))
    }

    /// A session ended: the daemon hears when none is left.
    package func releaseSession() {
        let connection = state.withLock { state -> DaemonConnection? in
            state.sessions = max(0, state.sessions - 1)
            return state.sessions == 0 ? state.connection : nil
        }
        connection?.send(.holdSession(false))
    }
}

// MARK: Pending events (decision 0026)

extension DaemonLink {
    /// Registers a taker of pending events of `channel`; the first taker of any channel tells the
    /// daemon to send them (those of a channel without a taker wait here for one).
    package func addPendingConsumer(
        channel: PendingChannel = .delegate, _ consumer: @escaping PendingConsumer
    ) -> UInt64 {
        let (id, first, connection, queued) = state.withLock { state in
            state.nextConsumer += 1
            state.pendingConsumers[state.nextConsumer] = (channel, consumer)
            let queued = state.pendingQueue.filter { $0.channel == channel }
            state.pendingQueue.removeAll { $0.channel == channel }
            return (state.nextConsumer, state.pendingConsumers.count == 1, state.connection, queued)
        }
        for event in queued { receivePending(event.sequence, event.channel, event.payload) }
        if first { connection?.send(.receivePending) }
        return id
    }

    package func removePendingConsumer(_ id: UInt64) {
        state.withLock { $0.pendingConsumers[id] = nil }
    }

    /// One pending event from the daemon: handed to every taker of its channel unless this
    /// process handed it already (the daemon sends again what was not acknowledged); acknowledged
    /// once all returned.
    private func receivePending(_ sequence: UInt64, _ channel: PendingChannel, _ payload: PendingPayload?) {
        enum Step: Sendable {
            case hand([PendingConsumer], DaemonConnection?)
            case acknowledgeAgain(UInt64, DaemonConnection?)
            case wait
        }
        let step = state.withLock { state -> Step in
            if sequence <= state.pendingHanded[channel, default: 0] {
                let done = state.pendingDone[channel, default: 0]
                return sequence <= done ? .acknowledgeAgain(done, state.connection) : .wait
            }
            let consumers = state.pendingConsumers.filter { $0.value.channel == channel }
            if consumers.isEmpty {
                if !state.pendingQueue.contains(where: { $0.sequence == sequence }) {
                    state.pendingQueue.append((sequence, channel, payload))
                }
                return .wait
            }
            state.pendingHanded[channel] = sequence
            return .hand(consumers.sorted { $0.key < $1.key }.map(\.value.consumer), state.connection)
        }
        switch step {
        case let .acknowledgeAgain(done, connection):
            connection?.send(.acknowledgePending(sequence: done, channel: channel))
        case .wait:
            break
        case let .hand(consumers, connection):
            guard let payload else { return pendingReturned(sequence, channel) }
            let handed = Atomic(false)
            let remaining = Mutex(consumers.count)
            let receipt = PendingReceipt(
                handed: {
                    // Once, in the kernel's socket buffer before the app's code runs.
                    if !handed.exchange(true, ordering: .relaxed) {
                        connection?.send(.handingPending(sequence: sequence, channel: channel))
                    }
                },
                done: { [weak self] in
                    if remaining.withLock({ count -> Bool in
                        count -= 1
                        return count == 0
                    }) { self?.pendingReturned(sequence, channel) }
                })
            for consumer in consumers { consumer(payload, receipt) }
        }
    }

    private func pendingReturned(_ sequence: UInt64, _ channel: PendingChannel) {
        let connection = state.withLock { state in
            state.pendingDone[channel] = max(state.pendingDone[channel, default: 0], sequence)
            return state.connection
        }
        connection?.send(.acknowledgePending(sequence: sequence, channel: channel))
    }
}

extension DaemonLink: AuthorizationBroker {
    package func requestAuthorization(always: Bool) {
        state.withLock { state in
            state.requestedAuthorization = always || state.requestedAuthorization == true
            return state.connection
        }?.send(.requestAuthorization(always: always))
    }

    package func requestTemporaryFullAccuracy(purposeKey: String, completion: @escaping @Sendable (Int?) -> Void) {
        guard let connection = state.withLock({ $0.connection }) else { return completion(nil) }
        connection.send(.requestTemporaryFullAccuracy(purposeKey: purposeKey)) { reply in
            if case let .accuracy(code) = reply { completion(code) } else { completion(nil) }
        }
    }
}
