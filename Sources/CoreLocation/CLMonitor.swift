import Foundation
import Synchronization

/// Monitors conditions (circular regions, beacons) and reports their state changes.
///
/// Condition evaluation arrives with the monitoring work; until then every added condition is
/// recorded and answered with an event whose `conditionUnsupported` is true — the documented way
/// a monitor says it cannot watch a condition — never with a made-up state.
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

        private init(uuid: UUID, optionalMajor: UInt16?, minor: UInt16?) {
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

        init(identifier: String, state: State, date: Date, conditionUnsupported: Bool) {
            self.identifier = identifier
            self.refinement = nil
            self.state = state
            self.date = date
            accuracyLimited = false
            authorizationDenied = false
            authorizationDeniedGlobally = false
            authorizationRequestInProgress = false
            authorizationRestricted = false
            conditionLimitExceeded = false
            self.conditionUnsupported = conditionUnsupported
            insufficientlyInUse = false
            persistenceUnavailable = false
            serviceSessionRequired = false
        }
    }

    public struct Record: Sendable {
        public let condition: any CLCondition
        public let lastEvent: Event
    }

    public struct Events: AsyncSequence, Sendable {
        public typealias Element = Event
        public typealias AsyncIterator = Iterator
        let stream: AsyncStream<Event>

        public func makeAsyncIterator() -> Iterator { Iterator(stream: stream.makeAsyncIterator()) }

        public struct Iterator: AsyncIteratorProtocol {
            public typealias Element = Event
            var stream: AsyncStream<Event>.Iterator
            public mutating func next() async throws -> Event? { await stream.next() }
        }
    }

    public nonisolated let events: Events
    private let continuation: AsyncStream<Event>.Continuation
    private let name: String
    private var records: [String: Record] = [:]

    public init(_ name: String) async {
        self.name = name
        let (stream, continuation) = AsyncStream<Event>.makeStream()
        events = Events(stream: stream)
        self.continuation = continuation
    }

    public var identifiers: [String] { records.keys.sorted() }

    public func add(_ condition: any CLCondition, identifier: String, assuming state: Event.State) {
        let event = Event(identifier: identifier, state: .unmonitored, date: Date(), conditionUnsupported: true)
        records[identifier] = Record(condition: condition, lastEvent: event)
        continuation.yield(event)
    }

    public func add(_ condition: any CLCondition, identifier: String) {
        add(condition, identifier: identifier, assuming: .unknown)
    }

    public func remove(_ identifier: String) {
        records[identifier] = nil
    }

    public func record(for identifier: String) -> Record? {
        records[identifier]
    }
}
