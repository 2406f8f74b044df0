/// What an IP database says about an address.
public struct IPLocation: Sendable, Hashable {
    public var latitude: Double
    public var longitude: Double
    /// Metres: the database's `accuracy_radius` (kilometres) when it has one, else `IPGeolocation`'s default for
    /// the answer's level (docs/decisions/0025).
    public var horizontalAccuracy: Double
    /// True when the radius came from the database, false when it is the documented default.
    public var accuracyFromDatabase: Bool
    /// The English city name, when the answer is city-level.
    public var city: String?
    /// ISO 3166-1 alpha-2.
    public var countryCode: String?

    public init(
        latitude: Double, longitude: Double, horizontalAccuracy: Double, accuracyFromDatabase: Bool,
        city: String? = nil, countryCode: String? = nil
    ) {
        self.latitude = latitude
        self.longitude = longitude
        self.horizontalAccuracy = horizontalAccuracy
        self.accuracyFromDatabase = accuracyFromDatabase
        self.city = city
        self.countryCode = countryCode
    }
}
