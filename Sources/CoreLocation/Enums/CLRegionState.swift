import Foundation

/// Whether the device is inside a region. Raw values as Apple's (which declares it `@frozen`).
@frozen
public enum CLRegionState: Int, Sendable {
    case unknown = 0
    case inside = 1
    case outside = 2
}
