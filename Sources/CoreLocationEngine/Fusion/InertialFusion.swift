import CoreLocationGeodesy
import Foundation

/// The engine's side of GNSS + IMU fusion (decision 0095, Wiring): a `FusionFilter` fed with an inertial source's
/// samples and the GNSS-class fixes, which says what to deliver instead of a fix, and when to deliver a
/// dead-reckoned fix through a GNSS outage.
///
/// Time base: the engine's monotonic clock. A GNSS fix is taken at the time it reaches the engine (`now`); a
/// sample at its own `time`, which its source stamps on the same clock (`InertialSourceEvent`). A replay runs both
/// on the recording's timeline, so the filter sees the same inputs at any replay speed; a live receiver's latency
/// (0.1–0.5 s between measuring and sending a fix) is not compensated.
///
/// Rules:
/// - Only fixes from a GNSS-class source are fused: one whose `expectedAccuracy` is at most
///   `Parameters.gnssClassAccuracy` (30 m: gpsd, NMEA, a modem's GNSS, simulated routes; not Wi-Fi, IP or cells,
///   whose errors are not a receiver's noise around the truth and which the filter's noise model does not describe).
/// - A fused fix replaces the GNSS fix once the filter is aligned (its yaw known, so the IMU is being used): before
///   that the filter is a constant-velocity smoother of GNSS alone, and the fix goes out as the source made it. A
///   GNSS position the filter rejects (a multipath jump beyond its χ² gate) is replaced by the filter's prediction.
/// - Through an outage a dead-reckoned fix is delivered at the GNSS rate (the last interval between two fixes,
///   between 0.1 and 1 s; the first 1.5 intervals after the last fix, so a late fix is not doubled) while the last
///   accepted GNSS position is at most `deadReckoningLimit` s old and the 68 % radius is at most
///   `deadReckoningAccuracyLimit` m. The vehicle constraint is applied after each GNSS fix and at each dead-reckoned
///   fix, as `Benchmarks/fusion` applies it.
/// - A compass heading carried by a sample (`InertialSample.heading`, the body's x axis) updates the filter's yaw,
///   and aligns it if nothing has (standing still, before the first course): a magnetic heading plus the WMM2025
///   declination at the last GNSS fix (place and date), a true one as it is; one with an unknown accuracy (an
///   uncalibrated magnetometer, accuracy −1) or before the first GNSS fix is not used.
public struct InertialFusion: Sendable {
    public struct Parameters: Sendable, Hashable, Codable {
        /// The filter's tuning (decision 0095's values by default).
        public var filter = FusionFilter.Configuration()
        /// A source whose `expectedAccuracy` is at most this, metres, is GNSS-class: its fixes are fused.
        public var gnssClassAccuracy: Double = 30
        /// Seconds after the last accepted GNSS position during which dead-reckoned fixes are delivered:
        /// `Benchmarks/fusion` measured the filter's accuracy covering the true error up to 60 s outages (90 % at
        /// 60 s, conservative); beyond, its drift (t² at stops) is not measured.
        public var deadReckoningLimit: Double = 60
        /// Largest 68 % radius, metres, of a dead-reckoned fix: the accuracy a Wi-Fi source gives; a worse
        /// position is no longer worth more than what the other sources offer.
        public var deadReckoningAccuracyLimit: Double = 100
        /// Inertial input counts as present while its last sample is at most this many seconds older than a fix;
        /// after that the filter is dropped and fixes go out as their sources made them.
        public var inertialTimeout: Double = 1

        public init() {}
    }

    public let parameters: Parameters
    public private(set) var filter: FusionFilter
    /// True when the inertial source is simulated (a replay): its fused fixes say so too.
    let isSimulated: Bool
    /// The time of the last plausible sample.
    private(set) var lastSampleTime: Double?
    /// The last GNSS-class fix fused, with its engine time and source: the template of dead-reckoned fixes.
    private(set) var lastGNSS: (fix: Fix, at: Double, source: SourceID)?
    /// Seconds between GNSS fixes (the last interval, 0.1 ... 1 s).
    private var gnssInterval: Double = 1
    /// The last fix made from the filter (fused or dead-reckoned), with its time: when the next dead-reckoned fix
    /// falls due, and what another source must beat in an outage.
    private(set) var lastFused: (fix: Fix, at: Double)?
    /// Dead reckoning reached its limit; it starts again with the next GNSS fix.
    private var deadReckoningEnded = false
    /// Degrees east of true north of the magnetic north at the last GNSS fix (WMM2025), nil before a fix or where
    /// the model has no answer: a magnetic heading is turned into a true one with it.
    private(set) var declination: Double?

    public init(parameters: Parameters = Parameters(), isSimulated: Bool = false) {
        self.parameters = parameters
        self.isSimulated = isSimulated
        filter = FusionFilter(configuration: parameters.filter)
    }

    /// Whether samples are arriving: the last one is at most `inertialTimeout` before `time`.
    func hasInertialInput(at time: Double) -> Bool {
        guard let last = lastSampleTime else { return false }
        return time - last <= parameters.inertialTimeout
    }

    /// A barometer's reading into the filter's vertical channel (its standard-atmosphere height).
    public mutating func observe(_ sample: PressureSample, at now: Double) {
        let height = sample.standardAtmosphereHeight
        guard height.isFinite else { return }
        filter.update(pressureAltitude: height, at: now)
    }

    /// Fuses a GNSS-class fix that reached the engine at `now`; returns what to deliver in its place. `measured` is
    /// the fix as its source made it (the filter's GNSS altitude), `fix` the one to deliver otherwise (the altitude
    /// filter's altitude and floor, decisions 0032–0033); they are the same without a barometer.
    public mutating func fuse(_ fix: Fix, measured: Fix? = nil, from source: SourceID, at now: Double) -> Fix {
        let measured = measured ?? fix
        if let last = lastGNSS, now > last.at { gnssInterval = min(max(now - last.at, 0.1), 1) }
        lastGNSS = (fix, now, source)
        deadReckoningEnded = false
        declination = HeadingMath.declination(
            at: HeadingLocation(
                latitude: fix.latitude, longitude: fix.longitude,
                ellipsoidalAltitude: fix.verticalAccuracy > 0 ? fix.ellipsoidalAltitude : 0),
            date: fix.timestamp)
        filter.update(gnss: measured, at: now)
        filter.applyVehicleConstraint()
        guard filter.isAligned, let estimate = filter.estimate else { return fix }
        let output = fused(estimate, template: fix, geoid: measured, timestamp: fix.timestamp)
        lastFused = (output, now)
        return output
    }

    /// Propagates the filter with one sample; returns a dead-reckoned fix when one is due (in an outage).
    public mutating func propagate(_ sample: InertialSample) -> Fix? {
        guard sample.isPlausible, sample.time > (lastSampleTime ?? -.infinity) else { return nil }
        lastSampleTime = sample.time
        guard filter.propagate(sample) else { return nil }
        if let heading = sample.heading { update(heading, at: sample.time) }
        guard filter.isAligned, !deadReckoningEnded, let gnss = lastGNSS,
            let lastOutput = lastFused?.at
        else { return nil }
        let wait = lastOutput == gnss.at ? 1.5 * gnssInterval : gnssInterval
        guard sample.time - lastOutput >= wait else { return nil }
        filter.applyVehicleConstraint()
        guard let estimate = filter.estimate, estimate.sinceGNSS <= parameters.deadReckoningLimit,
            estimate.horizontalAccuracy <= parameters.deadReckoningAccuracyLimit
        else {
            deadReckoningEnded = true
            return nil
        }
        let timestamp = gnss.fix.timestamp.addingTimeInterval(sample.time - gnss.at)
        var template = gnss.fix
        // The altitude is the filter's when its vertical channel has started; else invalid unless a barometer
        // gives one (the engine's altitude filter, after).
        template.altitude = 0
        template.ellipsoidalAltitude = 0
        template.verticalAccuracy = -1
        template.floor = nil
        let output = fused(estimate, template: template, geoid: gnss.fix, timestamp: timestamp)
        lastFused = (output, sample.time)
        return output
    }

    /// A compass heading of the body into the filter: true as it is, magnetic with the declination at the last GNSS
    /// fix; nothing without a usable accuracy or (magnetic) a declination.
    private mutating func update(_ heading: InertialSample.BodyHeading, at time: Double) {
        guard heading.accuracy > 0, heading.accuracy.isFinite, heading.degrees.isFinite else { return }
        let degrees: Double
        if heading.isTrue {
            degrees = heading.degrees
        } else if let declination {
            degrees = HeadingMath.normalized(heading.degrees + declination)
        } else {
            return
        }
        filter.update(heading: degrees, accuracy: heading.accuracy, at: time)
    }

    /// The estimate as a fix: position, speed and course with their accuracies from the filter, and its height when
    /// it has one (ellipsoidal altitude = h; altitude = h − the geoid's separation, `geoid`'s own ellipsoidal −
    /// altitude when it has a valid vertical, else EGM96 there; verticalAccuracy = 1 σ of h); the rest (floor,
    /// accessory; the altitude without a height) from `template`.
    private func fused(_ estimate: FusionFilter.Estimate, template: Fix, geoid: Fix, timestamp: Date) -> Fix {
        var fix = template
        if let height = estimate.height, height.isFinite, estimate.verticalAccuracy > 0,
            estimate.verticalAccuracy.isFinite
        {
            let separation =
                geoid.verticalAccuracy > 0 && (geoid.ellipsoidalAltitude - geoid.altitude).isFinite
                ? geoid.ellipsoidalAltitude - geoid.altitude
                : EGM96Geoid.geoidHeight(latitude: estimate.latitude, longitude: estimate.longitude)
            fix.ellipsoidalAltitude = height
            fix.altitude = height - (separation.isFinite ? separation : 0)
            fix.verticalAccuracy = estimate.verticalAccuracy
        }
        fix.latitude = estimate.latitude
        fix.longitude = estimate.longitude
        fix.horizontalAccuracy = estimate.horizontalAccuracy
        fix.speed = estimate.speed
        fix.speedAccuracy = estimate.speedAccuracy
        fix.course = estimate.course
        fix.courseAccuracy = estimate.courseAccuracy
        fix.timestamp = timestamp
        fix.isSimulated = template.isSimulated || isSimulated
        fix.isFused = true
        return fix
    }
}
