/// GGA: fix data. `quality` 0 = no fix, 1 = GPS, 2 = DGPS/SBAS, 3 = PPS, 4 = RTK fixed, 5 = RTK float,
/// 6 = estimated (dead reckoning), 7 = manual, 8 = simulator.
public struct NMEAGGA: Sendable, Hashable {
    public var timeOfDay: Double?
    public var latitude: Double?
    public var longitude: Double?
    public var quality: Int
    public var satellitesUsed: Int?
    public var hdop: Double?
    /// Antenna altitude above mean sea level (the geoid), metres.
    public var altitudeMSL: Double?
    /// Geoid separation N: the geoid's height above the WGS84 ellipsoid, metres.
    public var geoidSeparation: Double?
    public var differentialAge: Double?
    public var differentialStation: Int?
}

/// RMC: recommended minimum data. `navigationalStatus` is NMEA 4.1's last field (`S`afe,
/// `C`aution, `U`nsafe, `V` not valid), as the raw letter.
public struct NMEARMC: Sendable, Hashable {
    public var timeOfDay: Double?
    /// Status `A` (true) or `V` (false).
    public var isValid: Bool
    public var latitude: Double?
    public var longitude: Double?
    public var speedKnots: Double?
    /// Course over ground, degrees true.
    public var courseTrue: Double?
    public var date: NMEADate?
    /// Magnetic variation, degrees, east positive.
    public var magneticVariation: Double?
    public var mode: NMEAModeIndicator?
    public var navigationalStatus: UInt8?
}

/// GLL: position and time.
public struct NMEAGLL: Sendable, Hashable {
    public var latitude: Double?
    public var longitude: Double?
    public var timeOfDay: Double?
    public var isValid: Bool
    public var mode: NMEAModeIndicator?
}

/// VTG: course and speed over ground (the NMEA 2.0+ layout with unit letters, or the older bare
/// four-field layout).
public struct NMEAVTG: Sendable, Hashable {
    public var courseTrue: Double?
    public var courseMagnetic: Double?
    public var speedKnots: Double?
    public var speedKilometresPerHour: Double?
    public var mode: NMEAModeIndicator?
}

/// GSA: DOP and the satellites used. `fixType` 1 = none, 2 = 2D, 3 = 3D. `systemID` is NMEA 4.11's
/// field 18 (nil before 4.11; then the talker tells the system, `GN` meaning "see the IDs").
public struct NMEAGSA: Sendable, Hashable {
    /// `M`anual or `A`utomatic 2D/3D selection.
    public var selectionMode: UInt8?
    public var fixType: Int?
    public var satellites: NMEASatelliteIDs
    public var pdop: Double?
    public var hdop: Double?
    public var vdop: Double?
    public var systemID: Int?
}

/// GSV: satellites in view, up to four per sentence. `signalID` is NMEA 4.11's last field.
public struct NMEAGSV: Sendable, Hashable {
    public var messageCount: Int
    public var messageNumber: Int
    public var satellitesInView: Int
    public var satellites: NMEASatellitesInView
    public var signalID: Int?
}

/// GST: pseudorange error statistics, metres, 1σ (the standard deviations of the position error).
public struct NMEAGST: Sendable, Hashable {
    public var timeOfDay: Double?
    public var rangeRMS: Double?
    public var semiMajor: Double?
    public var semiMinor: Double?
    /// Orientation of the semi-major axis, degrees from true north.
    public var orientation: Double?
    public var latitudeError: Double?
    public var longitudeError: Double?
    public var altitudeError: Double?
}

/// GNS: multi-constellation fix data. `modes` holds one mode letter per system (GPS, GLONASS,
/// Galileo, BeiDou, QZSS, NavIC); `isValid` is true when any of them is a valid fix.
public struct NMEAGNS: Sendable, Hashable {
    public var timeOfDay: Double?
    public var latitude: Double?
    public var longitude: Double?
    public var bestMode: NMEAModeIndicator?
    public var isValid: Bool
    public var satellitesUsed: Int?
    public var hdop: Double?
    public var altitudeMSL: Double?
    public var geoidSeparation: Double?
    public var differentialAge: Double?
    public var differentialStation: Int?
    public var navigationalStatus: UInt8?
}

/// ZDA: UTC date and time, and the local zone.
public struct NMEAZDA: Sendable, Hashable {
    public var timeOfDay: Double?
    public var date: NMEADate?
    public var zoneHours: Int?
    public var zoneMinutes: Int?
}

/// HDT: heading, degrees true.
public struct NMEAHDT: Sendable, Hashable {
    public var heading: Double?
}

/// HDG: magnetic sensor heading with deviation and variation (degrees, east positive).
public struct NMEAHDG: Sendable, Hashable {
    public var sensorHeading: Double?
    public var deviation: Double?
    public var variation: Double?
}

/// THS: true heading and its status (`A` autonomous, `E` estimated, `M` manual, `S` simulator,
/// `V` not valid), as the raw letter.
public struct NMEATHS: Sendable, Hashable {
    public var heading: Double?
    public var status: UInt8?
}
