import CoreLocationBeacons
import CoreLocationDaemonProtocol
import CoreLocationEngine
import CoreLocationStorage
import Foundation
import Synchronization

/// A `CLMonitor`'s conditions in this process: circles are the engine's regions of the monitor's group, beacon
/// conditions a ranging session's regions on the beacon runtime's scanner, and the records rows of the
/// host's database (by monitor name), so a monitor of the same name watches them again in the next run.
final class EngineMonitor: MonitorSession {
    private struct State: Sendable {
        var client: ClientID?
        var beaconSession: BeaconRangingSession?
        var restored: [MonitorRecordState] = []
    }

    let name: String
    let group: String
    private let host: EngineHost
    private let beaconRuntime: BeaconRuntime
    private let sink: @Sendable (MonitorEvent) -> Void
    private let state = Mutex(State())

    init(name: String, host: EngineHost, beacons: BeaconRuntime, sink: @escaping @Sendable (MonitorEvent) -> Void) {
        self.name = name
        self.group = PendingKind.monitor(name)
        self.host = host
        self.beaconRuntime = beacons
        self.sink = sink
        let client = host.addClient(label: "CLMonitor \(name)", sink: MonitorEvent.forwarding(group: group, to: sink))
        state.withLock { $0.client = client }
        restore()
    }

    var restored: [MonitorRecordState] { state.withLock { $0.restored } }
    var persists: Bool { host.regionStore != nil }

    /// Nothing is kept for the app in process: a running process hears every change.
    func start() {}

    func add(_ condition: MonitorCondition, identifier: String, state: MonitorState, date: Date) -> MonitorFailure? {
        switch condition {
        case let .circle(latitude, longitude, radius):
            send(
                .startMonitoring(
                    MonitoredRegion(
                        identifier: identifier, latitude: latitude, longitude: longitude, radius: radius, group: group)))
            return nil
        case let .beacon(uuid, major, minor):
            guard let session = beaconSession() else { return .unsupported }
            session.startMonitoring(identifier: identifier, constraint: BeaconConstraint(uuid: uuid, major: major, minor: minor))
            return nil
        }
    }

    func keep(identifier: String, condition: MonitorCondition, state: MonitorState, date: Date) {
        guard let store = host.regionStore else { return }
        do {
            let row = MonitorRecordRow(
                identifier: identifier, condition: try JSONEncoder().encode(condition), state: Int(state.rawValue),
                date: date)
            try store.save(row, monitor: name, appID: host.authorization.identity.id)
        } catch {
            host.logger.error("Cannot persist a monitor record", metadata: ["error": "\(error)"])
        }
    }

    func remove(_ identifier: String, condition: MonitorCondition) {
        if case .beacon = condition {
            state.withLock { $0.beaconSession }?.stopMonitoring(identifier: identifier)
        } else {
            send(.stopMonitoring(identifier: identifier, group: group))
        }
        do {
            try host.regionStore?.removeRecord(identifier: identifier, monitor: name, appID: host.authorization.identity.id)
        } catch {
            host.logger.error("Cannot forget a monitor record", metadata: ["error": "\(error)"])
        }
    }

    func close() {
        if let client = state.withLock({ $0.client }) { host.send(.unregister, from: client) }
        state.withLock { $0.beaconSession = nil }
    }

    private func send(_ command: ClientCommand) {
        guard let client = state.withLock({ $0.client }) else { return }
        host.send(command, from: client)
    }

    // MARK: Beacon conditions (docs/decisions/0030)

    /// The monitor's beacon session, made at first use; nil when the process has no scanner
    /// (`CORELOCATION_BEACONS=off`, no system bus): then beacon conditions stay unsupported.
    private func beaconSession() -> BeaconRangingSession? {
        let runtime = beaconRuntime
        guard let scanner = runtime.scanner else { return nil }
        return state.withLock { state in
            if let session = state.beaconSession { return session }
            let session = BeaconRangingSession(scanner: scanner, scheduler: runtime.scheduler) { [weak self] output in
                self?.handleBeacon(output)
            }
            state.beaconSession = session
            return session
        }
    }

    /// A beacon region's state becomes the condition's: inside → satisfied (at the first matching advert),
    /// outside → unsatisfied (after the 30 s silence). Like locations, only while the app is authorized; a radio
    /// that goes away leaves the last state (the silence timer still runs).
    private func handleBeacon(_ output: BeaconRangingSession.Output) {
        guard case .action(.determined(let identifier, let regionState)) = output,
            host.authorization.servicesEnabled, host.authorization.authorization.allowsLocation
        else { return }
        sink(.changed(identifier: identifier, state: MonitorState(regionState), date: nil, receipt: nil))
    }

    // MARK: Restoring

    private func restore() {
        guard let store = host.regionStore else { return }
        let rows: [MonitorRecordRow]
        do {
            rows = try store.records(monitor: name, appID: host.authorization.identity.id)
        } catch {
            host.logger.error(
                "Cannot read the records of a monitor", metadata: ["monitor": "\(name)", "error": "\(error)"])
            return
        }
        var records: [MonitorRecordState] = []
        var regions: [StoredRegion] = []
        var beacons: [(String, BeaconConstraint)] = []
        for row in rows {
            guard let condition = try? JSONDecoder().decode(MonitorCondition.self, from: row.condition),
                let state = MonitorState(rawValue: UInt(row.state))
            else {
                host.logger.warning("Skipping an unreadable monitor record", metadata: ["monitor": "\(name)"])
                continue
            }
            var record = MonitorRecordState(
                identifier: row.identifier, condition: condition, state: state, date: row.date, isUnsupported: false)
            switch condition {
            case let .circle(latitude, longitude, radius):
                let known: RegionState = state == .satisfied ? .inside : state == .unsatisfied ? .outside : .unknown
                let region = MonitoredRegion(
                    identifier: row.identifier, latitude: latitude, longitude: longitude, radius: radius, group: group)
                regions.append(StoredRegion(region: region, state: known))
            case let .beacon(uuid, major, minor):
                if beaconSession() != nil {
                    beacons.append((row.identifier, BeaconConstraint(uuid: uuid, major: major, minor: minor)))
                } else {
                    record.isUnsupported = true
                }
            }
            records.append(record)
        }
        state.withLock { $0.restored = records }
        if !regions.isEmpty { host.input(.restoreRegions(regions)) }
        for (identifier, constraint) in beacons {
            beaconSession()?.startMonitoring(identifier: identifier, constraint: constraint)
        }
    }
}

extension MonitorEvent {
    /// A monitor's engine client (in process or locationd's): its group's region notices and the app's
    /// authorization changes, as the monitor's events.
    static func forwarding(
        group: String, to sink: @escaping @Sendable (MonitorEvent) -> Void
    ) -> @Sendable (ClientEvent) -> Void {
        { event in
            switch event {
            case .region(let notice): if let event = MonitorEvent(notice, group: group) { sink(event) }
            case .authorization: sink(.authorization)
            default: break
            }
        }
    }

    /// The event a region notice of the monitor's `group` is: a failure, or a state a fix decided.
    init?(_ notice: RegionNotice, group: String) {
        switch notice {
        case .failed(let region, let failure) where region.group == group:
            let mapped: MonitorFailure =
                switch failure {
                case .denied: .denied
                case .tooManyRegions: .tooManyConditions
                default: .unsupported
                }
            self = .failed(identifier: region.identifier, mapped)
        case .determined(let region, let state, let fix?) where region.group == group:
            self = .changed(identifier: region.identifier, state: MonitorState(state), date: fix.timestamp, receipt: nil)
        default:
            return nil
        }
    }
}

extension EngineHost {
    package func openMonitor(
        name: String, beacons: BeaconRuntime?, sink: @escaping @Sendable (MonitorEvent) -> Void
    ) -> any MonitorSession {
        EngineMonitor(name: name, host: self, beacons: beacons ?? self.beacons, sink: sink)
    }
}
