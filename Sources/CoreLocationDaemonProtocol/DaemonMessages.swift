import CoreLocationEngine
import Foundation

/// The first message a client sends. Everything but `version` is for display only: the daemon
/// takes the client's identity from the kernel (docs/decisions/0011-locationd-threat-model.md).
public struct ClientHello: Codable, Hashable, Sendable {
    public var version: Int
    /// A name for `locationctl status` (e.g. the program's name).
    public var label: String?

    public init(version: Int = DaemonProtocol.version, label: String? = nil) {
        self.version = version
        self.label = label
    }
}

/// The daemon's answer to the hello: its version and who it takes the client to be.
public struct ServerHello: Codable, Hashable, Sendable {
    public var version: Int
    /// The app the client was grouped under (bundle identifier or executable path).
    public var app: String
    public var uid: UInt32
    public var pid: Int32
    /// `locationServicesEnabled()` at the time of the hello.
    public var servicesEnabled: Bool
    /// The app's authorization at the time of the hello.
    public var authorization: ClientAuthorization

    public init(
        version: Int = DaemonProtocol.version, app: String, uid: UInt32, pid: Int32, servicesEnabled: Bool,
        authorization: ClientAuthorization
    ) {
        self.version = version
        self.app = app
        self.uid = uid
        self.pid = pid
        self.servicesEnabled = servicesEnabled
        self.authorization = authorization
    }
}

/// Client → daemon.
public enum ClientMessage: Codable, Hashable, Sendable {
    case hello(ClientHello)
    /// A request; the reply carries the same id (chosen by the client, unique on its connection).
    case request(id: UInt64, body: DaemonRequest)
}

/// What a client may ask. Engine commands travel exactly as the in-process engine takes them.
public enum DaemonRequest: Codable, Hashable, Sendable {
    /// Opens an engine client on this connection. `client` is the connection's own number for it;
    /// events for it carry the same number. Re-registering after a reconnect is how requests resume.
    case register(client: ClientID, label: String)
    /// An engine command for one of this connection's clients.
    case command(client: ClientID, command: ClientCommand)
    /// `requestWhenInUseAuthorization()` (always false) or `requestAlwaysAuthorization()`.
    case requestAuthorization(always: Bool)
    /// `requestTemporaryFullAccuracyAuthorization(withPurposeKey:)`; replied with `.accuracy`.
    case requestTemporaryFullAccuracy(purposeKey: String)
    /// The Settings app: decide for an app of the caller's user (`locationctl authorize`).
    /// `decision`: deny, restricted, when-in-use, always, reset; `accuracy`: full or reduced.
    case authorize(app: String, decision: String, accuracy: String?)
    /// The decisions stored for the caller's user's apps, and the default policy (`locationctl authorize
    /// --list`); replied with `.decisions`. Root and the daemon's user see every user's (app ids `UID:APP`).
    case decisions
    /// The default policy for apps nobody was asked about (`locationctl authorize --default`): prompt,
    /// deny, when-in-use, always, or nil to clear it. System-wide, so root or the daemon's user only.
    case setDefaultPolicy(String?)
    /// The location services switch (`locationctl services on|off`).
    case setServices(enabled: Bool)
    /// Apps, clients and sources (`locationctl status`).
    case status
    /// Acknowledges events up to and including `sequence` (events that carry one).
    case acknowledge(sequence: UInt64)
    /// Answered with `.ok`; for liveness checks.
    case ping
    /// The app's monitored regions as the daemon keeps them (stored across the app's launches);
    /// replied with `.regions`. The library loads them so `monitoredRegions` is the app's, not
    /// only this process's.
    case monitoredRegions
    /// The circular conditions of the app's `CLMonitor` named `name`, with their states, as the
    /// daemon keeps them across the app's launches; replied with `.regions` (decision 0049).
    case monitorConditions(name: String)
    /// This connection is its user's prompt agent (`locationctl agent`): authorization prompts of
    /// the user's apps come to it as `prompt` events. A later agent of the same user replaces it.
    case registerAgent
    /// This connection's app runs in a terminal and may ask its person there (as the in-process
    /// engine does) when its user has no agent: its own prompts then come to it as `prompt` events.
    case offerPrompts
    /// The agent's answer to a `prompt` event; nil: dismissed (the default policy applies).
    case answerPrompt(id: UInt64, answer: AgentAnswer?)
    /// The app set a delegate that can take its pending events (regions: a `CLLocationManager`
    /// with a delegate): the daemon sends them as `pending` events, oldest first (decision 0026).
    case receivePending
    /// The library is about to hand pending event `sequence` (and every earlier one) to its
    /// delegates: written to the socket before the first delegate call, so the daemon never sends it
    /// to a later process of the app (a delegate is called once per event, even when the process is
    /// killed during the call; decision 0026).
    /// With a `channel` (``PendingChannel``), only the events of that channel's kinds up to
    /// `sequence`; without one, every kind (decision 0039).
    case handingPending(sequence: UInt64, channel: PendingChannel? = nil)
    /// The delegates returned for every pending event up to and including `sequence` (of `channel`).
    case acknowledgePending(sequence: UInt64, channel: PendingChannel? = nil)
    /// The launch targets and the history (`locationctl background`); replied with `.background`.
    case background
    /// Background App Refresh for one app of the caller's user (`locationctl background on|off APP`).
    case setBackground(app: String, enabled: Bool)
    /// This process holds a `CLBackgroundActivitySession` or `CLServiceSession` (true), or no longer
    /// any (false): said when the first is made and when the last is invalidated or released, and
    /// again after a reconnect. A process that ends while holding one with its updates running is
    /// relaunched at the next location update (decision 0048).
    case holdSession(Bool)
    /// `startMonitoring(for: CLBeaconRegion)`: the daemon watches the region for the app, with its
    /// own scanner, while a process of the app runs and while none does; entries and exits are
    /// pending events of kinds `beacon-enter` and `beacon-exit` (decision 0050). Replied with `.ok`,
    /// or a failure (`not-permitted`: not authorized; `unavailable`: the daemon has no scanner).
    case monitorBeaconRegion(BeaconRegionSpec)
    /// `stopMonitoring(for:)` of a beacon region, or `CLMonitor.remove` of a beacon condition of
    /// the monitor named `monitor`; an unknown identifier is ignored.
    case stopMonitoringBeaconRegion(identifier: String, monitor: String? = nil)
    /// The app's beacon regions as the daemon keeps them; replied with `.beaconRegions`.
    case beaconRegions
    /// `requestState(for:)` of a beacon region: replied with `.beaconRegionState`, or
    /// `invalid-argument` when the app monitors no beacon region of that identifier.
    case beaconRegionState(identifier: String)
    /// The `BeaconIdentityCondition`s of the app's monitor `name` with the states the daemon keeps
    /// (decision 0053); replied with `.beaconConditions`. A condition is added with
    /// `monitorBeaconRegion` (its `monitor` set); its changes are pending events of kind
    /// `monitor:NAME` carrying `beacon` and `beaconState`.
    case monitorBeaconConditions(name: String)
}

/// A beacon region as the daemon keeps it: `CLBeaconRegion`'s identity and notify flags, or a
/// `CLMonitor.BeaconIdentityCondition` of the monitor named `monitor` (decision 0053).
public struct BeaconRegionSpec: Codable, Hashable, Sendable {
    public var identifier: String
    public var uuid: UUID
    public var major: UInt16?
    public var minor: UInt16?
    public var notifyOnEntry: Bool
    public var notifyOnExit: Bool
    /// The `CLMonitor`'s name when this is one of its conditions; nil for a `CLBeaconRegion`.
    public var monitor: String?

    public init(
        identifier: String, uuid: UUID, major: UInt16?, minor: UInt16?, notifyOnEntry: Bool = true,
        notifyOnExit: Bool = true, monitor: String? = nil
    ) {
        self.identifier = identifier
        self.uuid = uuid
        self.major = major
        self.minor = minor
        self.notifyOnEntry = notifyOnEntry
        self.notifyOnExit = notifyOnExit
        self.monitor = monitor
    }

    /// Unique among the app's beacon regions and every monitor's conditions (which may share
    /// identifiers): the identifier, or the monitor's name and the identifier apart by a control
    /// character no name contains in practice.
    public var key: String { Self.key(identifier, monitor: monitor) }

    public static func key(_ identifier: String, monitor: String?) -> String {
        monitor.map { PendingKind.monitor($0) + "\u{1F}" + identifier } ?? identifier
    }
}

/// A beacon condition of a `CLMonitor` with its state (`CLRegionState`'s raw value: 0 unknown,
/// 1 inside, 2 outside): the daemon's answer to `monitorBeaconConditions`, and the payload of a
/// condition's change.
public struct BeaconConditionState: Codable, Hashable, Sendable {
    public var condition: BeaconRegionSpec
    public var state: Int

    public init(condition: BeaconRegionSpec, state: Int) {
        self.condition = condition
        self.state = state
    }
}

/// Daemon → client.
public enum DaemonMessage: Codable, Hashable, Sendable {
    case hello(ServerHello)
    case reply(id: UInt64, body: DaemonReply)
    /// Something happened. Events that must be acknowledged carry a sequence number (increasing per
    /// connection); the rest carry none. Issue 11's pending events extend this, see decision 0010.
    case event(sequence: UInt64?, body: DaemonEvent)
    /// A protocol error; when `fatal`, the daemon closes the connection after it.
    case error(DaemonError)
}

public enum DaemonReply: Codable, Hashable, Sendable {
    case ok
    case failure(DaemonError)
    case status(DaemonStatus)
    /// The answer to `requestTemporaryFullAccuracy`: nil, or a `CLError.Code` raw value.
    case accuracy(errorCode: Int?)
    /// The answer to `monitoredRegions`.
    case regions([StoredRegion])
    /// The answer to `background`.
    case background(BackgroundStatus)
    /// The answer to `decisions`.
    case decisions([AuthorizationDecision], defaultPolicy: DefaultPolicy?)
    /// The app's beacon regions (`beaconRegions`).
    case beaconRegions([BeaconRegionSpec])
    /// A beacon region's state now (`beaconRegionState`): `CLRegionState`'s raw value (0 unknown,
    /// 1 inside, 2 outside).
    case beaconRegionState(Int)
    /// A monitor's beacon conditions (`monitorBeaconConditions`).
    case beaconConditions([BeaconConditionState])
}

public enum DaemonEvent: Codable, Hashable, Sendable {
    /// An engine action addressed to one of this connection's clients (deliver, fail, region,
    /// visit, deferredFinished, paused, resumed), with the client number the connection chose.
    case action(EngineAction)
    /// The app's authorization changed (or a request started/finished). Carries a sequence number:
    /// the client acknowledges it once its clients have been told.
    case authorization(ClientAuthorization, requestInProgress: Bool)
    /// The location services switch changed.
    case services(enabled: Bool)
    /// To an agent: ask the person; answer with `answerPrompt` and the same id.
    case prompt(id: UInt64, question: AgentQuestion)
    /// An event the daemon held for the app (it may have been launched for it): `sequence`
    /// increases per app across launches and restarts; the client hands each number to its
    /// delegates once and acknowledges with `acknowledgePending` after they returned.
    /// `kind` says which payload is set: `enter`/`exit` → `region`, `significant-change` →
    /// `location` (the delivery the significant-change service made), `visit` → `visit`,
    /// `beacon-enter`/`beacon-exit` → `beacon` (the region); `monitor:NAME` → `region` (a circular
    /// condition's change) or `beacon` and `beaconState` (a beacon condition's, decision 0053).
    case pending(
        sequence: UInt64, kind: String, region: RegionNotice?, location: Delivery? = nil, visit: Visit? = nil,
        beacon: BeaconRegionSpec? = nil, beaconState: Int? = nil)
}

/// Pending events are taken by three kinds of takers (decisions 0039, 0049): a manager's delegate
/// (region entries and exits, visits: handed once the delegate is set), the significant-change
/// service (handed when the app calls `startMonitoringSignificantLocationChanges()` again) and each
/// `CLMonitor` by name (handed when the app makes the monitor again). Each channel is handed in
/// sequence order on its own, so one waiting never holds another back. On the wire a channel is its
/// name: `delegate`, `location`, `monitor:NAME`.
public struct PendingChannel: RawRepresentable, Codable, Hashable, Sendable {
    public var rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }

    public static let delegate = PendingChannel(rawValue: "delegate")
    public static let location = PendingChannel(rawValue: "location")

    /// The channel of the `CLMonitor` named `name`; its events' kind is the same string.
    public static func monitor(_ name: String) -> PendingChannel {
        PendingChannel(rawValue: PendingKind.monitor(name))
    }

    /// The channel of a pending event's kind.
    public init(kind: String) {
        if kind == PendingKind.significantChange {
            self = .location
        } else if kind.hasPrefix(PendingKind.monitorPrefix) {
            self.init(rawValue: kind)
        } else {
            self = .delegate
        }
    }

    /// The kinds this channel carries.
    public var kinds: [String] {
        switch self {
        case .delegate: [PendingKind.enter, PendingKind.exit, PendingKind.visit, PendingKind.beaconEnter, PendingKind.beaconExit]
        case .location: [PendingKind.significantChange]
        default: [rawValue]
        }
    }
}

/// The kinds of pending events.
public enum PendingKind {
    public static let enter = "enter"
    public static let exit = "exit"
    public static let visit = "visit"
    public static let significantChange = "significant-change"
    /// A beacon region's entry and exit (decision 0050): the payload is the region.
    public static let beaconEnter = "beacon-enter"
    public static let beaconExit = "beacon-exit"
    /// The wake-up of an app whose session was interrupted (decision 0048): no payload, never sent
    /// to the app (standard updates are not stored); it makes the sweep launch the app, and goes
    /// when the relaunched app holds a session again.
    public static let session = "session"
    /// A change of a `CLMonitor` condition's state (decision 0049): the kind is `monitor:NAME`,
    /// the payload the engine's `determined` notice, whose region's group is the same string.
    public static let monitorPrefix = "monitor:"
    public static func monitor(_ name: String) -> String { monitorPrefix + name }
}

public struct DaemonError: Codable, Hashable, Sendable, Error, CustomStringConvertible {
    public enum Code: String, Codable, Hashable, Sendable {
        case incompatibleVersion = "incompatible-version"
        case malformed
        case oversized
        case helloExpected = "hello-expected"
        case helloTimeout = "hello-timeout"
        case unknownClient = "unknown-client"
        case notPermitted = "not-permitted"
        case invalidArgument = "invalid-argument"
        case storage
        case tooSlow = "too-slow"
        /// What was asked needs something this daemon has not (a beacon scanner).
        case unavailable
    }

    public var code: Code
    public var message: String
    public var fatal: Bool

    public init(_ code: Code, _ message: String, fatal: Bool = false) {
        self.code = code
        self.message = message
        self.fatal = fatal
    }

    public var description: String { "\(code.rawValue): \(message)" }
}

/// What `locationctl status` shows of a daemon.
public struct DaemonStatus: Codable, Hashable, Sendable {
    public struct App: Codable, Hashable, Sendable {
        public var app: String
        public var uid: UInt32
        public var authorization: ClientAuthorization
        public var clients: [Client]
        public init(app: String, uid: UInt32, authorization: ClientAuthorization, clients: [Client]) {
            self.app = app
            self.uid = uid
            self.authorization = authorization
            self.clients = clients
        }
    }

    public struct Client: Codable, Hashable, Sendable {
        public var pid: Int32
        public var label: String
        /// Services in use: updates, significant-changes, visits, regions…
        public var services: [String]
        /// Seconds since the daemon started of the last delivery, if any.
        public var lastDelivery: Double?
        public init(pid: Int32, label: String, services: [String], lastDelivery: Double?) {
            self.pid = pid
            self.label = label
            self.services = services
            self.lastDelivery = lastDelivery
        }
    }

    public struct Source: Codable, Hashable, Sendable {
        public var id: String
        public var name: String
        public var powered: Bool
        /// Seconds the source has been powered in this daemon's life.
        public var onTime: Double
        /// What the source said last while powered: `off`, `waiting` (powered, nothing heard yet),
        /// `receiving`, `unavailable` (see `detail`: gpsd not running, device unplugged…), `finished`.
        /// Optional: added in version 1 without a version change (decision 0010).
        public var state: String?
        /// Why the source is unavailable, as it said.
        public var detail: String?
        /// Seconds since the daemon started of the source's latest fix.
        public var lastFix: Double?
        /// The device of the latest fix, for a source that gathers from several (a modem source: the modem's model
        /// and D-Bus path). Optional: added in version 1 without a version change (decision 0010).
        public var origin: String?
        public init(
            id: String, name: String, powered: Bool, onTime: Double, state: String? = nil, detail: String? = nil,
            lastFix: Double? = nil, origin: String? = nil
        ) {
            self.id = id
            self.name = name
            self.powered = powered
            self.onTime = onTime
            self.state = state
            self.detail = detail
            self.lastFix = lastFix
            self.origin = origin
        }
    }

    public var pid: Int32
    public var servicesEnabled: Bool
    public var database: String
    public var apps: [App]
    public var sources: [Source]

    public init(pid: Int32, servicesEnabled: Bool, database: String, apps: [App], sources: [Source]) {
        self.pid = pid
        self.servicesEnabled = servicesEnabled
        self.database = database
        self.apps = apps
        self.sources = sources
    }
}
