import Foundation

/// Names one client of the engine: a `CLLocationManager`, a `liveUpdates` stream, a CLI session.
public struct ClientID: Hashable, Codable, Sendable, CustomStringConvertible {
    public var rawValue: UInt64
    public init(_ rawValue: UInt64) { self.rawValue = rawValue }
    public var description: String { "client-\(rawValue)" }
}

/// What a client asks of the standard location service.
public struct UpdateRequest: Hashable, Codable, Sendable {
    /// Metres, as `CLLocationManager.desiredAccuracy`: negative means "the best available"
    /// (kCLLocationAccuracyBest −1, BestForNavigation −2); NaN is taken as best.
    public var desiredAccuracy: Double
    /// Metres, as `CLLocationManager.distanceFilter`: zero, negative or NaN means every fix.
    public var distanceFilter: Double
    /// `CLActivityType.rawValue`: chooses the automatic-pause thresholds (see `AutoPausePolicy`).
    public var activityType: Int
    /// `CLLocationManager.pausesLocationUpdatesAutomatically`.
    public var pausesAutomatically: Bool
    /// `CLLocationManager.allowsBackgroundLocationUpdates`: the app declared that these updates go on while it is not
    /// in front. A running Linux process is always in use, so delivery is the same; the declaration is what
    /// `locationctl status` shows (decision 0047). Optional on the wire: nil (false) from clients that predate it.
    public var allowsBackground: Bool?
    /// `showsBackgroundLocationIndicator` with `allowsBackground`: iOS's status-bar indicator becomes the word
    /// `indicator` beside the app's updates in `locationctl status` (decision 0047). Optional as above.
    public var showsIndicator: Bool?

    public init(
        desiredAccuracy: Double = -1, distanceFilter: Double = -1, activityType: Int = 1,
        pausesAutomatically: Bool = false, allowsBackground: Bool? = nil, showsIndicator: Bool? = nil
    ) {
        self.desiredAccuracy = desiredAccuracy
        self.distanceFilter = distanceFilter
        self.activityType = activityType
        self.pausesAutomatically = pausesAutomatically
        self.allowsBackground = allowsBackground
        self.showsIndicator = showsIndicator
    }
}

/// The authorization an app holds, as decided outside the engine (storage, prompt, policy).
public struct ClientAuthorization: Hashable, Codable, Sendable {
    public var level: AuthorizationLevel
    public var accuracy: AccuracyLevel

    public init(level: AuthorizationLevel, accuracy: AccuracyLevel = .full) {
        self.level = level
        self.accuracy = accuracy
    }

    public var allowsLocation: Bool { level == .whenInUse || level == .always }
    public var isDecidedAgainst: Bool { level == .denied || level == .restricted }
}

/// A command from one client.
public enum ClientCommand: Hashable, Codable, Sendable {
    case register(label: String, authorization: ClientAuthorization)
    case setAuthorization(ClientAuthorization)
    case startUpdates(UpdateRequest)
    case stopUpdates
    case requestLocation(UpdateRequest)
    /// Region monitoring (`startMonitoring(for:)`): regions are the app's, shared by its clients.
    case startMonitoring(MonitoredRegion)
    case stopMonitoring(identifier: String, group: String = "")
    case requestRegionState(identifier: String, group: String = "")
    /// The significant-change service.
    case startSignificantChanges
    case stopSignificantChanges
    /// Deferred updates: batch this client's updates until it has travelled `distance` metres or
    /// `timeout` seconds have passed (either may be infinite or `greatestFiniteMagnitude`).
    case allowDeferredUpdates(distance: Double, timeout: Double)
    case disallowDeferredUpdates
    /// The visits service (`startMonitoringVisits`).
    case startVisits
    case stopVisits
    case unregister
}

/// What a source tells its owner, and the engine: one type from the source to the engine (the runtime hands
/// it on as it is).
public enum SourceEvent: Hashable, Codable, Sendable {
    /// A new position estimate.
    case fix(Fix)
    /// A barometer's reading (only barometers send these; decision 0032): fused into the altitude of every fix.
    case pressure(PressureSample)
    /// Accelerometer and gyroscope samples in time order (only inertial sources send these; decision 0095): with
    /// them the engine fuses its GNSS-class fixes and dead-reckons through GNSS outages.
    case inertial([InertialSample])
    /// The source cannot currently produce positions (no fix, device gone…); the reason is for logs.
    case unavailable(reason: String)
    /// The source has nothing more to say (a replay reached its end).
    case finished
}

/// Everything the engine reacts to. Time comes alongside, in `handle(_:at:)`.
public enum EngineInput: Hashable, Codable, Sendable {
    case client(ClientID, ClientCommand)
    case source(SourceID, SourceEvent)
    /// Time passed; the shell sends this at `nextDeadline`.
    case tick
    /// The app's regions as storage kept them; no notices are produced.
    case restoreRegions([StoredRegion])
    /// Several clients unregister at once (a connection closed): one step, one source selection.
    case unregisterAll([ClientID])
}

/// Failures the engine reports to a client; the façade maps them to `CLError` codes.
public enum EngineFailure: String, Hashable, Codable, Sendable {
    /// kCLErrorLocationUnknown: no position right now; the engine keeps trying.
    case locationUnknown
    /// kCLErrorDenied: the app is not authorized.
    case denied
}

/// Why deferred updates ended or could not start (`CLError`'s deferred codes).
public enum DeferralError: String, Hashable, Codable, Sendable {
    /// kCLErrorDeferredFailed: the deferral could not proceed (authorization was revoked).
    case failed
    /// kCLErrorDeferredNotUpdatingLocation: location updates are not running.
    case notUpdatingLocation
    /// kCLErrorDeferredAccuracyTooLow: desiredAccuracy is not Best or BestForNavigation.
    case accuracyTooLow
    /// kCLErrorDeferredDistanceFiltered: distanceFilter is not kCLDistanceFilterNone.
    case distanceFiltered
    /// kCLErrorDeferredCanceled: disallowed, or replaced by a new deferral.
    case canceled
}

/// One batch of locations for one client.
public struct Delivery: Hashable, Codable, Sendable {
    public var fixes: [Fix]
    /// The device has not moved for a while (see `StationaryDetector`).
    public var isStationary: Bool
    /// The fixes were coarsened because the app holds reduced accuracy.
    public var accuracyLimited: Bool
    /// True for the one answer to `requestLocation`.
    public var isRequestedLocation: Bool

    public init(fixes: [Fix], isStationary: Bool, accuracyLimited: Bool, isRequestedLocation: Bool) {
        self.fixes = fixes
        self.isStationary = isStationary
        self.accuracyLimited = accuracyLimited
        self.isRequestedLocation = isRequestedLocation
    }
}

/// What the shell must do after an input.
public enum EngineAction: Hashable, Codable, Sendable {
    case deliver(ClientID, Delivery)
    case fail(ClientID, EngineFailure)
    case powerOn(SourceID)
    case powerOff(SourceID)
    /// Tell one client about regions.
    case region(ClientID, RegionNotice)
    /// Persist a region and its state (replacing any with the same identifier).
    case storeRegion(StoredRegion)
    /// A deferral ended (`didFinishDeferredUpdatesWithError`); nil means it completed normally.
    case deferredFinished(ClientID, DeferralError?)
    /// Tell one client about a visit: an arrival (departure nil) or a completed one.
    case visit(ClientID, Visit)
    /// Automatic pausing: the client's updates paused (the user stopped) or resumed (they left).
    case paused(ClientID)
    case resumed(ClientID)
    /// Forget a persisted region.
    case forgetRegion(identifier: String, group: String = "")
}
