/// A geocoding answer as plain values; the CoreLocation façade turns it into a `CLPlacemark`.
///
/// Every field Apple's `CLPlacemark` has; absent fields are nil. Coordinates in degrees (WGS84).
public struct GeocodedPlace: Sendable, Hashable, Codable {
    public var latitude: Double
    public var longitude: Double
    public var name: String?
    public var thoroughfare: String?
    public var subThoroughfare: String?
    public var locality: String?
    public var subLocality: String?
    public var administrativeArea: String?
    public var subAdministrativeArea: String?
    public var postalCode: String?
    public var isoCountryCode: String?
    public var country: String?
    public var inlandWater: String?
    public var ocean: String?
    public var areasOfInterest: [String]?
    /// IANA time-zone identifier.
    public var timeZone: String?
    /// Centre of the area the place covers (degrees) and its radius (metres).
    public var regionLatitude: Double?
    public var regionLongitude: Double?
    public var regionRadius: Double?
    /// Address lines as the source formats them; nil to let the placemark build its own.
    public var formattedAddressLines: [String]?

    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }
}
