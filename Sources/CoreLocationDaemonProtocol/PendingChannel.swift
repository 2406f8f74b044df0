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
