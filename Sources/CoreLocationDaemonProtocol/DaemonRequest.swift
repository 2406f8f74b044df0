/// What a client may ask: the `body` of a request, `{"type":NAME,…}` (docs/locationd-protocol.md).
public enum DaemonRequest: Hashable, Sendable {
    /// Opens an engine client on this connection. `client` is the connection's own number for it;
    /// events for it carry the same number. Re-registering after a reconnect is how requests resume.
    case register(client: UInt64, label: String)
    /// A command for one of this connection's clients.
    case command(client: UInt64, command: WireCommand)
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
    /// Echoes the hello's `token` (decision 0011, connect-then-exec): proves that what follows was written after
    /// the daemon read the connection's executable. Settings requests count only after it. Not replied to.
    case confirmIdentity(token: String)
}

