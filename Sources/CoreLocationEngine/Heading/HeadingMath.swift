import Foundation
import CoreLocationGeodesy

/// Heading from a field and gravity vector, and true heading from the World Magnetic Model.
public enum HeadingMath {
    /// Magnetic heading of the orientation's reference axis, degrees in [0, 360), or nil when it
    /// cannot be determined (zero field, field parallel to gravity, reference axis vertical).
    ///
    /// Method: east = B × up, north = up × east (both horizontal, normalised), heading =
    /// atan2(east·r, north·r) for the reference axis r. Without gravity the device is taken as flat,
    /// face up (up = +z). The reference axis is the top of the screen as held (+y portrait, −y upside
    /// down, +x landscape left, −x landscape right) plus the back of the device (−z), so that the
    /// heading is the direction the top points when flat and the direction the back camera looks when
    /// upright, continuously in between; face up/down and unknown use the top of the device (+y).
    public static func magneticHeading(
        field: DeviceVector, gravity: DeviceVector?,
        orientation: HeadingOrientation
    ) -> Double? {
        magneticHeading(field: field, up: gravity ?? DeviceVector(x: 0, y: 0, z: 1), of: referenceAxis(orientation))
    }

    /// Magnetic heading of `reference` (any vector in the field's frame: its horizontal part is what points), degrees
    /// in [0, 360), with `up` the direction away from the Earth in the same frame; nil when it cannot be
    /// determined (zero field, field parallel to up, axis vertical). The fusion filter's compass asks it for the
    /// body's x axis (decision 0095, Compass).
    public static func magneticHeading(field: DeviceVector, up: DeviceVector, of reference: DeviceVector) -> Double? {
        guard field.isFinite, up.isFinite, reference.isFinite else { return nil }
        let east = field.cross(up)
        let eastLength = east.length
        guard up.length > 0, eastLength > 1e-9 * field.length * up.length else { return nil }
        let e = (1 / eastLength) * east
        let u = (1 / up.length) * up
        let n = u.cross(e)
        let along = (e.dot(reference), n.dot(reference))
        guard (along.0 * along.0 + along.1 * along.1).squareRoot() > 1e-6 else { return nil }
        return normalized(atan2(along.0, along.1) * 180 / .pi)
    }

    static func referenceAxis(_ orientation: HeadingOrientation) -> DeviceVector {
        let back = DeviceVector(x: 0, y: 0, z: -1)
        switch orientation {
        case .portrait: return DeviceVector(x: 0, y: 1, z: 0) + back
        case .portraitUpsideDown: return DeviceVector(x: 0, y: -1, z: 0) + back
        case .landscapeLeft: return DeviceVector(x: 1, y: 0, z: 0) + back
        case .landscapeRight: return DeviceVector(x: -1, y: 0, z: 0) + back
        case .faceUp, .faceDown, .unknown: return DeviceVector(x: 0, y: 1, z: 0)
        }
    }

    /// Declination (degrees east) of WMM2025 at a place and time, or nil for an unusable place/date.
    public static func declination(at location: HeadingLocation, date: Date) -> Double? {
        let height = location.ellipsoidalAltitude.isFinite ? location.ellipsoidalAltitude / 1000 : 0
        let clamped = min(
            max(height, MagneticModel.acceptedHeights.lowerBound), MagneticModel.acceptedHeights.upperBound)
        return try? MagneticModel.wmm2025.field(
            latitude: location.latitude, longitude: location.longitude, heightKilometers: clamped,
            decimalYear: decimalYear(date)
        ).declination
    }

    /// NOAA's decimal year of the UTC calendar day of `date` (time of day ignored, as NOAA does).
    public static func decimalYear(_ date: Date) -> Double {
        // Whole UTC days since 1970-01-01.
        let seconds = date.timeIntervalSince1970
        guard seconds.isFinite, abs(seconds) < 1e13 else { return .nan }
        let (year, month, day) = CivilCalendar.date(days: Int((seconds / 86_400).rounded(.down)))
        return MagneticModel.decimalYear(year: year, month: month, day: day) ?? .nan
    }

    /// An angle in degrees reduced to [0, 360).
    public static func normalized(_ degrees: Double) -> Double {
        let r = degrees.truncatingRemainder(dividingBy: 360)
        let positive = r < 0 ? r + 360 : r
        return positive >= 360 ? 0 : positive
    }

    /// The smallest absolute difference of two angles, degrees in [0, 180].
    public static func difference(_ a: Double, _ b: Double) -> Double {
        abs(remainder(a - b, 360))
    }
}
