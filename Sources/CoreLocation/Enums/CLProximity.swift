import Foundation

/// How near a beacon is. Raw values as Apple's.
public enum CLProximity: Int, Sendable {
    case unknown = 0
    case immediate = 1
    case near = 2
    case far = 3
}
