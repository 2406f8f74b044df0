/// What `locationctl background` shows: each app locationd can start again, and the history
/// (docs/decisions/0026-background-relaunch.md).
public struct BackgroundStatus: Codable, Hashable, Sendable {
    public struct Target: Codable, Hashable, Sendable {
        /// The names on the wire.
        enum CodingKeys: String, CodingKey {
            case app, uid, executable, arguments, workingDirectory, unit, enabled, state, pending, recentLaunches
            case services
        }

        public var app: String
        public var uid: UInt32
        public var executable: String
        public var arguments: [String]
        public var workingDirectory: String
        public var unit: String?
        /// Relaunching allowed (`locationctl background on|off APP`).
        public var enabled: Bool
        /// `running` (connected), `ready` (will be launched on an event), `off`, `replaced` or
        /// `missing` (the executable changed or went since it registered: never launched),
        /// `other-user` (not this daemon's user: never launched), `rate-limited`.
        public var state: String
        public var pending: Int
        /// Launches in the current window.
        public var recentLaunches: Int
        /// What the daemon runs for the app while it does not: `significant-changes`, `visits`,
        /// `session` (an interrupted session, decision 0048). Nil from daemons that predate it.
        public var services: [String]?

        public init(
            app: String, uid: UInt32, executable: String, arguments: [String], workingDirectory: String, unit: String?,
            enabled: Bool, state: String, pending: Int, recentLaunches: Int, services: [String]? = nil
        ) {
            self.app = app
            self.uid = uid
            self.executable = executable
            self.arguments = arguments
            self.workingDirectory = workingDirectory
            self.unit = unit
            self.enabled = enabled
            self.state = state
            self.pending = pending
            self.recentLaunches = recentLaunches
            self.services = services
        }
    }

    enum CodingKeys: String, CodingKey {
        case targets, history
    }

    public var targets: [Target]
    /// The newest history lines: `TIME UID:APP WHAT` (launched, refused, expired, rate-limited…).
    public var history: [String]

    public init(targets: [Target], history: [String]) {
        self.targets = targets
        self.history = history
    }
}
