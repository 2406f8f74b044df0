import Foundation

/// A condition a `CLMonitor` watches.
public protocol CLCondition: Codable, Sendable {}

/// The state of a monitored condition (Apple's `CLMonitor.Event.State`).
public enum __CLMonitoringState: UInt, Sendable, Hashable, Codable {
    case unknown = 0
    case satisfied = 1
    case unsatisfied = 2
    case unmonitored = 3
}
