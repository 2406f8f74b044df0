import Foundation
import CoreLocationEngine
import CoreLocationStorage
import Synchronization

/// The engine client behind one `CLMonitor`. Engine notices arrive on the runtime's draining
/// thread and are turned into events there, in order, under a lock (not through the actor, whose
/// task hops could reorder them).
final class MonitorCore: Sendable {
    private struct State: Sendable {
        var records: [String: CLMonitor.Record] = [:]
        var client: ClientID?
    }

    let name: String
    let group: String
    private let runtime: LocationRuntime
    private let continuation: AsyncStream<CLMonitor.Event>.Continuation
    private let state = Mutex(State())

    init(name: String, runtime: LocationRuntime, continuation: AsyncStream<CLMonitor.Event>.Continuation) {
        self.name = name
        self.group = "monitor:" + name
        self.runtime = runtime
        self.continuation = continuation
        let client = runtime.addClient(label: "CLMonitor \(name)") { [weak self] event in
            if case .region(let notice) = event { self?.handle(notice) }
        }
        state.withLock { $0.client = client }
        restore()
    }

    func close() {
        if let client = state.withLock({ $0.client }) { runtime.send(.unregister, from: client) }
        continuation.finish()
    }

    var identifiers: [String] { state.withLock { $0.records.keys.sorted() } }

    func record(for identifier: String) -> CLMonitor.Record? { state.withLock { $0.records[identifier] } }

    private var now: Date { runtime.scheduler.wallClock(at: runtime.scheduler.now) }

    func add(_ condition: any CLCondition, identifier: String, assuming assumed: CLMonitor.Event.State) {
        remove(identifier)
        guard let circle = condition as? CLMonitor.CircularGeographicCondition else {
            let event = CLMonitor.Event(
                identifier: identifier, state: .unmonitored, date: now, flags: .conditionUnsupported)
            update(CLMonitor.Record(condition: condition, lastEvent: event), yield: true)
            return
        }
        let event = CLMonitor.Event(identifier: identifier, state: assumed, date: now)
        update(CLMonitor.Record(condition: condition, lastEvent: event), yield: false)
        send(.startMonitoring(region(circle, identifier: identifier)))
    }

    func remove(_ identifier: String) {
        guard state.withLock({ $0.records.removeValue(forKey: identifier) }) != nil else { return }
        send(.stopMonitoring(identifier: identifier, group: group))
        do {
            try runtime.regionStore?.removeRecord(
                identifier: identifier, monitor: name, appID: runtime.authorization.identity.id)
        } catch {
            runtime.logger.error("Cannot forget a monitor record", metadata: ["error": "\(error)"])
        }
    }

    private func region(_ circle: CLMonitor.CircularGeographicCondition, identifier: String) -> MonitoredRegion {
        MonitoredRegion(
            identifier: identifier, latitude: circle.center.latitude, longitude: circle.center.longitude,
            radius: circle.radius, group: group
        )
    }

    private func send(_ command: ClientCommand) {
        guard let client = state.withLock({ $0.client }) else { return }
        runtime.send(command, from: client)
    }

    private func handle(_ notice: RegionNotice) {
        let event: CLMonitor.Event
        switch notice {
        case .failed(let region, let failure) where region.group == group:
            let flags: CLMonitor.EventFlags
            switch failure {
            case .denied:
                flags =
                    runtime.authorization.authorization.accuracy == .reduced ? .accuracyLimited : .authorizationDenied
            case .tooManyRegions: flags = .conditionLimitExceeded
            default: flags = .conditionUnsupported
            }
            event = CLMonitor.Event(identifier: region.identifier, state: .unmonitored, date: now, flags: flags)
        case .determined(let region, let regionState, let fix) where region.group == group && fix != nil:
            let mapped: CLMonitor.Event.State =
                regionState == .inside ? .satisfied : regionState == .outside ? .unsatisfied : .unknown
            guard record(for: region.identifier)?.lastEvent.state != mapped else { return }
            event = CLMonitor.Event(identifier: region.identifier, state: mapped, date: fix?.timestamp ?? now)
        default:
            return
        }
        guard let condition = record(for: event.identifier)?.condition else { return }
        update(CLMonitor.Record(condition: condition, lastEvent: event), yield: true)
    }

    private func update(_ record: CLMonitor.Record, yield: Bool) {
        state.withLock { $0.records[record.lastEvent.identifier] = record }
        persist(record)
        if yield { continuation.yield(record.lastEvent) }
    }

    // MARK: Persistence

    private struct StoredCondition: Codable {
        var circular: CLMonitor.CircularGeographicCondition?
        var beacon: CLMonitor.BeaconIdentityCondition?
    }

    private func persist(_ record: CLMonitor.Record) {
        guard let store = runtime.regionStore else { return }
        do {
            let stored = StoredCondition(
                circular: record.condition as? CLMonitor.CircularGeographicCondition,
                beacon: record.condition as? CLMonitor.BeaconIdentityCondition
            )
            let row = MonitorRecordRow(
                identifier: record.lastEvent.identifier, condition: try JSONEncoder().encode(stored),
                state: Int(record.lastEvent.state.rawValue), date: record.lastEvent.date
            )
            try store.save(row, monitor: name, appID: runtime.authorization.identity.id)
        } catch {
            runtime.logger.error("Cannot persist a monitor record", metadata: ["error": "\(error)"])
        }
    }

    private func restore() {
        guard let store = runtime.regionStore else { return }
        let rows: [MonitorRecordRow]
        do {
            rows = try store.records(monitor: name, appID: runtime.authorization.identity.id)
        } catch {
            runtime.logger.error(
                "Cannot read the records of a monitor", metadata: ["monitor": "\(name)", "error": "\(error)"])
            return
        }
        var regions: [StoredRegion] = []
        for row in rows {
            guard let stored = try? JSONDecoder().decode(StoredCondition.self, from: row.condition),
                let condition: any CLCondition = stored.circular ?? stored.beacon,
                let monitoringState = CLMonitor.Event.State(rawValue: UInt(row.state))
            else {
                runtime.logger.warning("Skipping an unreadable monitor record", metadata: ["monitor": "\(name)"])
                continue
            }
            let flags: CLMonitor.EventFlags = stored.circular == nil ? .conditionUnsupported : []
            let event = CLMonitor.Event(
                identifier: row.identifier, state: monitoringState, date: row.date, flags: flags)
            state.withLock { $0.records[row.identifier] = CLMonitor.Record(condition: condition, lastEvent: event) }
            if let circle = stored.circular {
                let known: RegionState =
                    monitoringState == .satisfied ? .inside : monitoringState == .unsatisfied ? .outside : .unknown
                regions.append(StoredRegion(region: region(circle, identifier: row.identifier), state: known))
            }
        }
        if !regions.isEmpty { runtime.input(.restoreRegions(regions)) }
    }
}
