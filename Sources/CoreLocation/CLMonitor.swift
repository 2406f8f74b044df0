import CoreLocationRuntime
import Foundation
import Synchronization

/// Monitors conditions and reports their state changes through `events`.
///
/// `CircularGeographicCondition`s are watched by the engine with the same boundary rule as
/// `CLLocationManager`'s regions (see `RegionMonitor`): `satisfied` inside, `unsatisfied` outside.
/// An event is produced when the state the engine determines differs from the record's (the one
/// `add(_:identifier:assuming:)` assumed, or the last one reported). Records are persisted by
/// monitor name and come back when a monitor of the same name is created again.
/// `BeaconIdentityCondition`s are watched on the process's beacon scanner (BlueZ, or
/// `CORELOCATION_BEACONS=simulate:FILE`): `satisfied` from the first matching advertisement,
/// `unsatisfied` after 30 s without one (docs/decisions/0030), only while the app is authorized.
/// Without a scanner (`CORELOCATION_BEACONS=off`, no system bus) their record holds an `unmonitored`
/// event with `conditionUnsupported` set — never a made-up state.
///
/// The diagnostic flags come from real state (`MonitorCore.authorizationFlags`): Location Services
/// off → `authorizationDeniedGlobally`; denied / restricted → `authorizationDenied` /
/// `authorizationRestricted`; reduced accuracy → `accuracyLimited`; a prompt on screen →
/// `authorizationRequestInProgress`; no database → `persistenceUnavailable`; too many conditions →
/// `conditionLimitExceeded`. When the authorization changes, every record gets an event with its
/// last state and the new flags. `insufficientlyInUse` and `serviceSessionRequired` stay false:
/// Linux has no foreground/background app state.
public actor CLMonitor {
    public struct CircularGeographicCondition: CLCondition {
        public let center: CLLocationCoordinate2D
        public let radius: CLLocationDistance

        public init(center: CLLocationCoordinate2D, radius: CLLocationDistance) {
            self.center = center
            self.radius = radius
        }

        private enum CodingKeys: String, CodingKey { case latitude, longitude, radius }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            center = CLLocationCoordinate2D(
                latitude: try container.decode(Double.self, forKey: .latitude),
                longitude: try container.decode(Double.self, forKey: .longitude)
            )
            radius = try container.decode(Double.self, forKey: .radius)
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(center.latitude, forKey: .latitude)
            try container.encode(center.longitude, forKey: .longitude)
            try container.encode(radius, forKey: .radius)
        }
    }

    public struct BeaconIdentityCondition: CLCondition {
        public let uuid: UUID
        public let major: UInt16?
        public let minor: UInt16?

        public init(uuid: UUID) {
            self.init(uuid: uuid, optionalMajor: nil, minor: nil)
        }

        public init(uuid: UUID, major: UInt16) {
            self.init(uuid: uuid, optionalMajor: major, minor: nil)
        }

        public init(uuid: UUID, major: UInt16, minor: UInt16) {
            self.init(uuid: uuid, optionalMajor: major, minor: minor)
        }

        /// Any combination (a stored condition's; a minor without a major is not one Apple's initializers make).
        init(uuid: UUID, optionalMajor: UInt16?, minor: UInt16?) {
            self.uuid = uuid
            self.major = optionalMajor
            self.minor = minor
        }

        private enum CodingKeys: String, CodingKey { case uuid, major, minor }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            uuid = try container.decode(UUID.self, forKey: .uuid)
            major = try container.decodeIfPresent(UInt16.self, forKey: .major)
            minor = try container.decodeIfPresent(UInt16.self, forKey: .minor)
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(uuid, forKey: .uuid)
            try container.encodeIfPresent(major, forKey: .major)
            try container.encodeIfPresent(minor, forKey: .minor)
        }
    }

    public struct Event: Sendable {
        public typealias State = __CLMonitoringState
        public let identifier: String
        public let refinement: (any CLCondition)?
        public let state: State
        public let date: Date
        public let accuracyLimited: Bool
        public let authorizationDenied: Bool
        public let authorizationDeniedGlobally: Bool
        public let authorizationRequestInProgress: Bool
        public let authorizationRestricted: Bool
        public let conditionLimitExceeded: Bool
        public let conditionUnsupported: Bool
        public let insufficientlyInUse: Bool
        public let persistenceUnavailable: Bool
        public let serviceSessionRequired: Bool

        init(identifier: String, state: State, date: Date, flags: EventFlags = []) {
            self.identifier = identifier
            self.refinement = nil
            self.state = state
            self.date = date
            accuracyLimited = flags.contains(.accuracyLimited)
            authorizationDenied = flags.contains(.authorizationDenied)
            authorizationDeniedGlobally = flags.contains(.authorizationDeniedGlobally)
            authorizationRequestInProgress = flags.contains(.authorizationRequestInProgress)
            authorizationRestricted = flags.contains(.authorizationRestricted)
            conditionLimitExceeded = flags.contains(.conditionLimitExceeded)
            conditionUnsupported = flags.contains(.conditionUnsupported)
            insufficientlyInUse = false
            persistenceUnavailable = flags.contains(.persistenceUnavailable)
            serviceSessionRequired = false
        }
    }

    struct EventFlags: OptionSet, Sendable {
        let rawValue: Int
        static let accuracyLimited = EventFlags(rawValue: 1)
        static let authorizationDenied = EventFlags(rawValue: 2)
        static let authorizationRestricted = EventFlags(rawValue: 4)
        static let conditionLimitExceeded = EventFlags(rawValue: 8)
        static let conditionUnsupported = EventFlags(rawValue: 16)
        static let persistenceUnavailable = EventFlags(rawValue: 32)
        static let authorizationDeniedGlobally = EventFlags(rawValue: 64)
        static let authorizationRequestInProgress = EventFlags(rawValue: 128)
    }

    public struct Record: Sendable {
        public let condition: any CLCondition
        public let lastEvent: Event
    }

    public struct Events: AsyncSequence, Sendable {
        public typealias Element = Event
        public typealias AsyncIterator = Iterator
        let stream: AsyncStream<MonitorCore.Delivery>

        public func makeAsyncIterator() -> Iterator { Iterator(stream: stream.makeAsyncIterator()) }

        public struct Iterator: AsyncIteratorProtocol {
            public typealias Element = Event
            var stream: AsyncStream<MonitorCore.Delivery>.Iterator

            /// An event the daemon stored is handed (and acknowledged) here, when the app takes
            /// it, not when it reached the process: killed before, the next process gets it.
            public mutating func next() async throws -> Event? {
                guard let delivery = await stream.next() else { return nil }
                delivery.receipt?.handed()
                delivery.receipt?.done()
                return delivery.event
            }
        }
    }

    public nonisolated let events: Events
    let core: MonitorCore

    /// Opens the monitor called `name`, with the records stored under that name.
    public init(_ name: String) async {
        self.init(name, runtime: SharedRuntime.current)
    }

    init(_ name: String, runtime: any LocationRuntime, beacons: BeaconRuntime? = nil) {
        let (stream, continuation) = AsyncStream<MonitorCore.Delivery>.makeStream()
        events = Events(stream: stream)
        core = MonitorCore(name: name, runtime: runtime, continuation: continuation, beacons: beacons)
    }

    deinit { core.close() }

    /// The identifiers of the monitor's conditions, sorted.
    public var identifiers: [String] { core.identifiers }

    /// Watches `condition` under `identifier` (replacing any condition with that identifier),
    /// assuming it is in `state` now: an event comes only when the observed state differs.
    public func add(_ condition: any CLCondition, identifier: String, assuming state: Event.State) {
        core.add(condition, identifier: identifier, assuming: state)
    }

    public func add(_ condition: any CLCondition, identifier: String) {
        add(condition, identifier: identifier, assuming: .unknown)
    }

    /// Stops watching and forgets the condition; an unknown identifier is ignored.
    public func remove(_ identifier: String) {
        core.remove(identifier)
    }

    public func record(for identifier: String) -> Record? {
        core.record(for: identifier)
    }
}
