import Foundation

/// What the user is doing, so that updates can be paused sensibly. Raw values as Apple's.
public enum CLActivityType: Int, Sendable {
    /// Unknown activity.
    case other = 1
    /// Driving with turn-by-turn navigation.
    case automotiveNavigation = 2
    /// Walking, running, cycling.
    case fitness = 3
    /// Other vehicular navigation (boat, train, plane).
    case otherNavigation = 4
    /// Flying.
    case airborne = 5
}
