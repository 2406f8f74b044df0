import Foundation

/// A latitude or longitude, in degrees (WGS84). North and east are positive.
public typealias CLLocationDegrees = Double

/// A distance, in metres.
public typealias CLLocationDistance = Double

/// The radius of uncertainty of a measurement, in metres. A negative value means the measurement is invalid.
public typealias CLLocationAccuracy = Double

/// A speed, in metres per second.
public typealias CLLocationSpeed = Double

/// The accuracy of a speed, in metres per second. A negative value means the speed is invalid.
public typealias CLLocationSpeedAccuracy = Double

/// A direction, in degrees clockwise from north (0 ..< 360). A negative value means the direction is invalid.
public typealias CLLocationDirection = Double

/// The accuracy of a direction, in degrees. A negative value means the direction is invalid.
public typealias CLLocationDirectionAccuracy = Double

/// A beacon's major value.
public typealias CLBeaconMajorValue = UInt16

/// A beacon's minor value.
public typealias CLBeaconMinorValue = UInt16

/// One axis of a raw geomagnetic measurement, in microteslas.
public typealias CLHeadingComponentValue = Double
