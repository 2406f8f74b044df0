import Foundation

/// Whether the app may use location services. Raw values as Apple's.
public enum CLAuthorizationStatus: Int32, Sendable {
    /// The user has not yet chosen.
    case notDetermined = 0
    /// Location services are not available to this app, and the user cannot change that.
    case restricted = 1
    /// The user refused, or location services are off.
    case denied = 2
    /// The app may use location services at any time.
    case authorizedAlways = 3
    /// The app may use location services while it is in use.
    case authorizedWhenInUse = 4

    /// The app may use location services at any time (the name before iOS 8).
    @available(*, deprecated, renamed: "authorizedAlways")
    public static var authorized: CLAuthorizationStatus { .authorizedAlways }
}
