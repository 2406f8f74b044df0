import Foundation

/// Counts floors from the barometer (decision 0033).
///
/// The absolute fused altitude is rarely good enough for floors (a GNSS-calibrated offset is good to
/// a metre or two, a storey is 3–4 m), so the level is *anchored* once and then *followed* by
/// barometric height changes, which are good to decimetres:
/// - anchor at the entrance: when GNSS altitudes stop (the user went indoors), the level is the
///   ground floor, 0 — or, when the fused altitude is known to `anchorAccuracy` × floor height
///   (1 σ), round((altitude − ground) / floorHeight) (an entrance up a slope); the barometric height
///   of that moment is the floor's `reference`;
/// - anchor from the altitude: at any time, a fused altitude that accurate anchors an unanchored
///   tracker the same way (a device started indoors with a calibrated barometer);
/// - follow: the barometric height, smoothed over `smoothing` seconds, against `reference`: more than
///   `switchFraction` of a storey away, the level moves by the rounded number of storeys and the
///   reference with it — a staircase or lift (0.2–3 m/s) does this within seconds;
/// - weather: within a storey, `reference` creeps towards the smoothed height with time constant
///   `weatherTimeConstant`; a front's 1 hPa/h (2.3 mm/s) is followed with a lag of a few tens of
///   centimetres and never reaches the switch threshold, while a floor change (metres in seconds) is
///   barely touched by the creep;
/// - re-anchor: while GNSS altitudes arrive, a level that disagrees with an accurate absolute one
///   for `reanchorAfter` seconds is corrected.
public struct FloorTracker: Sendable, Hashable {
    public struct Parameters: Sendable, Hashable, Codable {
        public var anchorAccuracy: Double = 0.35
        public var smoothing: Double = 1
        public var switchFraction: Double = 0.6
        public var weatherTimeConstant: Double = 120
        public var reanchorAfter: Double = 30
        public init() {}
    }

    public let venue: FloorVenue
    public let parameters: Parameters
    public private(set) var level: Int?
    private var reference: Double = 0
    private var smoothed: Double?
    private var time: Double = 0
    private var disagreeingSince: Double?
    private var wasGNSSRecent = false

    public init(venue: FloorVenue, parameters: Parameters = Parameters()) {
        self.venue = venue
        self.parameters = parameters
    }

    /// A barometric (standard-atmosphere) height at `now`, with the fused altitude when known.
    public mutating func observe(
        barometricHeight height: Double, fused: (altitude: Double, accuracy: Double)?, gnssRecent: Bool,
        at now: Double
    ) {
        let storey = venue.floorHeight
        let dt = max(0, now - time)
        time = now
        let smooth: Double
        if let previous = smoothed {
            let alpha = parameters.smoothing > 0 ? min(1, dt / parameters.smoothing) : 1
            smooth = previous + alpha * (height - previous)
        } else {
            smooth = height
        }
        smoothed = smooth
        let wentIndoors = wasGNSSRecent && !gnssRecent
        wasGNSSRecent = gnssRecent
        guard let current = level else {
            if let fused, fused.accuracy <= parameters.anchorAccuracy * storey {
                anchor(smooth: smooth, fused: fused)
            } else if wentIndoors {
                level = 0
                reference = smooth
            }
            return
        }
        let delta = smooth - reference
        if abs(delta) >= parameters.switchFraction * storey {
            let storeys = Int((delta / storey).rounded())
            if storeys != 0 {
                level = current + storeys
                reference += Double(storeys) * storey
            }
        } else if parameters.weatherTimeConstant > 0 {
            reference += (smooth - reference) * min(1, dt / parameters.weatherTimeConstant)
        }
        // Outdoors with good GNSS: the absolute altitude may correct a wrong count.
        guard gnssRecent, let fused, fused.accuracy <= parameters.anchorAccuracy * storey else {
            disagreeingSince = nil
            return
        }
        let absolute = Int(((fused.altitude - venue.groundFloorAltitude) / storey).rounded())
        if absolute == level {
            disagreeingSince = nil
        } else if let since = disagreeingSince {
            if now - since >= parameters.reanchorAfter {
                anchor(smooth: smooth, fused: fused)
                disagreeingSince = nil
            }
        } else {
            disagreeingSince = now
        }
    }

    private mutating func anchor(smooth: Double, fused: (altitude: Double, accuracy: Double)) {
        let storey = venue.floorHeight
        let above = fused.altitude - venue.groundFloorAltitude
        let anchored = Int((above / storey).rounded())
        level = anchored
        // The barometric height at which this level's floor is: the present height minus how far above it
        // the fused altitude stands.
        reference = smooth - (above - Double(anchored) * storey)
    }
}
