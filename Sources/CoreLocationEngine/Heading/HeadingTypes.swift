import Foundation

/// A 3-vector in the device frame (Apple's axes: x to the right of the screen, y towards the top of the
/// device in portrait, z out of the screen).
public struct DeviceVector: Sendable, Hashable, Codable {
    public var x: Double
    public var y: Double
    public var z: Double

    public init(x: Double, y: Double, z: Double) {
        self.x = x
        self.y = y
        self.z = z
    }

    public var length: Double { (x * x + y * y + z * z).squareRoot() }
    public var isFinite: Bool { x.isFinite && y.isFinite && z.isFinite }

    public func dot(_ other: DeviceVector) -> Double { x * other.x + y * other.y + z * other.z }

    public func cross(_ o: DeviceVector) -> DeviceVector {
        DeviceVector(x: y * o.z - z * o.y, y: z * o.x - x * o.z, z: x * o.y - y * o.x)
    }

    public static func + (a: DeviceVector, b: DeviceVector) -> DeviceVector {
        DeviceVector(x: a.x + b.x, y: a.y + b.y, z: a.z + b.z)
    }

    public static func * (s: Double, v: DeviceVector) -> DeviceVector {
        DeviceVector(x: s * v.x, y: s * v.y, z: s * v.z)
    }
}

/// One magnetometer reading as a heading source delivers it.
public struct HeadingSample: Sendable, Hashable {
    /// Calibrated geomagnetic field in the device frame, µT.
    public var field: DeviceVector
    /// The uncalibrated reading, µT; the engine watches it for a stuck sensor.
    public var raw: DeviceVector
    /// The accelerometer's reading in the device frame (pointing up when at rest, any unit), when the
    /// device has one; without it the device is assumed to lie flat, face up.
    public var gravity: DeviceVector?
    /// The source's estimate of the heading error from its calibration, degrees; negative when the
    /// magnetometer is uncalibrated.
    public var accuracy: Double
    /// A channel sits at the end of its range.
    public var isSaturated: Bool
    public var timestamp: Date
    /// A heading the sensor reported ready-made (GNSS compass); when set, `field` is not used.
    public var reported: ReportedHeading?

    public init(
        field: DeviceVector, raw: DeviceVector? = nil, gravity: DeviceVector? = nil, accuracy: Double,
        isSaturated: Bool = false, timestamp: Date, reported: ReportedHeading? = nil
    ) {
        self.reported = reported
        self.field = field
        self.raw = raw ?? field
        self.gravity = gravity
        self.accuracy = accuracy
        self.isSaturated = isSaturated
        self.timestamp = timestamp
    }
}

/// Which device axis the heading refers to (Core Location's `CLDeviceOrientation`, same raw values).
public enum HeadingOrientation: Int32, Sendable, Hashable {
    case unknown = 0
    case portrait, portraitUpsideDown, landscapeLeft, landscapeRight, faceUp, faceDown
}

/// What a client asked for: `filter` in degrees (≤ 0 or NaN: every sample), and the orientation.
public struct HeadingSettings: Sendable, Hashable {
    public var filter: Double
    public var orientation: HeadingOrientation

    public init(filter: Double = 1, orientation: HeadingOrientation = .portrait) {
        self.filter = filter
        self.orientation = orientation
    }
}

/// A heading ready for delivery (Core Location's CLHeading values).
public struct HeadingReading: Sendable, Hashable {
    /// Degrees clockwise from magnetic north, [0, 360); −1 only for a reported true heading without a
    /// known location.
    public var magneticHeading: Double
    /// Degrees clockwise from true north, [0, 360); −1 without a known location.
    public var trueHeading: Double
    /// Degrees; −1 when the magnetometer is uncalibrated.
    public var accuracy: Double
    /// The field in the device frame, µT.
    public var field: DeviceVector
    public var timestamp: Date
}

/// Why the heading service failed (Core Location reports `kCLErrorHeadingFailure`).
public enum HeadingFailure: Sendable, Hashable {
    /// The source reported itself unavailable (device gone, unreadable).
    case sourceUnavailable(reason: String)
    /// The raw reading has not changed at all for a while: a real sensor always shows noise.
    case stuck
    /// Saturated, zero or implausibly strong field (|B| outside 1…1000 µT, Earth's is 22…67 µT).
    case implausibleField
}

/// A place for the declination: geodetic degrees and metres above the WGS84 ellipsoid.
public struct HeadingLocation: Sendable, Hashable {
    public var latitude: Double
    public var longitude: Double
    public var ellipsoidalAltitude: Double

    public init(latitude: Double, longitude: Double, ellipsoidalAltitude: Double = 0) {
        self.latitude = latitude
        self.longitude = longitude
        self.ellipsoidalAltitude = ellipsoidalAltitude
    }
}
