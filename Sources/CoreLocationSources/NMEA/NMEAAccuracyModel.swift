import Foundation

/// How NMEA's precision figures become Core Location accuracies.
///
/// Core Location's `horizontalAccuracy` is the radius of a circle around the reported position;
/// Apple does not state its confidence, and in practice it behaves like a 1σ-ish radius. We use:
///
/// - **With GST** (the receiver's own 1σ standard deviations of latitude and longitude error,
///   metres): horizontal = DRMS = √(σ_lat² + σ_lon²). For a circular error distribution that radius
///   holds 63.2 % of fixes (1 − e⁻¹), for a very elongated one 68.3 %: "63–68 %". Vertical = σ_alt
///   (1σ, 68.3 %).
/// - **Without GST**: DRMS = HDOP × σ_UERE and vertical = VDOP × σ_UERE, with the 1σ user-equivalent
///   range error σ_UERE chosen by fix quality (`userEquivalentRangeError(quality:mode:)`). Without a
///   VDOP (no GSA) the vertical is 1.5 × HDOP × σ_UERE: VDOP is typically 1.3–2 × HDOP because
///   satellites are only above the horizon. Without any DOP, a nominal DOP of 2 is assumed.
/// - **Speed**: NMEA has no velocity error. Receivers measure speed by Doppler, whose range-rate
///   error is about 0.1 m/s 1σ (u-blox M8/F9 data sheets give 0.05 m/s for their 50 % figure), so
///   speedAccuracy = max(0.1, HDOP × 0.1) m/s; for an estimated (dead-reckoning) fix, 1 m/s.
/// - **Course**: the angle a speed error of that size can turn the velocity vector:
///   courseAccuracy = atan(speedAccuracy / speed) in degrees, at most 180; course is invalid (−1) when
///   the speed is 0 or missing.
public enum NMEAAccuracyModel {
    /// 1σ user-equivalent range error, metres, by GGA quality (or mode letter when no GGA):
    /// autonomous single-frequency GNSS 5 m (GPS SPS signal-in-space error plus ionosphere,
    /// troposphere and multipath residuals); DGPS/SBAS 1 m; PPS 3 m; RTK fixed 0.02 m; RTK float
    /// 0.3 m; estimated (dead reckoning) 25 m.
    public static func userEquivalentRangeError(quality: Int?, mode: NMEAModeIndicator?) -> Double {
        switch quality {
        case 2: return 1.0
        case 3: return 3.0
        case 4: return 0.02
        case 5: return 0.3
        case 6: return 25.0
        case 1: return 5.0
        default: break
        }
        switch mode {
        case .differential, .precise: return 1.0
        case .rtkFixed: return 0.02
        case .rtkFloat: return 0.3
        case .estimated: return 25.0
        default: return 5.0
        }
    }

    /// DOP assumed when an epoch has none at all.
    public static let nominalDOP = 2.0
    /// VDOP/HDOP ratio assumed when only HDOP is known.
    public static let verticalToHorizontalDOP = 1.5
    /// 1σ Doppler speed error per unit of HDOP, m/s.
    public static let speedErrorPerDOP = 0.1
    public static let minimumSpeedAccuracy = 0.1
    public static let deadReckoningSpeedAccuracy = 1.0

    /// DRMS radius from GST's 1σ latitude/longitude errors, metres.
    public static func horizontalAccuracy(latitudeError: Double, longitudeError: Double) -> Double {
        (latitudeError * latitudeError + longitudeError * longitudeError).squareRoot()
    }

    /// Course accuracy, degrees, for a speed and its accuracy (m/s); −1 when the course is undefined.
    public static func courseAccuracy(speed: Double, speedAccuracy: Double) -> Double {
        guard speed > 0 else { return -1 }
        return min(180, atan(speedAccuracy / speed) * 180 / Double.pi)
    }
}
