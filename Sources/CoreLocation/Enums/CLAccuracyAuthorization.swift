import Foundation

/// How precise the locations the app receives may be. Raw values as Apple's.
public enum CLAccuracyAuthorization: Int, Sendable {
    /// Locations as precise as the sources allow.
    case fullAccuracy = 0
    /// Approximate locations (typically 1–20 km), updated a few times per hour at most.
    case reducedAccuracy = 1
}
