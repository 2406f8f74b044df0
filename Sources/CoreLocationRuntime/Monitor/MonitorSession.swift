import CoreLocationBeacons
import CoreLocationDaemonProtocol
import CoreLocationEngine
import Foundation

/// A condition a monitor watches, as the runtime keeps it. Stored as JSON under the monitor's records with
/// the form `CLMonitor`'s conditions always had: `{"circular":{"latitude":…,"longitude":…,"radius":…}}` or
/// `{"beacon":{"uuid":…,"major":…,"minor":…}}`.
package enum MonitorCondition: Hashable, Sendable {
    case circle(latitude: Double, longitude: Double, radius: Double)
    case beacon(uuid: UUID, major: UInt16?, minor: UInt16?)
}

/// A monitor condition's state, as `CLMonitor.Event.State` numbers it.
package enum MonitorState: UInt, Sendable, Hashable {
    case unknown = 0
    case satisfied = 1
    case unsatisfied = 2
    case unmonitored = 3

    package init(_ state: RegionState) {
        self = state == .inside ? .satisfied : state == .outside ? .unsatisfied : .unknown
    }

    package init(_ state: BeaconRegionState) {
        self = state == .inside ? .satisfied : state == .outside ? .unsatisfied : .unknown
    }
}

/// One of a monitor's conditions as it was kept (in the database in process; by locationd through it).
package struct MonitorRecordState: Sendable {
    package var identifier: String
    package var condition: MonitorCondition
    package var state: MonitorState
    /// When the state was last reported; nil when the keeper does not say (then: now).
    package var date: Date?
    /// The condition cannot be watched here (a beacon condition without a scanner).
    package var isUnsupported: Bool
}

/// Why a condition is not watched.
package enum MonitorFailure: Sendable, Equatable {
    case denied
    case tooManyConditions
    case unsupported
}

/// What a monitor hears.
package enum MonitorEvent: Sendable {
    /// A condition's state as observed. `receipt` is set for a change locationd kept for the app: it is
    /// reported even when the record already shows that state (the keeper stored the state with the event).
    case changed(identifier: String, state: MonitorState, date: Date?, receipt: PendingReceipt?)
    case failed(identifier: String, MonitorFailure)
    /// The app's authorization changed.
    case authorization
}

/// A monitor's conditions where they are watched: the engine in process, or locationd.
package protocol MonitorSession: AnyObject, Sendable {
    /// The conditions kept from earlier (watched again already).
    var restored: [MonitorRecordState] { get }
    /// Begins taking the changes kept for the monitor while it did not exist: called once its records are in place.
    func start()
    /// Whether records outlive the process (false: an in-process runtime without a database).
    var persists: Bool { get }
    /// Starts watching `condition` (replacing one with its identifier); a failure is reported at once or as
    /// an event.
    func add(_ condition: MonitorCondition, identifier: String, state: MonitorState, date: Date) -> MonitorFailure?
    /// Keeps a record's new state (in process: in the database; through locationd: the daemon keeps them).
    func keep(identifier: String, condition: MonitorCondition, state: MonitorState, date: Date)
    func remove(_ identifier: String, condition: MonitorCondition)
    func close()
}
