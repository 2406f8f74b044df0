import Foundation
import CoreLocationEngine

/// Turns GNSS heading reports — NMEA HDT, HDG and THS sentences, gpsd ATT objects — into heading samples
/// the heading engine delivers as they are (`HeadingSample.reported`).
///
/// Rules, per NMEA 0183 4.11 and gpsd_json(5):
/// - HDT: the heading field is true heading.
/// - HDG: magnetic = sensor heading + deviation (east positive; a missing deviation counts as 0, the
///   sensor is taken as compensated); true = magnetic + variation, only when the variation is given.
/// - THS: true heading, unless the mode is `V` (not valid) or missing.
/// - gpsd ATT: `heading` is true heading, `mheading` magnetic; both are dropped when `mag_st` reports an
///   alarm (`C` calibration, `L`/`P` low/high field, `V` supply voltage).
/// Sentences with a bad checksum never reach here (the parser drops them); empty fields give no sample.
public enum GNSSHeading {
    /// The accuracy given to GNSS heading, degrees: 0.5°.
    ///
    /// Dual-antenna GNSS compasses specify 0.1°–0.3° RMS at 1 m baseline once the carrier-phase ambiguity
    /// is fixed (error ≈ 0.2°/baseline in m), and 1°–2° for short baselines or float solutions; NMEA and
    /// gpsd carry no per-report accuracy, so one conservative middle value is used. HDG comes from a
    /// magnetic sensor, not GNSS: its accuracy is `magneticAccuracy`.
    public static let accuracy = 0.5
    /// The accuracy given to HDG (fluxgate/magnetic compass) headings, degrees: 2°, the usual
    /// specification of marine electronic compasses after deviation compensation.
    public static let magneticAccuracy = 2.0

    /// The heading in one NMEA sentence with the accuracy to give it, nil for other sentence types.
    public static func reported(from sentence: NMEASentence) -> (heading: ReportedHeading, accuracy: Double)? {
        switch sentence.body {
        case .hdt(let hdt):
            let heading = ReportedHeading(trueHeading: hdt.heading)
            return heading.isEmpty ? nil : (heading, accuracy)
        case .ths(let ths):
            guard let status = ths.status, status != UInt8(ascii: "V") else { return nil }
            let heading = ReportedHeading(trueHeading: ths.heading)
            return heading.isEmpty ? nil : (heading, accuracy)
        case .hdg(let hdg):
            guard let sensor = hdg.sensorHeading, sensor.isFinite else { return nil }
            let magnetic = HeadingMath.normalized(sensor + (hdg.deviation ?? 0))
            let trueHeading = hdg.variation.map { HeadingMath.normalized(magnetic + $0) }
            let heading = ReportedHeading(trueHeading: trueHeading, magneticHeading: magnetic)
            return heading.isEmpty ? nil : (heading, magneticAccuracy)
        default:
            return nil
        }
    }

    /// The heading in a gpsd ATT report, nil without one or when the magnetometer reports an alarm.
    public static func reported(from att: GPSDATT) -> ReportedHeading? {
        if let status = att.mag_st, ["C", "L", "P", "V"].contains(status.uppercased()) { return nil }
        let heading = ReportedHeading(trueHeading: att.heading, magneticHeading: att.mheading)
        return heading.isEmpty ? nil : heading
    }

    /// A sample carrying a reported heading. There is no magnetometer: the field is zero (CLHeading's
    /// x, y, z read 0).
    public static func sample(_ heading: ReportedHeading, accuracy: Double, at timestamp: Date) -> HeadingSample {
        let zero = DeviceVector(x: 0, y: 0, z: 0)
        return HeadingSample(field: zero, accuracy: accuracy, timestamp: timestamp, reported: heading)
    }
}
