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
            floor: coder.decodeIfPresent(CLFloor.self, forKey: ArchiveKey.floor),
            sourceInformation: coder.decodeIfPresent(
                CLLocationSourceInformation.self, forKey: ArchiveKey.sourceInformation
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
