/// The client's own `Geodesy` module: a name a user's package may well have.
public enum GeodesyMarker {
    public static let name = "Geodesy"
}
