import CoreLocationBeacons
import CoreLocationDaemonProtocol
import CoreLocationEngine
import Foundation
import Synchronization

/// A `CLMonitor`'s conditions through locationd (decisions 0049, 0053): the daemon watches them (circles in the
/// app's engine, beacon conditions with its own scanner) and keeps them and their states across the app's
/// launches; a change it kept while no process of the app ran comes as a pending event of the monitor's
/// channel, once the monitor of that name exists again.
final class DaemonMonitor: MonitorSession {
    private struct State: Sendable {
        var client: ClientID?
        var pendingConsumer: UInt64?
        var restored: [MonitorRecordState] = []
    }

    let name: String
    let group: String
    private let client: DaemonClient
    private let state = Mutex(State())
    private let sink: @Sendable (MonitorEvent) -> Void

    init(name: String, client: DaemonClient, sink: @escaping @Sendable (MonitorEvent) -> Void) {
        self.name = name
        self.group = PendingKind.monitor(name)
        self.client = client
        self.sink = sink
        let engineClient = client.addClient(
            label: "CLMonitor \(name)", sink: MonitorEvent.forwarding(group: group, to: sink))
        state.withLock { $0.client = engineClient }
        var records: [MonitorRecordState] = []
        for stored in client.link.monitorConditions(name: name) {
            let region = stored.region
            records.append(
                MonitorRecordState(
                    identifier: region.identifier,
                    condition: .circle(latitude: region.latitude, longitude: region.longitude, radius: region.radius),
                    state: MonitorState(stored.state), date: nil, isUnsupported: false))
        }
        for stored in client.link.monitorBeaconConditions(name: name) {
            let condition = stored.condition
            records.append(
                MonitorRecordState(
                    identifier: condition.identifier,
                    condition: .beacon(uuid: condition.uuid, major: condition.major, minor: condition.minor),
                    state: MonitorState(BeaconRegionState(rawValue: stored.state) ?? .unknown), date: nil,
                    isUnsupported: false))
        }
        state.withLock { $0.restored = records }
    }

    var restored: [MonitorRecordState] { state.withLock { $0.restored } }

    /// The changes the daemon kept while no monitor of this name existed, handed in order now that the
    /// monitor's records are in place, as Apple delivers a relaunched app's events when it makes the monitor
    /// with the same name.
    func start() {
        // A monitor closed before it took an event leaves it with the daemon, for the next monitor of that
        // name (in a later process).
        let (name, group, sink) = (self.name, self.group, self.sink)
        let consumer = client.link.addPendingConsumer(channel: .monitor(name)) { payload, receipt in
            switch payload {
            case let .region(.determined(region, regionState, fix)) where region.group == group:
                sink(
                    .changed(
                        identifier: region.identifier, state: MonitorState(regionState), date: fix?.timestamp,
                        receipt: receipt))
            case let .beaconCondition(condition, beaconState) where condition.monitor == name:
                sink(
                    .changed(
                        identifier: condition.identifier, state: MonitorState(beaconState), date: nil, receipt: receipt))
            default:
                receipt.done()
            }
        }
        state.withLock { $0.pendingConsumer = consumer }
    }

    /// The daemon keeps the conditions and their states.
    var persists: Bool { true }

    func add(_ condition: MonitorCondition, identifier: String, state: MonitorState, date: Date) -> MonitorFailure? {
        switch condition {
        case let .circle(latitude, longitude, radius):
            send(
                .startMonitoring(
                    MonitoredRegion(
                        identifier: identifier, latitude: latitude, longitude: longitude, radius: radius, group: group)))
            return nil
        case let .beacon(uuid, major, minor):
            // The daemon watches it with its own scanner, for the app running or not, by the monitor's name.
            let spec = BeaconRegionSpec(identifier: identifier, uuid: uuid, major: major, minor: minor, monitor: name)
            guard let failure = client.link.monitorBeaconRegion(spec) else { return nil }
            return failure.code == .notPermitted ? .denied : .unsupported
        }
    }

    func keep(identifier: String, condition: MonitorCondition, state: MonitorState, date: Date) {}

    func remove(_ identifier: String, condition: MonitorCondition) {
        if case .beacon = condition {
            client.link.stopMonitoringBeaconRegion(identifier, monitor: name)
        } else {
            send(.stopMonitoring(identifier: identifier, group: group))
        }
    }

    func close() {
        let (engineClient, consumer) = state.withLock { ($0.client, $0.pendingConsumer) }
        if let engineClient { client.send(.unregister, from: engineClient) }
        if let consumer { client.link.removePendingConsumer(consumer) }
    }

    private func send(_ command: ClientCommand) {
        guard let engineClient = state.withLock({ $0.client }) else { return }
        client.send(command, from: engineClient)
    }
}
