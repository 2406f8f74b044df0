/// The client's own `LocationStorage` module: a name a user's package may well have.
public enum LocationStorageMarker {
    public static let name = "LocationStorage"
}
