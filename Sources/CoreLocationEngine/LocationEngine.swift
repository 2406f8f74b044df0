import Foundation
import CoreLocationGeodesy

/// Core Location's behaviour as a deterministic state machine.
///
/// The engine knows nothing of Apple's classes, threads or clocks: a shell feeds it inputs with the
/// current monotonic time (`handle(_:at:)`) and performs the actions it returns (deliver, fail,
/// power a source on or off). It asks to be woken with `.tick` at `nextDeadline`. Given the same
/// inputs at the same times it always answers the same way, so tests run hours of simulated
/// movement in milliseconds.
///
/// Rules it implements (documented in `docs/decisions/0002-engine-rules.md`):
/// - a client receives locations only while its app is authorized (when-in-use or always);
///   a denied or restricted app gets one `.denied` failure per request and nothing else;
/// - `startUpdates` first delivers a fresh cached fix (≤ `cachedFixMaxAge` old), then every fix
///   that passes the distance filter;
/// - `requestLocation` delivers exactly once: the first fix meeting `desiredAccuracy`, else the
///   best fix seen when `requestLocationBudget` runs out, else one `.locationUnknown`;
/// - with no fix for `locationUnknownTimeout` an active client gets `.locationUnknown` once, and
///   the engine keeps trying;
/// - reduced-accuracy clients see only `ReducedAccuracyGrid` cell centres, at most once per
///   `reducedRefreshInterval`;
/// - sources: the cheapest source meeting the most demanding active client is powered; all are
///   powered down when nobody needs them; on-time is accounted per source;
/// - with an inertial source's samples, GNSS-class fixes are fused with the IMU and dead-reckoned through outages
///   (decision 0095, `LocationEngine+Fusion`); without them every fix goes out as its source made it.
public struct LocationEngine: Sendable {
    public struct Configuration: Sendable, Hashable, Codable {
        /// Seconds `requestLocation` may take to find a fix meeting `desiredAccuracy`.
        public var requestLocationBudget: Double = 10
        /// Seconds without any fix before an active client hears `.locationUnknown`.
        public var locationUnknownTimeout: Double = 15
        /// Largest age, seconds, of a cached fix delivered at the start of updates.
        public var cachedFixMaxAge: Double = 60
        /// Seconds between two coarse fixes for a reduced-accuracy client (Apple: a few per hour).
        public var reducedRefreshInterval: Double = 900
        /// The accuracy, metres, a reduced-accuracy client asks of the sources.
        public var reducedAccuracyDemand: Double = 3000
        public var reducedGrid = ReducedAccuracyGrid()
        /// Regions one app may monitor at once (Apple: 20); raise it to monitor up to millions.
        public var regionLimit = 20
        /// Largest region radius, metres (`maximumRegionMonitoringDistance`).
        public var maximumRegionDistance: Double = 1_000_000
        /// How fixes turn into region crossings (`RegionCrossingRule`; decisions 0019, 0062).
        public var regionRule = RegionCrossingRule.sustained
        /// Seconds evidence of the other side must last, at least, before a crossing is reported.
        public var regionDwell: Double = 20
        /// `.sustained` rule: clear fixes of the new side further apart than this, seconds, start
        /// the dwell again.
        public var regionRunGap: Double = 60
        /// Jumps (decision 0063) and stays with wandering fixes (decision 0064), for regions and quiet
        /// monitoring.
        public var jumps = JumpScreen.Parameters()
        public var stays = StayTracker.Parameters()
        /// `.sustained` rule: a fix that belongs to a stay `regionStays`' tracker holds counts for a crossing with
        /// an uncertainty of at least this many times the stay's spread (decision 0062, third session); 0: off.
        public var regionStayNoise: Double = 0.75
        /// The stay tracker the region rule asks (decision 0062): 0064's, with an envelope of up to 150 m (the
        /// reporter's 100 m cap is for its ε bound, which regions do not have).
        public var regionStays: StayTracker.Parameters = {
            var parameters = StayTracker.Parameters()
            parameters.maximumEnvelope = 150
            return parameters
        }()
        /// `.evidence` rule: seconds of the strongest evidence a crossing needs (weaker evidence
        /// needs proportionally longer).
        public var regionEvidenceSeconds: Double = 30
        /// `.evidence` rule: a fix's margin counts up to this many hysteresis widths.
        public var regionEvidenceClamp: Double = 2.5
        /// `.evidence` rule: most seconds one fix stands for (a fix after a gap is not evidence for
        /// the whole gap); `.sustained` rule: twice the most a run's first fix reaches back.
        public var regionEvidenceGap: Double = 20
        /// `.evidence` rule: within this many seconds of a crossing, the opposite crossing needs
        /// `regionRecentCrossingFactor` times the evidence.
        public var regionRecentCrossingWindow: Double = 600
        public var regionRecentCrossingFactor: Double = 3
        /// `.sustained` rule: within `regionRecrossWindow` seconds (fix time) of a region's last crossing, and
        /// until a fix has been clear of the boundary by `regionRecrossMargin × r` more than the hysteresis on
        /// the new side, a crossing back needs its fixes that clear (decision 0062, third session); 0: off.
        public var regionRecrossMargin: Double = 0.4
        public var regionRecrossWindow: Double = 300
        /// Hysteresis = clamp(fraction × radius, minimum, maximum), metres; see `RegionMonitor`.
        public var regionHysteresisFraction = 0.1
        public var regionHysteresisMinimum: Double = 10
        public var regionHysteresisMaximum: Double = 200
        /// The accuracy, metres, region monitoring asks of the sources (Wi-Fi class).
        public var regionAccuracyDemand: Double = 100
        /// Seconds `requestState` waits for an undetermined region before answering `.unknown`.
        public var regionStateRequestBudget: Double = 10
        /// Significant-change service: metres moved, and seconds between two updates, at least.
        public var significantDistance: Double = 500
        public var significantInterval: Double = 300
        /// The accuracy, metres, the significant-change service asks of the sources.
        public var significantAccuracyDemand: Double = 500
        /// The visits service's stay rule (see `VisitDetector`).
        public var visits = VisitDetector.Parameters()
        /// The accuracy, metres, the visits service asks of the sources.
        public var visitAccuracyDemand: Double = 100
        /// Quiet monitoring (see `LocationEngine+Quiet`): seconds of standing still after which
        /// regions, significant changes and visits only look now and then, and seconds between
        /// two looks. An interval of zero (or less) keeps watching without a break (a replay "as
        /// fast as possible", where a receiver switched off would miss the rest of the recording).
        public var monitoringQuietAfter: Double = 120
        public var monitoringProbeInterval: Double = 60
        /// Automatic pausing (see `AutoPausePolicy`): metres the user may drift while standing
        /// still, the stationary region's radius, and the longest probe, seconds.
        public var pauseStillRadius: Double = 25
        public var pauseRegionRadius: Double = 100
        public var pauseProbeTimeout: Double = 15
        /// The accuracy, metres, a probe of the stationary region asks of the sources.
        public var pauseProbeAccuracy: Double = 100
        /// Divides every automatic-pause time (still-for, probe interval, probe timeout): a replay
        /// at 20× pauses after the recording's 3 minutes, not after 3 of its own.
        public var pauseTimeScale: Double = 1
        /// Barometric altitude fusion's tuning (decision 0032); nil for the defaults.
        public var altitude: AltitudeFilter.Parameters?
        /// The building whose floors the barometer counts (decision 0033); nil: no floors.
        public var venue: FloorVenue?
        /// GNSS + IMU fusion's rules and tuning (decision 0095, Wiring); nil for the defaults. Used only while an
        /// inertial source sends samples.
        public var fusion: InertialFusion.Parameters?

        public init() {}
    }

    struct SourceState: Sendable {
        var descriptor: SourceDescriptor
        var powered = false
        var poweredSince: Double?
        var onTime: Double = 0
        var lastFix: Fix?
        var lastFixAt: Double?
        var fixCount = 0
        var isAvailable = true
        var isFinished = false
        var lastProblem: String?
    }

    struct PendingRequest: Sendable {
        var request: UpdateRequest
        /// nil while the app's authorization is still undetermined.
        var startedAt: Double?
        var best: Fix?
    }

    struct ClientState: Sendable {
        var label: String
        var authorization: ClientAuthorization
        var updates: UpdateRequest?
        var pending: PendingRequest?
        var lastDelivered: Fix?
        var lastCoarse: (fix: Fix, releasedAt: Double)?
        var unknownDeadline: Double?
        /// Significant-change service: on, and the last fix it delivered with its time.
        var significant = false
        var lastSignificant: (fix: Fix, at: Double)?
        var deferral: Deferral?
        /// The visits service is on.
        var visits = false
        /// Updates paused automatically: the stationary region being watched.
        var pause: PauseState?
        /// When updates last started or resumed: stillness counts for pausing only from then on.
        var updatesSince: Double = 0

        /// Wants every fix now: a request, or updates that are not paused.
        var isActive: Bool { authorization.allowsLocation && ((updates != nil && pause == nil) || pending != nil) }
        /// The most demanding of the client's request and updates, metres; negative or NaN means the best (0).
        var demandedAccuracy: Double {
            func level(_ accuracy: Double) -> Double { accuracy.isNaN || accuracy < 0 ? 0 : accuracy }
            switch (pending?.request.desiredAccuracy, updates?.desiredAccuracy) {
            case let (request?, updating?): return min(level(request), level(updating))
            case let (request?, nil): return level(request)
            case let (nil, updating?): return level(updating)
            case (nil, nil): return 0
            }
        }
        var isReduced: Bool { authorization.accuracy == .reduced }
    }

    public let configuration: Configuration
    var sources: [SourceID: SourceState] = [:]
    var sourceOrder: [SourceID] = []
    /// The clients, with the earliest deadline and the demanded accuracy kept at each change (`ClientTable`).
    var clients: ClientTable
    /// The keys of `clients` in `rawValue` order, the order every action for several clients follows
    /// (kept, not sorted for each fix).
    var clientOrder: [ClientID] = []
    var latest: (fix: Fix, at: Double)?
    /// What the sources powered now were chosen from (`selectSources`); nil before the first choice.
    var selection: SourceSelectionKey?
    /// The source whose fixes are being delivered (see `LocationEngine+Arbitration`).
    var deliveringSource: SourceID?
    var stationary = StationaryDetector()
    /// Automatic pausing's own stillness test: more tolerant of drift than `stationary`.
    var pauseDetector: StationaryDetector
    var regions = RegionMonitor()
    /// Jumps and stays as the monitoring services see them (decisions 0063, 0064).
    var jumpScreen: JumpScreen
    var stay: StayTracker
    /// The stay as the region rule sees it (`Configuration.regionStays`).
    var regionStay: StayTracker
    /// Runs while any client monitors visits; a new one starts afresh (arrival unknown).
    var visitDetector: VisitDetector?
    /// While the monitoring services are quiet: the next look, or the end of the current one.
    var monitoringProbe: ProbeTimer?
    /// The app's authorization as its clients last reported it (every client is one app).
    var appAuthorization: ClientAuthorization?
    /// Barometric altitude and floors (decisions 0032, 0033).
    var altitude: AltitudeFusion
    /// GNSS + IMU fusion (decision 0095, Wiring): nil until an inertial source sends samples, and again when its
    /// samples stop or it is powered off; while nil, fixes are delivered exactly as their sources made them.
    var fusion: InertialFusion?
    /// The time of the last input, for fixes the fusion dead-reckons at a sample's time (never before it).
    var lastInputAt = -Double.infinity

    public init(sources: [SourceDescriptor], configuration: Configuration = Configuration()) {
        self.configuration = configuration
        clients = ClientTable(
            requestLocationBudget: configuration.requestLocationBudget,
            reducedAccuracyDemand: configuration.reducedAccuracyDemand)
        pauseDetector = StationaryDetector(window: 0, radius: configuration.pauseStillRadius)
        jumpScreen = JumpScreen(parameters: configuration.jumps)
        stay = StayTracker(parameters: configuration.stays)
        regionStay = StayTracker(parameters: configuration.regionStays)
        altitude = AltitudeFusion(
            parameters: configuration.altitude ?? AltitudeFilter.Parameters(), venue: configuration.venue)
        for descriptor in sources where self.sources[descriptor.id] == nil {
            self.sources[descriptor.id] = SourceState(descriptor: descriptor)
            sourceOrder.append(descriptor.id)
        }
    }

    /// The last fix any source produced, with the monotonic time it arrived.
    public var latestFix: Fix? { latest?.fix }

    /// The last barometer reading, if any barometer is reporting.
    public var latestPressure: PressureSample? { altitude.lastSample }

    /// When the shell must send `.tick` next; nil when no timer is pending. O(1) in the clients: their earliest
    /// deadline is kept as they change (`ClientTable`); region state requests are few (one per pending
    /// `requestState`).
    public var nextDeadline: Double? {
        var deadline = clients.earliestDeadline
        if let probe = monitoringProbe { deadline = min(deadline ?? .infinity, probe.deadline) }
        for request in regions.stateRequests.values {
            deadline = min(deadline ?? .infinity, request.deadline)
        }
        return deadline
    }

    /// Reacts to one input at monotonic time `now` (seconds; never decreasing).
    public mutating func handle(_ input: EngineInput, at now: Double) -> [EngineAction] {
        var actions: [EngineAction] = []
        defer { lastInputAt = max(lastInputAt, now) }
        switch input {
        case let .client(id, command):
            handle(command, from: id, at: now, into: &actions)
        case let .source(id, report):
            handle(report, from: id, at: now, into: &actions)
        case .tick:
            expireTimers(at: now, into: &actions)
            expireRegionRequests(at: now, into: &actions)
            expireDeferrals(at: now, into: &actions)
            expirePauseProbes(at: now)
            expireMonitoringProbe(at: now)
        case let .restoreRegions(stored):
            restore(stored)
        case let .unregisterAll(ids):
            removeClients(ids)
        }
        selectSources(at: now, into: &actions)
        return actions
    }
}
