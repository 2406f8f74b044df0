/// The client's own `LocationEngine` module: a name a user's package may well have.
public enum LocationEngineMarker {
    public static let name = "LocationEngine"
}
