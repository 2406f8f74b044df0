import Foundation
import CoreLocationEngine
import Synchronization

@testable import CoreLocationSources

/// Collects a source's events, from any thread.
final class EventRecorder: Sendable {
    private let storage = Mutex<[SourceEvent]>([])

    var events: [SourceEvent] { storage.withLock { $0 } }
    var fixes: [Fix] {
        events.compactMap {
            if case .fix(let fix) = $0 { return fix }
            return nil
        }
    }

    var handler: @Sendable (SourceEvent) -> Void {
        { [self] event in storage.withLock { $0.append(event) } }
    }
}

/// A route of `count` points along the equator, 0.001° (111.3 m) and `step` seconds apart.
func equatorRoute(count: Int, step: Double = 10, elevation: Double? = 12.5) -> SimulatedRoute {
    let start = Date(timeIntervalSince1970: 1_000_000)
    return SimulatedRoute(
        name: "equator",
        points: (0..<count).map {
            RoutePoint(
                latitude: 0, longitude: Double($0) * 0.001, elevation: elevation,
                time: start.addingTimeInterval(Double($0) * step)
            )
        }
    )
}
