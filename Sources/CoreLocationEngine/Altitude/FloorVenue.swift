import Foundation

/// A building whose floors the barometer may count (decision 0033): configured by the user, since
/// nothing on Linux maps venues. Without one, `CLLocation.floor` stays nil, as on iOS outside mapped
/// venues.
public struct FloorVenue: Sendable, Hashable, Codable {
    /// Altitude of the ground floor (level 0), metres above mean sea level — as `CLLocation.altitude`
    /// reads standing on it.
    public var groundFloorAltitude: Double
    /// Height of one storey, metres (floor to floor; typically 3–4.5).
    public var floorHeight: Double
    /// Optional extent: floors are given only within `radius` metres of this point.
    public var latitude: Double?
    public var longitude: Double?
    public var radius: Double?

    public init(
        groundFloorAltitude: Double, floorHeight: Double, latitude: Double? = nil, longitude: Double? = nil,
        radius: Double? = nil
    ) {
        self.groundFloorAltitude = groundFloorAltitude
        self.floorHeight = floorHeight
        self.latitude = latitude
        self.longitude = longitude
        self.radius = radius
    }

    /// Nil when the values cannot describe a building (floor height outside 2–10 m, non-finite values,
    /// half an extent).
    public var problem: String? {
        guard groundFloorAltitude.isFinite, abs(groundFloorAltitude) < 10_000 else {
            return "the ground-floor altitude must be a number of metres (-10000…10000)"
        }
        guard floorHeight.isFinite, floorHeight >= 2, floorHeight <= 10 else {
            return "the floor height must be 2…10 metres"
        }
        let extent = [latitude, longitude, radius].compactMap { $0 }
        guard extent.isEmpty || extent.count == 3 else { return "latitude, longitude and radius go together" }
        if let latitude, let longitude, let radius {
            guard abs(latitude) <= 90, abs(longitude) <= 180, radius > 0, radius.isFinite else {
                return "the venue's centre or radius is out of range"
            }
        }
        return nil
    }

    /// True when a fix at this position may carry a floor.
    public func contains(latitude fixLatitude: Double, longitude fixLongitude: Double) -> Bool {
        guard let latitude, let longitude, let radius else { return true }
        // An equirectangular distance is exact enough for a building's few hundred metres.
        let metresPerDegree = 111_195.0
        let dy = (fixLatitude - latitude) * metresPerDegree
        let dx = (fixLongitude - longitude) * metresPerDegree * cos(latitude * .pi / 180)
        return (dx * dx + dy * dy).squareRoot() <= radius
    }
}
