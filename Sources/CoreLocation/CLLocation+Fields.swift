import Foundation

extension CLLocation {
    /// The stored values of a location, in one `Sendable` struct so that every designated initializer
    /// can set them in one assignment. Defaults are Apple's "invalid" markers (−1).
    struct Fields: Sendable {
        var coordinate: CLLocationCoordinate2D
        var altitude: CLLocationDistance = 0
        var ellipsoidalAltitude: CLLocationDistance = 0
        var horizontalAccuracy: CLLocationAccuracy
        var verticalAccuracy: CLLocationAccuracy = -1
        var course: CLLocationDirection = -1
        var courseAccuracy: CLLocationDirectionAccuracy = -1
        var speed: CLLocationSpeed = -1
        var speedAccuracy: CLLocationSpeedAccuracy = -1
        var timestamp: Date
        var floor: CLFloor? = nil
        var sourceInformation: CLLocationSourceInformation? = nil
    }
}

// MARK: NSCoding

/// Archive keys, named after the ones Apple's archives use.
private enum ArchiveKey {
    static let latitude = "kCLLocationCodingKeyCoordinateLatitude"
    static let longitude = "kCLLocationCodingKeyCoordinateLongitude"
    static let altitude = "kCLLocationCodingKeyAltitude"
    static let ellipsoidalAltitude = "kCLLocationCodingKeyEllipsoidalAltitude"
    static let horizontalAccuracy = "kCLLocationCodingKeyHorizontalAccuracy"
    static let verticalAccuracy = "kCLLocationCodingKeyVerticalAccuracy"
    static let course = "kCLLocationCodingKeyCourse"
    static let courseAccuracy = "kCLLocationCodingKeyCourseAccuracy"
    static let speed = "kCLLocationCodingKeySpeed"
    static let speedAccuracy = "kCLLocationCodingKeySpeedAccuracy"
    static let timestamp = "kCLLocationCodingKeyTimestamp"
    static let floor = "kCLLocationCodingKeyFloor"
    static let sourceInformation = "kCLLocationCodingKeySourceInformation"
}

extension CLLocation.Fields {
    /// Reads the values `CLLocation.encodeFields(with:)` wrote. A missing number decodes as 0, as
    /// `NSCoder` does everywhere.
    init(decodingWith coder: NSCoder) {
        self.init(
            coordinate: CLLocationCoordinate2D(
                latitude: coder.decodeDouble(forKey: ArchiveKey.latitude),
                longitude: coder.decodeDouble(forKey: ArchiveKey.longitude)
            ),
            altitude: coder.decodeDouble(forKey: ArchiveKey.altitude),
            ellipsoidalAltitude: coder.decodeDouble(forKey: ArchiveKey.ellipsoidalAltitude),
            horizontalAccuracy: coder.decodeDouble(forKey: ArchiveKey.horizontalAccuracy),
            verticalAccuracy: coder.decodeDouble(forKey: ArchiveKey.verticalAccuracy),
            course: coder.decodeDouble(forKey: ArchiveKey.course),
            courseAccuracy: coder.decodeDouble(forKey: ArchiveKey.courseAccuracy),
            speed: coder.decodeDouble(forKey: ArchiveKey.speed),
            speedAccuracy: coder.decodeDouble(forKey: ArchiveKey.speedAccuracy),
            timestamp: Date(timeIntervalSinceReferenceDate: coder.decodeDouble(forKey: ArchiveKey.timestamp)),
            floor: coder.decodeObject(of: CLFloor.self, forKey: ArchiveKey.floor),
            sourceInformation: coder.decodeObject(
                of: CLLocationSourceInformation.self, forKey: ArchiveKey.sourceInformation
            )
        )
    }
}

extension CLLocation {
    /// Writes every value through the (overridable) properties, so a subclass's overrides are archived.
    func encodeFields(with coder: NSCoder) {
        coder.encode(coordinate.latitude, forKey: ArchiveKey.latitude)
        coder.encode(coordinate.longitude, forKey: ArchiveKey.longitude)
        coder.encode(altitude, forKey: ArchiveKey.altitude)
        coder.encode(ellipsoidalAltitude, forKey: ArchiveKey.ellipsoidalAltitude)
        coder.encode(horizontalAccuracy, forKey: ArchiveKey.horizontalAccuracy)
        coder.encode(verticalAccuracy, forKey: ArchiveKey.verticalAccuracy)
        coder.encode(course, forKey: ArchiveKey.course)
        coder.encode(courseAccuracy, forKey: ArchiveKey.courseAccuracy)
        coder.encode(speed, forKey: ArchiveKey.speed)
        coder.encode(speedAccuracy, forKey: ArchiveKey.speedAccuracy)
        coder.encode(timestamp.timeIntervalSinceReferenceDate, forKey: ArchiveKey.timestamp)
        if let floor { coder.encode(floor, forKey: ArchiveKey.floor) }
        if let sourceInformation { coder.encode(sourceInformation, forKey: ArchiveKey.sourceInformation) }
    }
}

// MARK: Codable

/// Codable keys: plain property names, so the JSON reads naturally.
private enum CodingKeys: String, CodingKey {
    case latitude, longitude, altitude, ellipsoidalAltitude, horizontalAccuracy, verticalAccuracy
    case course, courseAccuracy, speed, speedAccuracy, timestamp, floor
    case isSimulatedBySoftware, isProducedByAccessory
}

extension CLLocation.Fields {
    /// Reads what `CLLocation.encode(to:)` writes. Only `latitude`, `longitude` and `timestamp` are
    /// required; a missing value gets the default of `CLLocation(latitude:longitude:)` (accuracies −1
    /// except horizontal 0, ellipsoidal altitude = altitude). Source information is present when either
    /// of its flags is.
    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let altitude = try c.decodeIfPresent(Double.self, forKey: .altitude) ?? 0
        let simulated = try c.decodeIfPresent(Bool.self, forKey: .isSimulatedBySoftware)
        let accessory = try c.decodeIfPresent(Bool.self, forKey: .isProducedByAccessory)
        self.init(
            coordinate: CLLocationCoordinate2D(
                latitude: try c.decode(Double.self, forKey: .latitude),
                longitude: try c.decode(Double.self, forKey: .longitude)
            ),
            altitude: altitude,
            ellipsoidalAltitude: try c.decodeIfPresent(Double.self, forKey: .ellipsoidalAltitude) ?? altitude,
            horizontalAccuracy: try c.decodeIfPresent(Double.self, forKey: .horizontalAccuracy) ?? 0,
            verticalAccuracy: try c.decodeIfPresent(Double.self, forKey: .verticalAccuracy) ?? -1,
            course: try c.decodeIfPresent(Double.self, forKey: .course) ?? -1,
            courseAccuracy: try c.decodeIfPresent(Double.self, forKey: .courseAccuracy) ?? -1,
            speed: try c.decodeIfPresent(Double.self, forKey: .speed) ?? -1,
            speedAccuracy: try c.decodeIfPresent(Double.self, forKey: .speedAccuracy) ?? -1,
            timestamp: try c.decode(Date.self, forKey: .timestamp),
            floor: try c.decodeIfPresent(Int.self, forKey: .floor).map { CLFloor(level: $0) },
            sourceInformation: simulated == nil && accessory == nil
                ? nil
                : CLLocationSourceInformation(
                    softwareSimulationState: simulated ?? false, externalAccessoryState: accessory ?? false
                )
        )
    }
}

extension CLLocation {
    /// Encodes every value as a flat object: `latitude`, `longitude`, `altitude`, `ellipsoidalAltitude`,
    /// the accuracies, `course`, `speed`, `timestamp`, and `floor` / `isSimulatedBySoftware` /
    /// `isProducedByAccessory` when present. Not part of Apple's API (there `CLLocation` is not `Codable`).
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(coordinate.latitude, forKey: .latitude)
        try c.encode(coordinate.longitude, forKey: .longitude)
        try c.encode(altitude, forKey: .altitude)
        try c.encode(ellipsoidalAltitude, forKey: .ellipsoidalAltitude)
        try c.encode(horizontalAccuracy, forKey: .horizontalAccuracy)
        try c.encode(verticalAccuracy, forKey: .verticalAccuracy)
        try c.encode(course, forKey: .course)
        try c.encode(courseAccuracy, forKey: .courseAccuracy)
        try c.encode(speed, forKey: .speed)
        try c.encode(speedAccuracy, forKey: .speedAccuracy)
        try c.encode(timestamp, forKey: .timestamp)
        try c.encodeIfPresent(floor?.level, forKey: .floor)
        if let sourceInformation {
            try c.encode(sourceInformation.isSimulatedBySoftware, forKey: .isSimulatedBySoftware)
            try c.encode(sourceInformation.isProducedByAccessory, forKey: .isProducedByAccessory)
        }
    }
}
