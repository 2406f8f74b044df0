/// The client's own `Geocoding` module: a name a user's package may well have.
public enum GeocodingMarker {
    public static let name = "Geocoding"
}
