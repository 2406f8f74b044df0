/// The client's own `LocationSources` module: a name a user's package may well have.
public enum LocationSourcesMarker {
    public static let name = "LocationSources"
}
