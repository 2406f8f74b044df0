import CoreLocationGeodesy
import Foundation

/// What the engine does with barometers: `AltitudeFilter` for altitude, `FloorTracker` for floors
/// (when a venue is configured), applied to every fix before it is delivered (decisions 0032, 0033).
///
/// A fix keeps its own altitude when no barometer has spoken for `AltitudeFilter.Parameters
/// .pressureMaximumAge` seconds, or when the fused altitude would be less accurate than the fix's
/// own (an uncalibrated barometer: ±250 m). Otherwise it carries the fused altitude and accuracy, and
/// an ellipsoidal altitude = fused + the geoid separation (the fix's own, ellipsoidal − altitude,
/// when it has a valid vertical; else EGM96 at the fix's position), so both altitudes stay consistent.
public struct AltitudeFusion: Sendable, Hashable {
    public var filter: AltitudeFilter
    public var floors: FloorTracker?
    /// GNSS altitudes count as "recent" (outdoors) for this many seconds.
    public var gnssRecentWindow: Double = 5
    private var lastGNSSAt: Double?
    /// The last pressure sample, for status.
    public private(set) var lastSample: PressureSample?

    public init(parameters: AltitudeFilter.Parameters = AltitudeFilter.Parameters(), venue: FloorVenue? = nil) {
        filter = AltitudeFilter(parameters: parameters)
        floors = venue.flatMap { $0.problem == nil ? FloorTracker(venue: $0) : nil }
    }

    public mutating func observe(_ sample: PressureSample, at now: Double) {
        lastSample = sample
        filter.observe(pressure: sample.hectopascals, at: now)
        guard let height = filter.barometricHeight else { return }
        let recent = lastGNSSAt.map { now - $0 <= gnssRecentWindow } ?? false
        floors?.observe(barometricHeight: height, fused: filter.estimate(at: now), gnssRecent: recent, at: now)
    }

    /// Feeds the fix's altitude to the filter (if valid), then returns it with the fused altitude and
    /// floor.
    public mutating func fuse(_ fix: Fix, at now: Double) -> Fix {
        if fix.verticalAccuracy > 0, filter.observe(gnssAltitude: fix.altitude, accuracy: fix.verticalAccuracy, at: now) {
            lastGNSSAt = now
        }
        var fused = fix
        if let estimate = filter.estimate(at: now), estimate.accuracy.isFinite,
            fix.verticalAccuracy < 0 || estimate.accuracy < fix.verticalAccuracy,
            estimate.accuracy <= filter.parameters.maximumGNSSAccuracy * 3
        {
            let separation =
                fix.verticalAccuracy >= 0
                ? fix.ellipsoidalAltitude - fix.altitude
                : EGM96Geoid.geoidHeight(latitude: fix.latitude, longitude: fix.longitude)
            fused.altitude = estimate.altitude
            fused.ellipsoidalAltitude = estimate.altitude + (separation.isFinite ? separation : 0)
            fused.verticalAccuracy = estimate.accuracy
        }
        if let floors, let level = floors.level, fix.horizontalAccuracy >= 0,
            floors.venue.contains(latitude: fix.latitude, longitude: fix.longitude),
            filter.estimate(at: now) != nil
        {
            fused.floor = level
        }
        return fused
    }
}
